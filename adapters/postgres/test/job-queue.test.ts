/** The pg-boss JobQueue against the shared contract, in a scratch database. Several processes sharing the work, and a
 *  worker killed mid-run, are tested with real processes in job-queue-processes.test.ts. */
import { CommitDurability, defineJob, JobQueue, type JobRun, Store } from "@mailroom/core"
import { findTestPostgres, jobQueueSuite, jobQueueWakeSuite } from "@mailroom/testing"
import { describe, expect, it } from "@effect/vitest"
import { Context, type Duration, Effect, Layer, Queue, Schema } from "effect"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { MailroomPostgres, PgBossJobQueue } from "../src/index.js"
import { scratchDatabase } from "./scratch-database.js"

const url = await findTestPostgres()

/** A client of `database` of its own, closed with the scope. */
const connectTo = (database: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const opened = new pg.Client({ connectionString: database })
      await opened.connect()
      return opened
    }),
    (opened) => Effect.promise(() => opened.end()),
  )

/** Terminates every connection of the queue's pool (application_name mailroom-jobs) to `database` and waits until they
 *  are gone, from a process of its own: this process reads nothing meanwhile. */
const dropQueueConnections = (database: string) => {
  const script = `import pg from "pg"
    const client = new pg.Client({ connectionString: process.env.DROP_DATABASE })
    await client.connect()
    await client.query("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'mailroom-jobs'")
    await client.end()`
  const dropped = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: fileURLToPath(new URL("..", import.meta.url)), env: { ...process.env, DROP_DATABASE: database }, encoding: "utf8",
  })
  if (dropped.status !== 0) throw new Error(`dropping the connections failed: ${dropped.stderr}`)
}

