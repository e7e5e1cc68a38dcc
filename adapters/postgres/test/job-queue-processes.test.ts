/** The pg-boss JobQueue with real processes on one scratch database (the workers run the package builds, as a host
 *  would): two instances share the work and make each attempt exactly once; a worker killed with SIGKILL in the
 *  middle of a run leaves its job to be retried by another instance. */
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { defineJob, JobQueue } from "@mailroom/core"
import { findTestPostgres } from "@mailroom/testing"
import { Context, Duration, Effect, Layer, Schema } from "effect"
import pg from "pg"
import { PgBossJobQueue } from "../src/index.js"
import { scratchDatabase } from "./scratch-database.js"

const url = await findTestPostgres()
const workerScript = fileURLToPath(new URL("./fixtures/attempt-worker.mjs", import.meta.url))

// The same definition as the worker's.
const attempt = defineJob("test.attempt", Schema.Struct({ n: Schema.Number }), {
  retry: { delays: ["1 second", "1 second"] },
  timeout: "3 seconds",
})

interface Row { readonly job_id: string; readonly attempt: number; readonly instance: string; readonly n: number }

/** Starts a worker process and waits until it works. */
const startWorker = (database: string, instance: string, hangOn?: number) =>
  Effect.acquireRelease(
    Effect.async<ChildProcess, Error>((resume) => {
      const child = spawn(process.execPath, [workerScript, database, instance, ...(hangOn === undefined ? [] : [String(hangOn)])], {
        stdio: ["ignore", "pipe", "inherit"],
      })
      child.stdout.on("data", (chunk: Buffer) => { if (chunk.toString().includes("ready")) resume(Effect.succeed(child)) })
      child.on("exit", (code) => resume(Effect.fail(new Error(`worker ${instance} exited with ${code} before it was ready`))))
    }),
    (child) => Effect.async<void>((resume) => {
      if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
      child.on("exit", () => resume(Effect.void))
      child.kill("SIGTERM")
    }),
  )

const rows = (client: pg.Pool) => Effect.promise(() => client.query<Row>("SELECT job_id, attempt, instance, n FROM attempt_log ORDER BY id")).pipe(
  Effect.map((result) => result.rows))

/** Polls until `done` holds for the attempt log (at most `seconds`). */
const waitFor = (client: pg.Pool, done: (log: ReadonlyArray<Row>) => boolean, seconds: number) =>
  Effect.gen(function* () {
    const deadline = Date.now() + seconds * 1000
    while (Date.now() < deadline) {
      const log = yield* rows(client)
      if (done(log)) return log
      yield* Effect.sleep("200 millis")
    }
    return yield* rows(client)
  })

const setUp = Effect.gen(function* () {
  const database = yield* scratchDatabase(url!)
  const client = yield* Effect.acquireRelease(Effect.sync(() => {
    const opened = new pg.Pool({ connectionString: database, max: 2 })
    // pg's pool.end() answers before its connections have closed, and the scratch database is then dropped WITH
    // (FORCE): a connection still closing is terminated by the server, which the pool reports as an error event.
    // Without a listener that event would be an uncaught exception in the test process.
    opened.on("error", () => undefined)
    return opened
  }), (p) => Effect.promise(() => p.end()))
  yield* Effect.promise(() => client.query(
    "CREATE TABLE attempt_log (id BIGSERIAL PRIMARY KEY, job_id UUID NOT NULL, attempt INT NOT NULL, instance TEXT NOT NULL, n INT NOT NULL)"))
  const queue = Context.get(yield* Layer.build(PgBossJobQueue.layer({ url: database, expiryMargin: "1 second" })), JobQueue)
  return { database, client, queue }
})

describe.skipIf(url === undefined)("pg-boss JobQueue across processes", () => {
  it.scopedLive("two instances on one database make each attempt exactly once, retries included, and both take work", () =>
    Effect.gen(function* () {
      const { database, client, queue } = yield* setUp
      yield* startWorker(database, "a")
      yield* startWorker(database, "b")
      const jobs = 120
      const ids = yield* Effect.forEach(Array.from({ length: jobs }, (_, i) => i + 1), (n) => queue.enqueue(attempt, { n }), { concurrency: 8 })
      // Every fifth job fails its first attempt once: 24 retries.
      const expected = jobs + jobs / 5
      yield* waitFor(client, (log) => log.length >= expected, 60)
      yield* Effect.sleep(Duration.seconds(3))
      const log = yield* rows(client)
      const pairs = log.map((row) => `${row.job_id}#${row.attempt}`)
      expect(new Set(pairs).size).toBe(pairs.length)
      expect(log.length).toBe(expected)
      const byJob = new Map<string, Array<number>>()
      for (const row of log) byJob.set(row.job_id, [...(byJob.get(row.job_id) ?? []), row.attempt])
      expect([...byJob.keys()].sort()).toEqual([...ids].sort())
      for (const row of log) expect(byJob.get(row.job_id)).toEqual(row.n % 5 === 0 ? [1, 2] : [1])
      const instances = new Set(log.map((row) => row.instance))
      expect(instances).toEqual(new Set(["a", "b"]))
    }), { timeout: 120_000 })

  it.scopedLive("a worker killed with SIGKILL in the middle of a run leaves the job to be retried by another instance", () =>
    Effect.gen(function* () {
      const { database, client, queue } = yield* setUp
      const doomed = yield* startWorker(database, "doomed", 1)
      const id = yield* queue.enqueue(attempt, { n: 1 })
      const started = yield* waitFor(client, (log) => log.length >= 1, 30)
      expect(started.map((row) => [row.job_id, row.attempt, row.instance])).toEqual([[id, 1, "doomed"]])
      doomed.kill("SIGKILL")
      yield* startWorker(database, "survivor")
      const log = yield* waitFor(client, (entries) => entries.length >= 2, 60)
      expect(log.map((row) => [row.job_id, row.attempt, row.instance])).toEqual([[id, 1, "doomed"], [id, 2, "survivor"]])
      yield* Effect.sleep(Duration.seconds(2))
      expect((yield* rows(client)).length).toBe(2)
    }), { timeout: 120_000 })
})
