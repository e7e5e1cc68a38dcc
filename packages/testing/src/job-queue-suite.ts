/** The JobQueue contract: every engine (in-process, SQLite jobs table, pg-boss) runs it against itself, on the real
 *  clock, beside the Store of its backend (an enqueue inside a Store transaction commits with it). Each
 *  test declares job kinds of its own, so tests never take each other's jobs. Retry delays are whole seconds, the
 *  finest pg-boss keeps. The engine under test must be built with a shutdown grace of 1 second (and on pg-boss, an
 *  expiry margin and a maintenance interval of 1 second). */
import { expect, it } from "@effect/vitest"
import { defineJob, JobQueue, type JobRun, Store } from "@mailroom/core"
import { Clock, Deferred, Duration, Effect, Exit, type Layer, Queue, Ref, Schema, Scope, TestServices } from "effect"
import { uniqueText } from "./fixtures.js"

const Payload = Schema.Struct({ n: Schema.Number, at: Schema.DateFromString })
const payload = (n: number) => ({ n, at: new Date(Date.UTC(2025, 0, 1, 0, 0, n)) })

/** A job kind with a name no other test uses. */
const jobKind = (options: Parameters<typeof defineJob>[2] = {}) =>
  defineJob(uniqueText("suite.job").replace(/[^a-z0-9_.]/gi, "_"), Payload, options)

interface Seen {
  readonly n: number
  readonly run: JobRun
  readonly at: number
}

/** Waits at most `seconds` for `count` items of `queue`. */
const takeN = <A>(queue: Queue.Queue<A>, count: number, seconds = 20) =>
  Effect.timeoutFail(Effect.all(Array.from({ length: count }, () => Queue.take(queue))), {
    duration: Duration.seconds(seconds),
    onTimeout: () => new Error(`fewer than ${count} runs within ${seconds} s`),
  })

/** True when nothing arrives on `queue` for `millis`. */
const quietFor = <A>(queue: Queue.Queue<A>, millis: number) =>
  Effect.map(Effect.timeout(Queue.take(queue), Duration.millis(millis)).pipe(Effect.option), (taken) => taken._tag === "None")