describe.skipIf(url === undefined)("postgres", () => {
  jobQueueSuite("pg-boss", Layer.unwrapScoped(Effect.map(scratchDatabase(url!), (database) =>
    MailroomPostgres.jobQueue({ url: database, shutdownGrace: "1 second", pollInterval: "200 millis", maintenanceInterval: "1 second", expiryMargin: "1 second" }).pipe(
      Layer.provideMerge(MailroomPostgres.layer({ url: database }))))))
  // Idle workers poll once an hour here: whatever runs sooner was woken.
  jobQueueWakeSuite("pg-boss", () => Layer.unwrapScoped(Effect.map(scratchDatabase(url!), (database) =>
    PgBossJobQueue.layer({ url: database, shutdownGrace: "1 second", pollInterval: "1 hour" }))))

  it.scoped("an enqueue from relaxed work commits without waiting for its WAL (synchronous_commit off for it alone); others wait", () =>
    Effect.gen(function* () {
      const database = yield* scratchDatabase(url!)
      const queue = Context.get(yield* Layer.build(PgBossJobQueue.layer({ url: database, shutdownGrace: "1 second" })), JobQueue)
      const note = defineJob("test.durability", Schema.Struct({ label: Schema.String }))
      // Creates the queue's table, then a trigger that notes the level each inserted job was written at.
      yield* queue.enqueue(note, { label: "first" })
      const client = yield* connectTo(database)
      yield* Effect.promise(() => client.query(`
        CREATE TABLE written_at (label text NOT NULL, level text NOT NULL);
        CREATE FUNCTION note_level() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN INSERT INTO written_at VALUES (NEW.data->'payload'->>'label', current_setting('synchronous_commit')); RETURN NEW; END $$;
        CREATE TRIGGER note_level AFTER INSERT ON pgboss.job FOR EACH ROW EXECUTE FUNCTION note_level();`))
      yield* Effect.provideService(queue.enqueue(note, { label: "relaxed" }), CommitDurability, "relaxed")
      yield* Effect.provideService(queue.enqueueAll(note, [{ payload: { label: "relaxed, many" } }]), CommitDurability, "relaxed")
      yield* queue.enqueue(note, { label: "full" })
      const rows = yield* Effect.promise(() => client.query<{ label: string; level: string }>("SELECT label, level FROM written_at ORDER BY label"))
      expect(rows.rows).toEqual([
        { label: "full", level: "on" },
        { label: "relaxed", level: "off" },
        { label: "relaxed, many", level: "off" },
      ])
    }), 30_000)

  const inStoreJob = defineJob("test.in_store", Schema.Struct({ n: Schema.Number }), { retry: { delays: ["1 second"] }, timeout: "1 second" })
  const queueBeside = (queueDatabase: string, storeDatabase: string, pollInterval: Duration.DurationInput = "200 millis") =>
    MailroomPostgres.jobQueue({ url: queueDatabase, shutdownGrace: "1 second", pollInterval, maintenanceInterval: "1 second", expiryMargin: "1 second" }).pipe(
      Layer.provideMerge(MailroomPostgres.layer({ url: storeDatabase })))

  it.live("jobs enqueued in a Store transaction are pg-boss jobs of that transaction: rolled back with it; committed, run by a worker woken at the commit", () =>
    Effect.scoped(Effect.gen(function* () {
      const database = yield* scratchDatabase(url!)
      const client = yield* connectTo(database)
      // The worker polls once an hour: a run sooner was woken.
      yield* Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const store = yield* Store
        const seen = yield* Queue.unbounded<{ readonly n: number; readonly run: JobRun }>()
        yield* queue.work(inStoreJob, (payload, run) => Queue.offer(seen, { n: payload.n, run }))
        const failed = yield* Effect.either(store.transaction(Effect.zipRight(queue.enqueue(inStoreJob, { n: 1 }), Effect.fail("the change fails"))))
        expect(failed._tag).toBe("Left")
        const jobs = () => Effect.promise(() => client.query("SELECT id, state, data FROM pgboss.job WHERE name = 'test.in_store'")).pipe(Effect.map((result) => result.rows))
        expect(yield* jobs()).toEqual([])
        const id = yield* store.transaction(Effect.gen(function* () {
          const enqueued = yield* queue.enqueue(inStoreJob, { n: 2 })
          // Not visible outside the transaction before it commits.
          expect(yield* jobs()).toEqual([])
          return enqueued
        }))
        const committedAt = Date.now()
        const run = yield* Queue.take(seen).pipe(Effect.timeout("5 seconds"))
        expect(run).toEqual({ n: 2, run: { jobId: id, attempt: 1, lastAttempt: false } })
        expect(Date.now() - committedAt).toBeLessThan(1000)
      })).pipe(Effect.provide(queueBeside(database, database, "1 hour")))
    })), 60_000)

  it.live("with the Store on another database, an enqueue in a Store transaction commits on its own", () =>
    Effect.scoped(Effect.gen(function* () {
      const [jobs, store] = [yield* scratchDatabase(url!), yield* scratchDatabase(url!)]
      const client = yield* connectTo(jobs)
      yield* Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const failed = yield* Effect.either(Effect.flatMap(Store, (s) => s.transaction(Effect.zipRight(queue.enqueue(inStoreJob, { n: 1 }), Effect.fail("the change fails")))))
        expect(failed._tag).toBe("Left")
        const rows = yield* Effect.promise(() => client.query("SELECT data FROM pgboss.job WHERE name = 'test.in_store'"))
        expect(rows.rows).toEqual([{ data: { payload: { n: 1 } } }])
      })).pipe(Effect.provide(queueBeside(jobs, store)))
    })), 60_000)

  it.live("a failed run is retried after its delay when the database dropped the queue's connections just before its settlement, not left to pg-boss's expiry", () =>
    Effect.scoped(Effect.gen(function* () {
      const database = yield* scratchDatabase(url!)
      // Its timeout keeps pg-boss's expiry (the timeout plus the margin) far past the 10 seconds the retry is given.
      const dropped = defineJob("test.dropped", Schema.Struct({ n: Schema.Number }), { retry: { delays: ["1 second"] }, timeout: "30 seconds" })
      yield* Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const id = yield* queue.enqueue(dropped, { n: 1 })
        const seen = yield* Queue.unbounded<JobRun>()
        // The first run ends as the database drops every connection of the queue's pool: the drop is made by another
        // process while this one waits (spawnSync), so that the settlement of the failed run takes a pooled connection
        // before this process has read that it was dropped, as when a run fails on the first sign of an outage.
        yield* queue.work(dropped, (_, run) => Effect.zipRight(
          Queue.offer(seen, run),
          run.attempt === 1 ? Effect.zipRight(Effect.sync(() => dropQueueConnections(database)), Effect.fail(new Error("fails"))) : Effect.void,
        ))
        expect(yield* Queue.take(seen).pipe(Effect.timeout("5 seconds"))).toMatchObject({ jobId: id, attempt: 1 })
        // The retry is written on another connection, and runs after the policy's delay.
        expect(yield* Queue.take(seen).pipe(Effect.timeout("10 seconds"))).toEqual({ jobId: id, attempt: 2, lastAttempt: true })
      })).pipe(Effect.provide(queueBeside(database, database)))
    })), 60_000)

  it.live("retries come after each delay of the policy although pg-boss keeps one delay per job; each row carries its own attempt's delay and the attempts it has left, for a run cut short", () =>
    Effect.scoped(Effect.gen(function* () {
      const database = yield* scratchDatabase(url!)
      const client = yield* connectTo(database)
      const stepped = defineJob("test.stepped", Schema.Struct({ n: Schema.Number }), { retry: { delays: ["1 second", "3 seconds"] }, timeout: "1 second" })
      const id = yield* Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const enqueued = yield* queue.enqueue(stepped, { n: 1 })
        const rows = yield* Effect.promise(() => client.query(
          "SELECT retry_limit, retry_delay, extract(epoch FROM expire_in)::int AS expire FROM pgboss.job WHERE name = 'test.stepped'"))
        // Two attempts left after the first, 1 second after it, dead after its timeout plus the margin.
        expect(rows.rows).toEqual([{ retry_limit: 2, retry_delay: 1, expire: 2 }])
        const seen = yield* Queue.unbounded<{ readonly run: JobRun; readonly at: number }>()
        yield* queue.work(stepped, (_, run) => Effect.zipRight(
          Queue.offer(seen, { run, at: Date.now() }),
          run.attempt < 3 ? Effect.fail(new Error("fails")) : Effect.void,
        ))
        const runs = yield* Effect.all([Queue.take(seen), Queue.take(seen), Queue.take(seen)]).pipe(Effect.timeout("20 seconds"))
        expect(runs.map((one) => one.run)).toEqual([
          { jobId: enqueued, attempt: 1, lastAttempt: false },
          { jobId: enqueued, attempt: 2, lastAttempt: false },
          { jobId: enqueued, attempt: 3, lastAttempt: true },
        ])
        expect(runs[1].at - runs[0].at).toBeGreaterThanOrEqual(900)
        expect(runs[2].at - runs[1].at).toBeGreaterThanOrEqual(2900)
        return enqueued
      })).pipe(Effect.provide(queueBeside(database, database)))
      const done = yield* Effect.promise(() => client.query("SELECT id, state FROM pgboss.job WHERE name = 'test.stepped'"))
      expect(done.rows).toEqual([{ id, state: "completed" }])
    })), 60_000)
})
