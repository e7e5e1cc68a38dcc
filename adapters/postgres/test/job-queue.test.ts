/** The pg-boss JobQueue against the shared contract, in a scratch database. Several processes sharing the work, and a
 *  worker killed mid-run, are tested with real processes in job-queue-processes.test.ts. */
import { CommitDurability, defineJob, JobQueue, type JobRun, Store } from "@mailroom/core"
import { findTestPostgres, jobQueueSuite, jobQueueWakeSuite } from "@mailroom/testing"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Option, Queue, Schema } from "effect"
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

  const claimedJob = defineJob("test.claimed", Schema.Struct({ n: Schema.Number }), { retry: { delays: ["1 second"] }, timeout: "1 second" })
  const queueBeside = (queueDatabase: string, storeDatabase: string) =>
    MailroomPostgres.jobQueue({ url: queueDatabase, shutdownGrace: "1 second", pollInterval: "200 millis", maintenanceInterval: "1 second", expiryMargin: "1 second" }).pipe(
      Layer.provideMerge(MailroomPostgres.layer({ url: storeDatabase })))

  it.live("jobs claimed at creation are active rows of the Store's transaction; left by a process that stopped, pg-boss's expiry gives them to another worker as attempt 2", () =>
    Effect.scoped(Effect.gen(function* () {
      const database = yield* scratchDatabase(url!)
      const client = yield* connectTo(database)
      const id = yield* Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const store = yield* Store
        yield* queue.work(claimedJob, () => Effect.never)
        const failed = yield* Effect.either(store.transaction(Effect.zipRight(queue.enqueueClaimed(claimedJob, [{ n: 1 }]), Effect.fail("the change fails"))))
        expect(failed._tag).toBe("Left")
        const claimed = Option.getOrThrow(yield* store.transaction(queue.enqueueClaimed(claimedJob, [{ n: 2 }])))
        // The process stops before it starts them: the row stays as the commit left it.
        return claimed.ids[0]!
      }).pipe(Effect.provide(queueBeside(database, database))))
      const rows = yield* Effect.promise(() => client.query(
        "SELECT id, state, retry_count, retry_limit, retry_delay, extract(epoch FROM expire_in)::int AS expire, data FROM pgboss.job WHERE name = 'test.claimed'"))
      expect(rows.rows).toEqual([{ id, state: "active", retry_count: 0, retry_limit: 1, retry_delay: 1, expire: 3, data: { payload: { n: 2 } } }])
      const run = yield* Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        const seen = yield* Queue.unbounded<{ readonly n: number; readonly run: JobRun }>()
        yield* queue.work(claimedJob, (payload, run) => Queue.offer(seen, { n: payload.n, run }))
        return yield* Queue.take(seen).pipe(Effect.timeout("40 seconds"))
      }).pipe(Effect.provide(queueBeside(database, database))))
      expect(run).toEqual({ n: 2, run: { jobId: id, attempt: 2, lastAttempt: true } })
    })), 90_000)

  it.live("with the Store on another database, enqueueClaimed answers None and writes nothing", () =>
    Effect.scoped(Effect.gen(function* () {
      const [jobs, store] = [yield* scratchDatabase(url!), yield* scratchDatabase(url!)]
      yield* Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        yield* queue.work(claimedJob, () => Effect.void)
        expect(Option.isNone(yield* Effect.flatMap(Store, (s) => s.transaction(queue.enqueueClaimed(claimedJob, [{ n: 1 }]))))).toBe(true)
      }).pipe(Effect.provide(queueBeside(jobs, store))))
      yield* Effect.scoped(Effect.gen(function* () {
        const queue = yield* JobQueue
        yield* queue.work(claimedJob, () => Effect.void)
        // Beside its own database's Store, the same queue claims at creation.
        expect(Option.isSome(yield* Effect.flatMap(Store, (s) => s.transaction(queue.enqueueClaimed(claimedJob, [{ n: 1 }]))))).toBe(true)
      }).pipe(Effect.provide(queueBeside(jobs, jobs))))
    })), 60_000)
})