export const jobQueueSuite = <E>(engine: string, layer: Layer.Layer<JobQueue | Store, E>) =>
  it.layer(layer, { timeout: "90 seconds" })(`JobQueue contract (${engine})`, (it) => {
    // On the real clock: pg-boss schedules with the database's clock, which TestClock cannot move.
    const live = <A, X>(name: string, body: () => Effect.Effect<A, X, JobQueue | Store | Scope.Scope>) =>
      it.effect(name, () => TestServices.provideLive(Effect.scoped(body())))

    live("jobs enqueued in a Store transaction run once it committed, never before: ids as answered, once each", () =>
      Effect.scoped(Effect.gen(function* () {
        const job = jobKind({ retry: { delays: ["1 second"] } })
        const queue = yield* JobQueue
        const store = yield* Store
        const seen = yield* Queue.unbounded<Seen>()
        yield* queue.work(job, (value, run) => Queue.offer(seen, { n: value.n, run, at: 0 }), { concurrency: 3 })
        const ids = yield* store.transaction(Effect.gen(function* () {
          const enqueued = yield* queue.enqueueAll(job, [{ payload: payload(1) }, { payload: payload(2) }])
          // Not run while the transaction is open.
          expect(yield* quietFor(seen, 1500)).toBe(true)
          return enqueued
        }))
        expect(new Set(ids).size).toBe(2)
        const runs = yield* takeN(seen, 2)
        expect(runs.map((r) => r.n).sort()).toEqual([1, 2])
        expect(runs.map((r) => r.run.jobId).sort()).toEqual([...ids].sort())
        expect(runs.every((r) => r.run.attempt === 1 && !r.run.lastAttempt)).toBe(true)
        expect(yield* quietFor(seen, 2500)).toBe(true)
      })))

    live("jobs enqueued in a Store transaction that fails are never run", () =>
      Effect.scoped(Effect.gen(function* () {
        const job = jobKind({ retry: { delays: ["1 second"] }, timeout: "1 second" })
        const queue = yield* JobQueue
        const store = yield* Store
        const seen = yield* Queue.unbounded<Seen>()
        yield* queue.work(job, (value, run) => Queue.offer(seen, { n: value.n, run, at: 0 }), { concurrency: 2 })
        const enqueued = yield* Ref.make<ReadonlyArray<string>>([])
        const failed = yield* Effect.either(store.transaction(Effect.gen(function* () {
          yield* Ref.set(enqueued, yield* queue.enqueueAll(job, [{ payload: payload(1) }, { payload: payload(2), options: { runAt: new Date(Date.now() + 1000) } }]))
          return yield* Effect.fail("the change fails")
        })))
        expect(failed._tag).toBe("Left")
        expect(yield* Ref.get(enqueued)).toHaveLength(2)
        // Longer than the job coming due, and than pg-boss would take to expire and retry a job left active.
        expect(yield* quietFor(seen, 5000)).toBe(true)
        // A job enqueued after them runs: the worker was there all along.
        yield* queue.enqueue(job, payload(3))
        expect((yield* takeN(seen, 1)).map((r) => r.n)).toEqual([3])
      })))

    live("runs every enqueued job with its decoded payload, once each when the handler succeeds", () =>
      Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const job = jobKind()
        const seen = yield* Queue.unbounded<Seen>()
        const ids = yield* Effect.forEach([1, 2, 3, 4, 5], (n) => queue.enqueue(job, payload(n)))
        expect(new Set(ids).size).toBe(5)
        yield* queue.work(job, (value, run) =>
          Effect.flatMap(Clock.currentTimeMillis, (at) => {
            expect(value.at).toBeInstanceOf(Date)
            expect(value.at.getTime()).toBe(payload(value.n).at.getTime())
            return Queue.offer(seen, { n: value.n, run, at })
          }), { concurrency: 2 })
        const runs = yield* takeN(seen, 5)
        expect(runs.map((r) => r.n).sort()).toEqual([1, 2, 3, 4, 5])
        expect(runs.map((r) => r.run.jobId).sort()).toEqual([...ids].sort())
        expect(runs.every((r) => r.run.attempt === 1 && r.run.lastAttempt)).toBe(true)
        expect(yield* quietFor(seen, 1500)).toBe(true)
      })))

    live("retries a failed job after each delay of its policy, with the same id and the next attempt number", () =>
      Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const job = jobKind({ retry: { delays: ["1 second", "2 seconds", "1 second"] } })
        const seen = yield* Queue.unbounded<Seen>()
        const id = yield* queue.enqueue(job, payload(7))
        yield* queue.work(job, (value, run) =>
          Effect.gen(function* () {
            yield* Queue.offer(seen, { n: value.n, run, at: yield* Clock.currentTimeMillis })
            if (run.attempt < 3) return yield* Effect.fail(new Error(`attempt ${run.attempt} fails`))
          }))
        const runs = yield* takeN(seen, 3)
        expect(runs.map((r) => r.run)).toEqual([
          { jobId: id, attempt: 1, lastAttempt: false },
          { jobId: id, attempt: 2, lastAttempt: false },
          { jobId: id, attempt: 3, lastAttempt: false },
        ])
        // Each retry waits at least its delay (pg-boss compares with the database clock: allow it 100 ms of skew).
        expect(runs[1]!.at - runs[0]!.at).toBeGreaterThanOrEqual(900)
        expect(runs[2]!.at - runs[1]!.at).toBeGreaterThanOrEqual(1900)
        expect(yield* quietFor(seen, 2500)).toBe(true)
      })))

    live("gives up after the last delay: one run more than the policy has delays, the last marked so", () =>
      Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const job = jobKind({ retry: { delays: ["1 second"] } })
        const seen = yield* Queue.unbounded<Seen>()
        yield* queue.enqueue(job, payload(1))
        yield* queue.work(job, (value, run) =>
          Effect.zipRight(Queue.offer(seen, { n: value.n, run, at: 0 }), Effect.die(new Error("always fails"))))
        const runs = yield* takeN(seen, 2)
        expect(runs.map((r) => [r.run.attempt, r.run.lastAttempt])).toEqual([[1, false], [2, true]])
        expect(yield* quietFor(seen, 3000)).toBe(true)
      })))

    live("a job with no retry policy runs once even when it fails", () =>
      Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const job = jobKind()
        const seen = yield* Queue.unbounded<Seen>()
        yield* queue.enqueue(job, payload(1))
        yield* queue.work(job, (value, run) =>
          Effect.zipRight(Queue.offer(seen, { n: value.n, run, at: 0 }), Effect.fail("no")))
        expect((yield* takeN(seen, 1))[0]!.run).toMatchObject({ attempt: 1, lastAttempt: true })
        expect(yield* quietFor(seen, 2500)).toBe(true)
      })))

    live("an enqueue with the dedupe key of an unfinished job is dropped and answers that job's id", () =>
      Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const job = jobKind()
        const other = jobKind()
        const seen = yield* Queue.unbounded<Seen>()
        const first = yield* queue.enqueue(job, payload(1), { dedupeKey: "k1" })
        expect(yield* queue.enqueue(job, payload(2), { dedupeKey: "k1" })).toBe(first)
        const second = yield* queue.enqueue(job, payload(3), { dedupeKey: "k2" })
        const sameKeyOtherKind = yield* queue.enqueue(other, payload(4), { dedupeKey: "k1" })
        expect(new Set([first, second, sameKeyOtherKind]).size).toBe(3)
        const release = yield* Deferred.make<void>()
        yield* queue.work(job, (value, run) =>
          Effect.zipRight(Queue.offer(seen, { n: value.n, run, at: 0 }), Deferred.await(release)), { concurrency: 2 })
        const runs = yield* takeN(seen, 2)
        expect(runs.map((r) => r.n).sort()).toEqual([1, 3])
        // Still running: the key is taken.
        expect(yield* queue.enqueue(job, payload(5), { dedupeKey: "k1" })).toBe(first)
        yield* Deferred.succeed(release, undefined)
        expect(yield* quietFor(seen, 1500)).toBe(true)
        // Finished: the key is free again.
        const again = yield* queue.enqueue(job, payload(6), { dedupeKey: "k1" })
        expect(again).not.toBe(first)
        expect((yield* takeN(seen, 1))[0]!.n).toBe(6)
      })))

    live("enqueueAll stores a batch as enqueue does each job: ids in order, dedupe keys against unfinished jobs and within the batch", () =>
      Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const job = jobKind()
        const seen = yield* Queue.unbounded<Seen>()
        const taken = yield* queue.enqueue(job, payload(1), { dedupeKey: "k1" })
        const ids = yield* queue.enqueueAll(job, [
          { payload: payload(2), options: { dedupeKey: "k1" } },
          { payload: payload(3), options: { dedupeKey: "k2" } },
          { payload: payload(4) },
          { payload: payload(5), options: { dedupeKey: "k2" } },
          { payload: payload(6), options: { dedupeKey: "k3", runAt: new Date(Date.now() + 60_000) } },
        ])
        expect(ids).toHaveLength(5)
        expect(ids[0]).toBe(taken)
        expect(ids[3]).toBe(ids[1])
        expect(new Set([taken, ids[1], ids[2], ids[4]]).size).toBe(4)
        expect(yield* queue.enqueueAll(job, [])).toEqual([])
        yield* queue.work(job, (value, run) => Queue.offer(seen, { n: value.n, run, at: 0 }), { concurrency: 4 })
        const runs = yield* takeN(seen, 3)
        expect(runs.map((r) => r.n).sort()).toEqual([1, 3, 4])
        expect(runs.map((r) => r.run.jobId).sort()).toEqual([taken, ids[1], ids[2]].sort())
        // The job of k3 waits for its runAt.
        expect(yield* quietFor(seen, 1500)).toBe(true)
      })))

    live("a job enqueued with runAt does not run before that time", () =>
      Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const job = jobKind()
        const seen = yield* Queue.unbounded<Seen>()
        const enqueuedAt = yield* Clock.currentTimeMillis
        yield* queue.enqueue(job, payload(1), { runAt: new Date(enqueuedAt + 2000) })
        yield* queue.enqueue(job, payload(2))
        yield* queue.work(job, (value, run) =>
          Effect.flatMap(Clock.currentTimeMillis, (at) => Queue.offer(seen, { n: value.n, run, at })))
        const runs = yield* takeN(seen, 2)
        expect(runs.map((r) => r.n)).toEqual([2, 1])
        expect(runs[1]!.at - enqueuedAt).toBeGreaterThanOrEqual(1900)
      })))

    live("runs at most `concurrency` jobs at a time, and uses all of it", () =>
      Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const job = jobKind()
        const current = yield* Ref.make(0)
        const highest = yield* Ref.make(0)
        const done = yield* Queue.unbounded<number>()
        yield* Effect.forEach([1, 2, 3, 4, 5, 6, 7], (n) => queue.enqueue(job, payload(n)))
        yield* queue.work(job, (value) =>
          Effect.gen(function* () {
            const now = yield* Ref.updateAndGet(current, (c) => c + 1)
            yield* Ref.update(highest, (h) => Math.max(h, now))
            yield* Effect.sleep("400 millis")
            yield* Ref.update(current, (c) => c - 1)
            yield* Queue.offer(done, value.n)
          }), { concurrency: 3 })
        yield* takeN(done, 7)
        expect(yield* Ref.get(highest)).toBe(3)
      })))

    live("closing the worker's scope stops taking jobs and waits for the run in flight", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const job = jobKind()
        const started = yield* Queue.unbounded<number>()
        const finished = yield* Ref.make<ReadonlyArray<number>>([])
        yield* queue.enqueue(job, payload(1))
        const scope = yield* Scope.make()
        yield* Scope.extend(queue.work(job, (value) =>
          Effect.gen(function* () {
            yield* Queue.offer(started, value.n)
            yield* Effect.sleep("600 millis")
            yield* Ref.update(finished, (list) => [...list, value.n])
          })), scope)
        expect(yield* takeN(started, 1)).toEqual([1])
        yield* Scope.close(scope, Exit.void)
        expect(yield* Ref.get(finished)).toEqual([1])
        yield* queue.enqueue(job, payload(2))
        expect(yield* quietFor(started, 1500)).toBe(true)
        // The job left behind runs once a worker is back.
        yield* Effect.scoped(Effect.gen(function* () {
          yield* queue.work(job, (value) => Queue.offer(started, value.n))
          expect(yield* takeN(started, 1)).toEqual([2])
        }))
      }))

    live("a run still going after the shutdown grace is interrupted and retried as its next attempt", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const job = jobKind({ retry: { delays: ["1 second"] } })
        const seen = yield* Queue.unbounded<Seen>()
        yield* queue.enqueue(job, payload(1))
        const scope = yield* Scope.make()
        yield* Scope.extend(queue.work(job, (value, run) =>
          Effect.zipRight(Queue.offer(seen, { n: value.n, run, at: 0 }), Effect.never)), scope)
        yield* takeN(seen, 1)
        const closing = yield* Clock.currentTimeMillis
        yield* Scope.close(scope, Exit.void)
        const closed = yield* Clock.currentTimeMillis
        expect(closed - closing).toBeLessThan(5000)
        yield* Effect.scoped(Effect.gen(function* () {
          yield* queue.work(job, (value, run) => Queue.offer(seen, { n: value.n, run, at: 0 }))
          expect((yield* takeN(seen, 1))[0]!.run).toMatchObject({ attempt: 2, lastAttempt: true })
        }))
      }))

    live("a run longer than the job's timeout is interrupted and counts as a failed attempt", () =>
      Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const job = jobKind({ retry: { delays: ["1 second"] }, timeout: "1 second" })
        const seen = yield* Queue.unbounded<Seen>()
        const interrupted = yield* Ref.make(false)
        yield* queue.enqueue(job, payload(1))
        yield* queue.work(job, (value, run) =>
          Effect.zipRight(
            Queue.offer(seen, { n: value.n, run, at: 0 }),
            run.attempt === 1 ? Effect.onInterrupt(Effect.never, () => Ref.set(interrupted, true)) : Effect.void,
          ))
        const runs = yield* takeN(seen, 2)
        expect(runs.map((r) => r.run.attempt)).toEqual([1, 2])
        expect(yield* Ref.get(interrupted)).toBe(true)
      })))
  })
