/** The worker loop shared by every JobQueue engine (runJobWorker): when it claims again, and when it waits. */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Queue, Ref, Schema, Scope } from "effect"
import { nextTurn } from "../../src/internal/group-commit.js"
import { defineJob } from "../../src/ports/job-queue.js"
import { type ClaimedJob, type JobSource, runJobWorker } from "../../src/services/job-runner.js"

const note = defineJob("test.note", Schema.Struct({ n: Schema.Number }))

/** A source whose jobs are offered by the test; it counts its claims, and its idle wait ends only on `wake`. */
const makeSource = Effect.gen(function* () {
  const due: Array<ClaimedJob> = []
  const claims = yield* Ref.make<ReadonlyArray<number>>([])
  let wake = yield* Deferred.make<void>()
  const source: JobSource = {
    claim: (max) => Effect.flatMap(Ref.update(claims, (asked) => [...asked, max]), () => Effect.sync(() => due.splice(0, max))),
    complete: () => Effect.void,
    fail: () => Effect.void,
    idle: Effect.suspend(() => Deferred.await(wake)),
  }
  const offer = (n: number) => Effect.sync(() => { due.push({ id: `job_${n}`, attempt: 1, payload: { n } }) })
  const wakeUp = Effect.flatMap(Deferred.succeed(wake, undefined), () => Effect.flatMap(Deferred.make<void>(), (next) => Effect.sync(() => { wake = next })))
  return { source, claims, offer, wakeUp }
})

