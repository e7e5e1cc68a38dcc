/** The jobs-table JobQueue on a SQLite file: the shared contract, then restarts: pending jobs wait in the file, and a
 *  job left running by a process that died is run again as its next attempt. */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { defineJob, IdsLive, JobQueue, type JobRun, Store } from "@mailroom/core"
import { SqlJobQueue } from "@mailroom/sql"
import { jobQueueSuite, jobQueueWakeSuite } from "@mailroom/testing"
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

describe("SQLite JobQueue: enqueues in a Store transaction", () => {
  it.live("are rows of that transaction: rolled back with it; committed, a pending job that the worker runs", () =>
    Effect.scoped(Effect.gen(function* () {
      const queue = yield* JobQueue
      const store = yield* Store
      const sql = yield* SqlClient.SqlClient
      const failed = yield* Effect.either(store.transaction(Effect.zipRight(queue.enqueue(report, { n: 1 }), Effect.fail("the change fails"))))
      expect(failed._tag).toBe("Left")
      expect(yield* sql`SELECT count(*) AS n FROM jobs`).toEqual([{ n: 0 }])
      const id = yield* store.transaction(queue.enqueue(report, { n: 2 }))
      expect(yield* sql`SELECT id, state, attempts FROM jobs`).toEqual([{ id, state: "pending", attempts: 0 }])
      const seen = yield* Queue.unbounded<{ readonly n: number; readonly run: JobRun }>()
      yield* queue.work(report, (payload, run) => Queue.offer(seen, { n: payload.n, run }))
      expect(yield* Queue.take(seen).pipe(Effect.timeout("10 seconds"))).toEqual({ n: 2, run: { jobId: id, attempt: 1, lastAttempt: false } })
    }).pipe(Effect.provide(queueOn(tempDbFile())))))
})

describe("SQLite JobQueue wake-ups", () => {
  // Idle workers poll once an hour here: whatever runs sooner was woken.
  jobQueueWakeSuite("sqlite", () => SqlJobQueue.layer({ shutdownGrace: "1 second", pollInterval: "1 hour" }).pipe(
    Layer.provideMerge(MailroomSqlite.layer({ filename: tempDbFile() })),
    Layer.provideMerge(IdsLive),
  ))
})
