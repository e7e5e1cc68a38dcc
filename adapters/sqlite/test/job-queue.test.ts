/** The jobs-table JobQueue on a SQLite file: the shared contract, then restarts: pending jobs wait in the file, and a
 *  job left running by a process that died is run again as its next attempt. */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { defineJob, IdsLive, JobQueue, type JobRun } from "@mailroom/core"
import { SqlJobQueue } from "@mailroom/sql"
import { jobQueueSuite } from "@mailroom/testing"
import { Effect, Layer, Queue, Schema } from "effect"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

const queueOn = (filename: string) =>
  SqlJobQueue.layer({ shutdownGrace: "1 second", pollInterval: "100 millis" }).pipe(
    Layer.provideMerge(MailroomSqlite.layer({ filename })),
    Layer.provideMerge(IdsLive),
  )

jobQueueSuite("sqlite", queueOn(tempDbFile()))

const report = defineJob("test.report", Schema.Struct({ n: Schema.Number }), { retry: { delays: ["1 second", "1 second"] } })

describe("SQLite JobQueue across restarts", () => {
  it.live("pending jobs survive closing and reopening the database file", () =>
    Effect.gen(function* () {
      const filename = tempDbFile()
      const runAt = new Date(Date.now() + 500)
      const enqueued = yield* Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        return yield* Effect.all([queue.enqueue(report, { n: 1 }), queue.enqueue(report, { n: 2 }, { runAt })])
      }).pipe(Effect.provide(queueOn(filename))))
      const runs = yield* Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const seen = yield* Queue.unbounded<{ readonly n: number; readonly run: JobRun }>()
        yield* queue.work(report, (payload, run) => Queue.offer(seen, { n: payload.n, run }))
        return yield* Effect.all([Queue.take(seen), Queue.take(seen)]).pipe(Effect.timeout("10 seconds"))
      }).pipe(Effect.provide(queueOn(filename))))
      expect(runs.map((r) => [r.n, r.run.jobId, r.run.attempt])).toEqual([[1, enqueued[0], 1], [2, enqueued[1], 1]])
    }))

  it.live("a job left running by a process that stopped is run again, as its next attempt, after the policy's delay", () =>
    Effect.gen(function* () {
      const filename = tempDbFile()
      // The first process claims the job and dies in the middle of the run: the row stays as it left it.
      const id = yield* Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const sql = yield* SqlClient.SqlClient
        const id = yield* queue.enqueue(report, { n: 7 })
        yield* sql`UPDATE jobs SET state = 'running', attempts = 1, started_at = 0 WHERE id = ${id}`
        return id
      }).pipe(Effect.provide(queueOn(filename))))
      const started = Date.now()
      const run = yield* Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const seen = yield* Queue.unbounded<JobRun>()
        yield* queue.work(report, (_, run) => Queue.offer(seen, run))
        return yield* Queue.take(seen).pipe(Effect.timeout("10 seconds"))
      }).pipe(Effect.provide(queueOn(filename))))
      expect(run).toEqual({ jobId: id, attempt: 2, lastAttempt: false })
      expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    }))
})

describe("SQLite JobQueue wake-ups", () => {
  const wakeA = defineJob("test.wake-a", Schema.Struct({ n: Schema.Number }))
  const wakeB = defineJob("test.wake-b", Schema.Struct({ n: Schema.Number }))
  const flaky = defineJob("test.wake-flaky", Schema.Struct({ n: Schema.Number }), { retry: { delays: ["0 millis"] } })
  // Idle workers poll once an hour here: whatever runs sooner was woken.
  const slowPoll = () => SqlJobQueue.layer({ shutdownGrace: "1 second", pollInterval: "1 hour" }).pipe(
    Layer.provideMerge(MailroomSqlite.layer({ filename: tempDbFile() })),
    Layer.provideMerge(IdsLive),
  )

  it.live("an enqueue wakes the idle workers of its job at once, and not those of another job", () =>
    Effect.gen(function* () {
      const queue = yield* JobQueue
      const seenA = yield* Queue.unbounded<number>()
      const seenB = yield* Queue.unbounded<number>()
      yield* queue.work(wakeA, (payload) => Queue.offer(seenA, payload.n))
      yield* queue.work(wakeB, (payload) => Queue.offer(seenB, payload.n))
      yield* Effect.sleep("100 millis")
      // B's worker wakes for this job, finds it not yet due, and sleeps again.
      yield* queue.enqueue(wakeB, { n: 1 }, { runAt: new Date(Date.now() + 200) })
      yield* Effect.sleep("400 millis")
      yield* queue.enqueue(wakeA, { n: 2 })
      expect(yield* Queue.take(seenA).pipe(Effect.timeout("5 seconds"))).toBe(2)
      yield* Effect.sleep("300 millis")
      // A's enqueue left B's worker asleep, though B's job is due by now.
      expect(yield* Queue.size(seenB)).toBe(0)
      yield* queue.enqueue(wakeB, { n: 3 })
      const runs = yield* Effect.all([Queue.take(seenB), Queue.take(seenB)]).pipe(Effect.timeout("5 seconds"))
      expect([...runs].sort()).toEqual([1, 3])
    }).pipe(Effect.scoped, Effect.provide(slowPoll())))

  it.live("a failed run put back for a retry wakes its job's idle worker", () =>
    Effect.gen(function* () {
      const queue = yield* JobQueue
      const seen = yield* Queue.unbounded<JobRun>()
      yield* queue.work(flaky, (_, run) =>
        Effect.zipRight(Queue.offer(seen, run), run.attempt === 1 ? Effect.fail("first attempt fails") : Effect.void))
      yield* Effect.sleep("100 millis")
      const id = yield* queue.enqueue(flaky, { n: 1 })
      const runs = yield* Effect.all([Queue.take(seen), Queue.take(seen)]).pipe(Effect.timeout("5 seconds"))
      expect(runs).toEqual([{ jobId: id, attempt: 1, lastAttempt: false }, { jobId: id, attempt: 2, lastAttempt: true }])
    }).pipe(Effect.scoped, Effect.provide(slowPoll())))
})
