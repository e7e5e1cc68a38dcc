/** The in-process queue runs on Effect's Clock: TestClock walks the webhook retry schedule (30 s, 2 min, 15 min, 1 h,
 *  4 h, then give up) in milliseconds, and a retry never comes a moment early. */
import { describe, expect, it } from "@effect/vitest"
import { defineJob, IdsLive, JobQueue, type JobRun } from "@mailroom/core"
import { Chunk, Clock, Duration, Effect, Layer, Option, Queue, Schema, TestClock } from "effect"
import { makeMemoryJobQueue } from "../src/index.js"

const webhookSchedule = ["30 seconds", "2 minutes", "15 minutes", "1 hour", "4 hours"] as const
const deliver = defineJob("test.deliver", Schema.Struct({ deliveryId: Schema.String }), { retry: { delays: webhookSchedule } })

const queueLayer = Layer.effect(JobQueue, Effect.map(makeMemoryJobQueue(), ({ queue }) => queue)).pipe(Layer.provide(IdsLive))

/** Lets the worker's fibers run at the current test time. */
const settle = Effect.repeatN(Effect.yieldNow(), 50)

describe("in-process JobQueue under TestClock", () => {
  it.scoped("walks all five retries of the webhook schedule, each exactly on time, then gives up", () =>
    Effect.gen(function* () {
      const queue = yield* JobQueue
      const runs = yield* Queue.unbounded<{ readonly run: JobRun; readonly at: number }>()
      const start = yield* Clock.currentTimeMillis
      const id = yield* queue.enqueue(deliver, { deliveryId: "del_1" })
      yield* queue.work(deliver, (_, run) =>
        Effect.flatMap(Clock.currentTimeMillis, (at) => Queue.offer(runs, { run, at })).pipe(
          Effect.zipRight(Effect.fail(new Error("receiver answered 500")))))
      yield* settle
      const first = yield* Queue.take(runs)
      expect(first).toEqual({ run: { jobId: id, attempt: 1, lastAttempt: false }, at: start })

      let expectedAt = start
      for (const [index, delay] of webhookSchedule.entries()) {
        const millis = Duration.toMillis(Duration.decode(delay))
        // One millisecond short of the delay: nothing runs yet.
        yield* TestClock.adjust(Duration.millis(millis - 1))
        yield* settle
        expect(Option.isNone(yield* Queue.poll(runs))).toBe(true)
        yield* TestClock.adjust(Duration.millis(1))
        yield* settle
        expectedAt += millis
        const retry = yield* Queue.take(runs)
        expect(retry).toEqual({ run: { jobId: id, attempt: index + 2, lastAttempt: index === webhookSchedule.length - 1 }, at: expectedAt })
      }
      // Given up: a day later, nothing more.
      yield* TestClock.adjust("24 hours")
      yield* settle
      expect(Option.isNone(yield* Queue.poll(runs))).toBe(true)
    }).pipe(Effect.provide(queueLayer)))

  it.scoped("a retry that succeeds ends the schedule", () =>
    Effect.gen(function* () {
      const { queue, inspect } = yield* makeMemoryJobQueue()
      const attempts = yield* Queue.unbounded<number>()
      yield* queue.enqueue(deliver, { deliveryId: "del_2" })
      yield* queue.work(deliver, (_, run) =>
        Effect.zipRight(Queue.offer(attempts, run.attempt), run.attempt < 3 ? Effect.fail("not yet") : Effect.void))
      yield* settle
      yield* TestClock.adjust("30 seconds")
      yield* settle
      yield* TestClock.adjust("2 minutes")
      yield* settle
      expect(Chunk.toReadonlyArray(yield* Queue.takeAll(attempts))).toEqual([1, 2, 3])
      const jobs = yield* inspect
      expect(jobs.map((job) => [job.state, job.attempts])).toEqual([["completed", 3]])
      yield* TestClock.adjust("5 hours")
      yield* settle
      expect((yield* inspect).map((job) => job.attempts)).toEqual([3])
    }).pipe(Effect.provide(IdsLive)))
})
