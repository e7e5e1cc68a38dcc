/** The worker loop shared by every JobQueue engine (runJobWorker): when it claims again, and when it waits. */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Queue, Ref, Schema } from "effect"
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
})
