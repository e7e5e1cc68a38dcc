/** Wake-ups of a persistent JobQueue (the SQLite jobs table, pg-boss): an idle worker of a job kind is woken at once
 *  by an enqueue of its kind in the same process, by a job of its kind falling due within the poll interval, and by a
 *  failed run put back for its retry, never by another kind's.
 *  The engine under test polls once an hour (`slowPoll`), so whatever runs sooner was woken. */
import { expect, it } from "@effect/vitest"
import { defineJob, JobQueue, type JobRun } from "@mailroom/core"
import { Deferred, Effect, type Layer, Queue, Schema } from "effect"
import { uniqueText } from "./fixtures.js"

const kind = (options: Parameters<typeof defineJob>[2] = {}) =>
  defineJob(uniqueText("wake.job").replace(/[^a-z0-9_.]/gi, "_"), Schema.Struct({ n: Schema.Number }), options)

export const jobQueueWakeSuite = <E>(engine: string, slowPoll: () => Layer.Layer<JobQueue, E>) => {
  it.live(`${engine}: an enqueue wakes the idle workers of its job at once, and not those of another job`, () =>
    Effect.gen(function* () {
      const wakeA = kind()
      const wakeB = kind()
      const queue = yield* JobQueue
      const seenA = yield* Queue.unbounded<number>()
      const seenB = yield* Queue.unbounded<number>()
      yield* queue.work(wakeA, (payload) => Queue.offer(seenA, payload.n))
      yield* queue.work(wakeB, (payload) => Queue.offer(seenB, payload.n))
      yield* Effect.sleep("300 millis")
      // B's worker wakes for this job, finds it not yet due, and sleeps again; the job wakes it once it falls due
      // (a job due within the poll interval sets a timer), not an hour later at the next poll.
      const enqueuedAt = Date.now()
      yield* queue.enqueue(wakeB, { n: 1 }, { runAt: new Date(enqueuedAt + 200) })
      expect(yield* Queue.take(seenB).pipe(Effect.timeout("5 seconds"))).toBe(1)
      expect(Date.now() - enqueuedAt).toBeGreaterThanOrEqual(190)
      yield* queue.enqueue(wakeA, { n: 2 })
      expect(yield* Queue.take(seenA).pipe(Effect.timeout("5 seconds"))).toBe(2)
      yield* Effect.sleep("300 millis")
      // A's enqueue ran nothing of B's.
      expect(yield* Queue.size(seenB)).toBe(0)
      yield* queue.enqueue(wakeB, { n: 3 })
      expect(yield* Queue.take(seenB).pipe(Effect.timeout("5 seconds"))).toBe(3)
    }).pipe(Effect.scoped, Effect.provide(slowPoll())), { timeout: 30_000 })

  it.live(`${engine}: while a run goes on, an enqueue of its job starts the next run at once (the worker waits after a claim that left slots free)`, () =>
    Effect.gen(function* () {
      const busy = kind()
      const queue = yield* JobQueue
      const started = yield* Queue.unbounded<number>()
      const release = yield* Deferred.make<void>()
      yield* queue.work(busy, (payload) => Effect.zipRight(Queue.offer(started, payload.n), Deferred.await(release)), { concurrency: 4 })
      yield* Effect.sleep("300 millis")
      yield* queue.enqueue(busy, { n: 1 })
      expect(yield* Queue.take(started).pipe(Effect.timeout("5 seconds"))).toBe(1)
      yield* Effect.sleep("200 millis")
      // The first run still holds its slot; the poll is an hour, so only the enqueue can start this one.
      yield* queue.enqueue(busy, { n: 2 })
      expect(yield* Queue.take(started).pipe(Effect.timeout("5 seconds"))).toBe(2)
      yield* Deferred.succeed(release, undefined)
    }).pipe(Effect.scoped, Effect.provide(slowPoll())), { timeout: 30_000 })

  it.live(`${engine}: a failed run put back for a retry wakes its job's idle worker`, () =>
    Effect.gen(function* () {
      const flaky = kind({ retry: { delays: ["0 millis"] } })
      const queue = yield* JobQueue
      const seen = yield* Queue.unbounded<JobRun>()
      yield* queue.work(flaky, (_, run) =>
        Effect.zipRight(Queue.offer(seen, run), run.attempt === 1 ? Effect.fail("first attempt fails") : Effect.void))
      yield* Effect.sleep("300 millis")
      const id = yield* queue.enqueue(flaky, { n: 1 })
      const runs = yield* Effect.all([Queue.take(seen), Queue.take(seen)]).pipe(Effect.timeout("5 seconds"))
      expect(runs).toEqual([{ jobId: id, attempt: 1, lastAttempt: false }, { jobId: id, attempt: 2, lastAttempt: true }])
    }).pipe(Effect.scoped, Effect.provide(slowPoll())), { timeout: 30_000 })
}