describe("runJobWorker", () => {
  it.live("after a claim that found fewer jobs than free slots, waits for a wake instead of claiming again at once", () =>
    Effect.gen(function* () {
      const { source, claims, offer, wakeUp } = yield* makeSource
      const ran = yield* Queue.unbounded<number>()
      yield* offer(1)
      yield* runJobWorker(note, ({ n }) => Queue.offer(ran, n), source, { concurrency: 4, shutdownGrace: "1 second" })
      expect(yield* Queue.take(ran).pipe(Effect.timeout("2 seconds"))).toBe(1)
      yield* Effect.sleep("100 millis")
      // One claim of four slots found one job: no second, empty claim followed.
      expect(yield* Ref.get(claims)).toEqual([4])
      // A wake brings the next claim, which finds the job offered meanwhile.
      yield* offer(2)
      yield* wakeUp
      expect(yield* Queue.take(ran).pipe(Effect.timeout("2 seconds"))).toBe(2)
      expect((yield* Ref.get(claims)).length).toBe(2)
    }).pipe(Effect.scoped))

  it.live("claims again at once after a claim that filled every free slot", () =>
    Effect.gen(function* () {
      const { source, claims, offer } = yield* makeSource
      const ran = yield* Queue.unbounded<number>()
      for (let n = 1; n <= 5; n++) yield* offer(n)
      yield* runJobWorker(note, ({ n }) => Queue.offer(ran, n), source, { concurrency: 2, shutdownGrace: "1 second" })
      const runs = yield* Effect.all(Array.from({ length: 5 }, () => Queue.take(ran))).pipe(Effect.timeout("2 seconds"))
      expect([...runs].sort()).toEqual([1, 2, 3, 4, 5])
      // Full claims were followed by more; the claim that found the last job alone, or none, ended them.
      const asked = yield* Ref.get(claims)
      expect(asked[0]).toBe(2)
      expect(asked.length).toBeGreaterThanOrEqual(3)
    }).pipe(Effect.scoped))

  it.live("runs jobs handed over without claiming from the engine, and wakes for them from its idle wait", () =>
    Effect.gen(function* () {
      const { source, claims } = yield* makeSource
      const ran = yield* Queue.unbounded<number>()
      const handoff = yield* runJobWorker(note, ({ n }) => Queue.offer(ran, n), source, { concurrency: 4, shutdownGrace: "1 second", claimEvery: "1 hour" })
      yield* Effect.sleep("50 millis")
      // The first claim found nothing: the worker waits on the source, which nothing wakes.
      expect(yield* Ref.get(claims)).toEqual([4])
      expect(handoff.hasRoomFor(4)).toBe(true)
      expect(handoff.hasRoomFor(5)).toBe(false)
      yield* handoff.give([{ id: "job_1", attempt: 1, payload: { n: 1 } }, { id: "job_2", attempt: 1, payload: { n: 2 } }])
      const runs = yield* Effect.all([Queue.take(ran), Queue.take(ran)]).pipe(Effect.timeout("2 seconds"))
      expect([...runs].sort()).toEqual([1, 2])
      yield* Effect.sleep("50 millis")
      // Within claimEvery of the last claim: no claim was made for them.
      expect(yield* Ref.get(claims)).toEqual([4])
    }).pipe(Effect.scoped))

  it.live("after a full claim of the engine, a claim that jobs handed over filled only in part is followed by a claim of the engine, not a wait", () =>
    Effect.gen(function* () {
      const { source, claims, offer } = yield* makeSource
      const gate = yield* Deferred.make<void>()
      const ran = yield* Queue.unbounded<number>()
      // Jobs 1 and 2 hold both slots until the gate opens; job 3 stays due in the engine after the first claim, which
      // asked for two and was answered two (full: the engine may have more).
      for (let n = 1; n <= 3; n++) yield* offer(n)
      const handoff = yield* runJobWorker(note, ({ n }) => Effect.zipRight(n <= 2 ? Deferred.await(gate) : Effect.void, Queue.offer(ran, n)), source, {
        concurrency: 2, shutdownGrace: "1 second", claimEvery: "1 hour",
      })
      yield* Effect.sleep("50 millis")
      expect(yield* Ref.get(claims)).toEqual([2])
      // A job is handed over while both slots are busy; both free together: the claim that takes the handed job does
      // not ask the engine (claimEvery), and leaves a slot free. Waiting for a wake then would leave job 3 to the next
      // poll (which this source never sends): no enqueue comes to end the wait.
      yield* handoff.give([{ id: "job_100", attempt: 1, payload: { n: 100 } }])
      yield* Deferred.succeed(gate, undefined)
      const runs = yield* Effect.all(Array.from({ length: 4 }, () => Queue.take(ran))).pipe(Effect.timeout("2 seconds"))
      expect([...runs].sort((a, b) => a - b)).toEqual([1, 2, 3, 100])
      expect((yield* Ref.get(claims)).length).toBe(2)
    }).pipe(Effect.scoped))

  it.live("counts jobs handed over and runs in flight against its slots", () =>
    Effect.gen(function* () {
      const { source } = yield* makeSource
      const release = yield* Deferred.make<void>()
      const ran = yield* Queue.unbounded<number>()
      const handoff = yield* runJobWorker(note, ({ n }) => Effect.zipRight(Queue.offer(ran, n), Deferred.await(release)), source, {
        concurrency: 2, shutdownGrace: "1 second",
      })
      yield* handoff.give([{ id: "job_1", attempt: 1, payload: { n: 1 } }])
      expect(yield* Queue.take(ran).pipe(Effect.timeout("2 seconds"))).toBe(1)
      expect(handoff.hasRoomFor(1)).toBe(true)
      expect(handoff.hasRoomFor(2)).toBe(false)
      yield* Deferred.succeed(release, undefined)
    }).pipe(Effect.scoped))

  it.live("while jobs handed over fill every slot, still claims from the engine at least every claimEvery", () =>
    Effect.gen(function* () {
      const { source, claims, offer } = yield* makeSource
      const ran = yield* Queue.unbounded<number>()
      const handoff = yield* runJobWorker(note, ({ n }) => Effect.zipRight(Effect.sleep("10 millis"), Queue.offer(ran, n)), source, {
        concurrency: 1, shutdownGrace: "1 second", claimEvery: "100 millis",
      })
      yield* Effect.sleep("20 millis")
      // 100 jobs handed over at once would keep the only slot busy for a second; the engine's job comes in between.
      yield* offer(1000)
      yield* handoff.give(Array.from({ length: 100 }, (_, i) => ({ id: `job_${i}`, attempt: 1, payload: { n: i } })))
      const order: Array<number> = []
      while (!order.includes(1000)) order.push(yield* Queue.take(ran).pipe(Effect.timeout("3 seconds")))
      expect(order.length).toBeLessThan(50)
      expect((yield* Ref.get(claims)).length).toBeGreaterThanOrEqual(2)
      const rest = yield* Effect.all(Array.from({ length: 101 - order.length }, () => Queue.take(ran))).pipe(Effect.timeout("5 seconds"))
      expect(new Set([...order, ...rest]).size).toBe(101)
    }).pipe(Effect.scoped))

  it.live("jobs handed over start at once: before the engine's claim answers, and before the event loop's next turn", () =>
    Effect.gen(function* () {
      const { source, claims, offer } = yield* makeSource
      // After the first claim, the engine answers only once the test opens the gate (a round trip under way, or on
      // SQLite a connection held by another transaction).
      const gate = yield* Deferred.make<void>()
      let first = true
      const slow: JobSource = {
        ...source,
        claim: (max) => first ? Effect.zipRight(Effect.sync(() => { first = false }), source.claim(max)) : Effect.zipRight(Deferred.await(gate), source.claim(max)),
      }
      const ran = yield* Queue.unbounded<number>()
      const handoff = yield* runJobWorker(note, ({ n }) => Queue.offer(ran, n), slow, { concurrency: 2, shutdownGrace: "1 second", claimEvery: "0 millis" })
      yield* Effect.sleep("50 millis")
      expect(yield* Ref.get(claims)).toEqual([2])
      yield* handoff.give([{ id: "job_1", attempt: 1, payload: { n: 1 } }])
      // Running before a turn of the event loop taken right after the handoff comes (a relay's next batch waits for
      // one), and while the engine's claim of the other slot is still waiting for the gate.
      const beforeNextTurn = yield* Effect.zipRight(nextTurn, Queue.size(ran))
      expect(beforeNextTurn).toBe(1)
      expect(yield* Queue.take(ran).pipe(Effect.timeout("2 seconds"))).toBe(1)
      expect(yield* Deferred.isDone(gate)).toBe(false)
      // The claim answers once the gate opens, with the engine's job.
      yield* offer(2)
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Queue.take(ran).pipe(Effect.timeout("2 seconds"))).toBe(2)
      expect(yield* Ref.get(claims)).toEqual([2, 1])
    }).pipe(Effect.scoped))

  it.live("jobs handed over once the worker stopped, or left waiting when it stops, are failed as runs cut short", () =>
    Effect.gen(function* () {
      const { source } = yield* makeSource
      const failed = yield* Ref.make<ReadonlyArray<string>>([])
      const counted: JobSource = { ...source, fail: (claimed) => Ref.update(failed, (ids) => [...ids, claimed.id]) }
      const scope = yield* Scope.make()
      const handoff = yield* Scope.extend(runJobWorker(note, () => Effect.void, counted, { concurrency: 1, shutdownGrace: "1 second" }), scope)
      yield* Scope.close(scope, Exit.void)
      expect(handoff.hasRoomFor(1)).toBe(false)
      yield* handoff.give([{ id: "job_late", attempt: 1, payload: { n: 1 } }])
      expect(yield* Ref.get(failed)).toEqual(["job_late"])
    }))
})
