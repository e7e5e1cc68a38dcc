/** What MailroomPostgres adds to the SQL store: the pool, the schema at boot (concurrent boots included), and
 *  orderings that do not depend on the database's locale. */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { CommitDurability, compareContacts, Store } from "@mailroom/core"
import { migrate, migrations } from "@mailroom/sql"
import { findTestPostgres, makeAccount, makeContact, makeWebhookAttempt, makeWebhookDelivery, makeWebhookEndpoint } from "@mailroom/testing"
import { Context, Effect, Layer } from "effect"
import { MailroomPostgres } from "../src/index.js"
import { scratchDatabase } from "./scratch-database.js"

const url = await findTestPostgres()

const recordedMigrations = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ readonly id: number; readonly name: string }>`SELECT id, name FROM mailroom_migrations ORDER BY id`)

describe.skipIf(url === undefined)("MailroomPostgres.layer", () => {
  it.scoped("instances booting at once on an empty database all start, and each migration applies once", () =>
    Effect.gen(function* () {
      const database = yield* scratchDatabase(url!)
      const boot = Effect.provide(recordedMigrations, MailroomPostgres.layer({ url: database }))
      const booted = yield* Effect.all([boot, boot, boot], { concurrency: "unbounded" })
      const expected = migrations.map(({ id, name }) => ({ id, name }))
      expect(booted).toEqual([expected, expected, expected])
    }))

  it.scoped("clientLayer connects without migrating, for a migrate script", () =>
    Effect.gen(function* () {
      const database = yield* scratchDatabase(url!)
      const applied = yield* Effect.provide(
        Effect.all([migrate, migrate]),
        MailroomPostgres.clientLayer({ url: database }),
      )
      expect(applied.map((run) => run.map((m) => m.id))).toEqual([migrations.map((m) => m.id), []])
    }))

  it.effect("fails with StoreError when no server answers", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Effect.provide(Store, MailroomPostgres.layer({ url: "postgres://postgres@127.0.0.1:1/none" })))
      expect(error._tag).toBe("StoreError")
    }))

  it.scoped("sorts addresses and tags by code point whatever the database's collation", () =>
    Effect.gen(function* () {
      const database = yield* scratchDatabase(url!, { icuLocale: "en-US" })
      const { contacts, accounts } = Context.get(yield* Layer.build(MailroomPostgres.layer({ url: database })), Store)
      const account = makeAccount()
      yield* accounts.insert(account)
      const inserted = ["ab@example.com", "a_b@example.com", "a1b@example.com", "a-b@example.com"].map((email) =>
        makeContact({ accountId: account.id, email, tags: [email.slice(0, 3)] }))
      yield* contacts.insertMany(inserted)
      const page = yield* contacts.list(account.id, { page: 1, limit: 10, sortBy: "email", sortOrder: "asc" })
      expect(page.contacts.map((c) => c.email)).toEqual([...inserted].sort(compareContacts("email", "asc")).map((c) => c.email))
      expect((yield* contacts.tagCounts(account.id)).map((t) => t.name)).toEqual(["a-b", "a1b", "a_b", "ab@"])
    }))

  // Spans are off here, as in the facade by default, so the statements run straight on the pool (withDirectStatements);
  // the traced insert turns spans on for itself and takes @effect/sql's path. Both answer alike.
  it.scoped("a contact insert answers alike with spans off and on: DuplicateContact, StoreError, and undone with its transaction", () =>
    Effect.gen(function* () {
      const database = yield* scratchDatabase(url!)
      const { contacts, accounts, transaction } = Context.get(yield* Layer.build(MailroomPostgres.layer({ url: database })), Store)
      const account = makeAccount()
      yield* accounts.insert(account)
      const emails = Effect.map(
        contacts.list(account.id, { page: 1, limit: 10, sortBy: "email", sortOrder: "asc" }),
        (page) => page.contacts.map((c) => c.email),
      )

      for (const tracing of [false, true]) {
        const email = tracing ? "traced@example.com" : "direct@example.com"
        yield* contacts.insert(makeContact({ accountId: account.id, email })).pipe(Effect.withTracerEnabled(tracing))
        expect((yield* Effect.flip(contacts.insert(makeContact({ accountId: account.id, email })).pipe(Effect.withTracerEnabled(tracing))))._tag)
          .toBe("DuplicateContact")
        // A driver error comes back as StoreError on both paths: here the account does not exist.
        const orphan = yield* Effect.flip(contacts.insert(makeContact({ accountId: makeAccount().id, email: "orphan@example.com" }))
          .pipe(Effect.withTracerEnabled(tracing)))
        expect(orphan._tag).toBe("StoreError")
        const undone = yield* Effect.flip(transaction(Effect.zipRight(
          contacts.insert(makeContact({ accountId: account.id, email: "undone@example.com" })),
          Effect.fail("undo" as const),
        )).pipe(Effect.withTracerEnabled(tracing)))
        expect(undone).toBe("undo")
      }
      expect(yield* emails).toEqual(["direct@example.com", "traced@example.com"])
    }).pipe(Effect.withTracerEnabled(false)))

  // With spans off a top-level transaction runs on one connection that Mailroom checks out itself; a nested one is a
  // savepoint, as with spans on. Both settings answer alike, and every connection goes back to the pool.
  it.scopedLive("transactions answer alike with spans off and on: nested savepoints, an interrupted body undone, connections returned", () =>
    Effect.gen(function* () {
      const database = yield* scratchDatabase(url!)
      const context = yield* Layer.build(MailroomPostgres.layer({ url: database, maxConnections: 2 }))
      const sql = Context.get(context, SqlClient.SqlClient)
      yield* sql`CREATE TABLE t (label text NOT NULL, tracing boolean NOT NULL)`
      const labels = (tracing: boolean) =>
        Effect.map(sql<{ readonly label: string }>`SELECT label FROM t WHERE tracing = ${tracing} ORDER BY label`,
          (rows) => rows.map((row) => row.label))

      for (const tracing of [false, true]) {
        const insert = (label: string) => sql`INSERT INTO t (label, tracing) VALUES (${label}, ${tracing})`
        // An inner transaction that fails is rolled back to its savepoint; the outer one goes on and commits.
        const inner = yield* sql.withTransaction(Effect.gen(function* () {
          yield* insert("outer")
          const failed = yield* Effect.flip(sql.withTransaction(Effect.zipRight(insert("inner"), Effect.fail("inner" as const))))
          yield* insert("after")
          return failed
        })).pipe(Effect.withTracerEnabled(tracing))
        expect(inner).toBe("inner")
        // A statement of the transaction that fails fails it, and it leaves nothing.
        const refused = yield* Effect.flip(sql.withTransaction(Effect.zipRight(insert("refused"), sql`SELECT 1/0`)))
          .pipe(Effect.withTracerEnabled(tracing))
        expect(refused._tag).toBe("SqlError")
        // A body interrupted while its statement runs is rolled back (the clock is the real one here).
        const interrupted = yield* Effect.exit(sql.withTransaction(Effect.zipRight(insert("interrupted"), sql`SELECT pg_sleep(3)`))
          .pipe(Effect.timeout("200 millis"), Effect.withTracerEnabled(tracing)))
        expect(interrupted._tag).toBe("Failure")
        // Ten transactions at once on a pool of two: each gets a connection, so all commit.
        yield* Effect.all(Array.from({ length: 10 }, (_, i) => sql.withTransaction(insert(`many ${i}`))), { concurrency: "unbounded" })
          .pipe(Effect.withTracerEnabled(tracing))
        expect(yield* labels(tracing)).toEqual(["after", ...Array.from({ length: 10 }, (_, i) => `many ${i}`), "outer"])
      }
    }).pipe(Effect.withTracerEnabled(false)), 30_000)

  it.scoped("a relaxed transaction, or a relaxed statement outside one, commits without waiting for its WAL (synchronous_commit off for it alone); others wait", () =>
    Effect.gen(function* () {
      const database = yield* scratchDatabase(url!)
      const sql = Context.get(yield* Layer.build(MailroomPostgres.clientLayer({ url: database })), SqlClient.SqlClient)
      yield* sql`CREATE TABLE relaxed_t (label text NOT NULL)`
      const level = Effect.map(sql<{ readonly synchronous_commit: string }>`SHOW synchronous_commit`, (rows) => rows[0]!.synchronous_commit)
      const inTransaction = (label: string) => sql.withTransaction(Effect.zipLeft(level, sql`INSERT INTO relaxed_t (label) VALUES (${label})`))
      expect(yield* Effect.provideService(inTransaction("relaxed"), CommitDurability, "relaxed")).toBe("off")
      expect(yield* inTransaction("full")).toBe("on")
      // Outside a transaction a relaxed statement runs on the relaxed pool (synchronous_commit off for its session);
      // any other, on the main pool, commits at the server's level, whatever ran before on either pool.
      expect(yield* Effect.provideService(level, CommitDurability, "relaxed")).toBe("off")
      expect(yield* level).toBe("on")
      expect(yield* Effect.provideService(sql`INSERT INTO relaxed_t (label) VALUES ('relaxed alone')`, CommitDurability, "relaxed")).toEqual([])
      expect(yield* level).toBe("on")
      expect(yield* Effect.provideService(inTransaction("full within relaxed work"), CommitDurability, "full")).toBe("on")
      // A relaxed transaction that fails rolls back like any other.
      const failed = yield* Effect.flip(Effect.provideService(
        sql.withTransaction(Effect.zipRight(sql`INSERT INTO relaxed_t (label) VALUES ('rolled back')`, sql`SELECT 1/0`)), CommitDurability, "relaxed"))
      expect(failed._tag).toBe("SqlError")
      const labels = yield* sql<{ readonly label: string }>`SELECT label FROM relaxed_t ORDER BY label`
      expect(labels.map((row) => row.label)).toEqual(["full", "full within relaxed work", "relaxed", "relaxed alone"])
    }).pipe(Effect.withTracerEnabled(false)), 30_000)

  it.scoped("statements with parameters are prepared once per connection; each keeps its last 256 texts, the rest deallocated", () =>
    Effect.gen(function* () {
      const database = yield* scratchDatabase(url!)
      const sql = Context.get(yield* Layer.build(MailroomPostgres.clientLayer({ url: database })), SqlClient.SqlClient)
      const prepared = sql.unsafe<{ readonly name: string; readonly statement: string }>(
        "SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'mailroom_%'")
      // One transaction: every statement runs on its connection.
      yield* sql.withTransaction(Effect.gen(function* () {
        for (let i = 0; i < 300; i++) {
          const rows = yield* sql.unsafe<{ readonly n: number }>(`SELECT $1::int + ${i} AS n`, [1])
          expect(rows[0]!.n).toBe(i + 1)
        }
        const kept = yield* prepared
        expect(kept).toHaveLength(256)
        expect(kept.map((row) => row.statement).sort()).toEqual(
          Array.from({ length: 256 }, (_, i) => `SELECT $1::int + ${i + 44} AS n`).sort())
        // A text run again uses its statement: nothing is prepared anew.
        const before = kept.find((row) => row.statement === "SELECT $1::int + 299 AS n")!.name
        expect((yield* sql.unsafe<{ readonly n: number }>("SELECT $1::int + 299 AS n", [2]))[0]!.n).toBe(301)
        const after = yield* prepared
        expect(after).toHaveLength(256)
        expect(after.find((row) => row.statement === "SELECT $1::int + 299 AS n")!.name).toBe(before)
        // A text that fell out is prepared again under a new name, in place of the least recently used.
        expect((yield* sql.unsafe<{ readonly n: number }>("SELECT $1::int + 0 AS n", [5]))[0]!.n).toBe(5)
        const again = yield* prepared
        expect(again).toHaveLength(256)
        expect(again.map((row) => row.statement)).toContain("SELECT $1::int + 0 AS n")
        expect(again.map((row) => row.statement)).not.toContain("SELECT $1::int + 44 AS n")
      }))
    }).pipe(Effect.withTracerEnabled(false)), 30_000)

  // Migration 13: every delivery is updated when its attempt is recorded; on a full page the new row version went to
  // another page, with new entries in each of the table's indexes. Deliveries now leave room for that update.
  it.scoped("recording attempts updates their deliveries where they are: each row stays on its page", () =>
    Effect.gen(function* () {
      const database = yield* scratchDatabase(url!)
      const built = yield* Layer.build(MailroomPostgres.layer({ url: database }))
      const { accounts, webhooks } = Context.get(built, Store)
      const sql = Context.get(built, SqlClient.SqlClient)
      const account = makeAccount()
      yield* accounts.insert(account)
      const endpoint = makeWebhookEndpoint({ accountId: account.id })
      yield* webhooks.insertEndpoint(endpoint)
      // Rows of about 500 bytes: 200 of them fill several pages.
      const payload = JSON.stringify({ eventType: "email.delivered", details: { padding: "x".repeat(400) } })
      const deliveries = Array.from({ length: 200 }, () => makeWebhookDelivery({ accountId: account.id, endpointId: endpoint.id, payload }))
      for (const delivery of deliveries) yield* webhooks.insertDelivery(delivery)
      const pages = sql<{ readonly id: string; readonly page: string }>`SELECT id, (ctid::text::point)[0]::text AS page
        FROM webhook_deliveries WHERE endpoint_id = ${endpoint.id} ORDER BY id`
      const before = yield* pages
      expect(new Set(before.map((row) => row.page)).size).toBeGreaterThan(2)
      const at = new Date(Date.UTC(2026, 0, 2))
      yield* webhooks.recordAttempts(deliveries.map((delivery) => ({
        attempt: makeWebhookAttempt({ accountId: account.id, endpointId: endpoint.id, deliveryId: delivery.id, startedAt: at }),
        outcome: { status: "succeeded" as const, lastStatusCode: 200, lastError: null, at },
      })))
      const after = yield* pages
      expect(after).toEqual(before)
      const statuses = yield* sql<{ readonly status: string }>`SELECT DISTINCT status FROM webhook_deliveries WHERE endpoint_id = ${endpoint.id}`
      expect(statuses.map((row) => row.status)).toEqual(["succeeded"])
      // The attempts go with their endpoint, as before.
      expect(yield* webhooks.deleteEndpoint(account.id, endpoint.id)).toBe(true)
      const left = yield* sql<{ readonly n: string }>`SELECT count(*) AS n FROM webhook_attempts WHERE endpoint_id = ${endpoint.id}`
      expect(Number(left[0]!.n)).toBe(0)
    }).pipe(Effect.withTracerEnabled(false)), 30_000)
})
