/** The pg-boss JobQueue against the shared contract, in a scratch database. Several processes sharing the work, and a
 *  worker killed mid-run, are tested with real processes in job-queue-processes.test.ts. */
import { CommitDurability, defineJob, JobQueue } from "@mailroom/core"
import { findTestPostgres, jobQueueSuite, jobQueueWakeSuite } from "@mailroom/testing"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Schema } from "effect"
import pg from "pg"
import { PgBossJobQueue } from "../src/index.js"
import { scratchDatabase } from "./scratch-database.js"

const url = await findTestPostgres()

describe.skipIf(url === undefined)("postgres", () => {
  jobQueueSuite("pg-boss", Layer.unwrapScoped(Effect.map(scratchDatabase(url!), (database) =>
    PgBossJobQueue.layer({ url: database, shutdownGrace: "1 second", pollInterval: "200 millis", maintenanceInterval: "1 second", expiryMargin: "1 second" }))))
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
      const client = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const opened = new pg.Client({ connectionString: database })
          await opened.connect()
          return opened
        }),
        (opened) => Effect.promise(() => opened.end()),
      )
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
})
