/** What MailroomSqlite adds to the SQL store: the file, its durability settings, and the schema at every open. */
import { existsSync } from "node:fs"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { CommitDurability, Store } from "@mailroom/core"
import { migrate, migrations } from "@mailroom/sql"
import { makeAccount, makeContact } from "@mailroom/testing"
import { Deferred, Effect, Fiber, Option } from "effect"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

const pragma = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<Record<string, unknown>>(`PRAGMA ${name}`)).pipe(
    Effect.map((rows) => Object.values(rows[0] ?? {})[0]),
  )

const recordedMigrations = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ readonly id: number; readonly name: string }>`SELECT id, name FROM mailroom_migrations ORDER BY id`)

describe("MailroomSqlite.layer", () => {
  it.effect("opens the file in WAL mode with synchronous FULL, foreign keys on and a busy timeout", () =>
    Effect.gen(function* () {
      expect(yield* pragma("journal_mode")).toBe("wal")
      expect(yield* pragma("synchronous")).toBe(2)
      expect(yield* pragma("foreign_keys")).toBe(1)
      expect(yield* pragma("busy_timeout")).toBe(5_000)
    }).pipe(Effect.provide(MailroomSqlite.layer({ filename: tempDbFile() }))))

  it.effect("uses synchronous NORMAL when asked", () =>
    pragma("synchronous").pipe(
      Effect.tap((level) => expect(level).toBe(1)),
      Effect.provide(MailroomSqlite.layer({ filename: tempDbFile(), synchronous: "NORMAL" })),
    ))

  it.effect("a relaxed transaction runs with synchronous NORMAL (its commit not synced), and the level is FULL again after it", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE relaxed_t (label TEXT NOT NULL)`
      const inTransaction = (label: string) => sql.withTransaction(Effect.zipLeft(pragma("synchronous"), sql`INSERT INTO relaxed_t (label) VALUES (${label})`))
      expect(yield* Effect.provideService(inTransaction("relaxed"), CommitDurability, "relaxed")).toBe(1)
      expect(yield* pragma("synchronous")).toBe(2)
      expect(yield* inTransaction("full")).toBe(2)
      // Rolled back, it leaves nothing, and the level is set back too.
      const failed = yield* Effect.flip(Effect.provideService(
        sql.withTransaction(Effect.zipRight(sql`INSERT INTO relaxed_t (label) VALUES ('rolled back')`, Effect.fail("no" as const))), CommitDurability, "relaxed"))
      expect(failed).toBe("no")
      expect(yield* pragma("synchronous")).toBe(2)
      // A savepoint joins its transaction; with spans on, a relaxed transaction is relaxed too.
      expect(yield* Effect.provideService(sql.withTransaction(inTransaction("nested")), CommitDurability, "relaxed")).toBe(1)
      expect(yield* Effect.provideService(inTransaction("traced"), CommitDurability, "relaxed").pipe(Effect.withTracerEnabled(true))).toBe(1)
      expect(yield* pragma("synchronous")).toBe(2)
      const labels = yield* sql<{ readonly label: string }>`SELECT label FROM relaxed_t ORDER BY label`
      expect(labels.map((row) => row.label)).toEqual(["full", "nested", "relaxed", "traced"])
    }).pipe(Effect.withTracerEnabled(false), Effect.provide(MailroomSqlite.layer({ filename: tempDbFile() }))))

  it.effect("a relaxed transaction leaves synchronous NORMAL as it was", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const inside = yield* Effect.provideService(sql.withTransaction(pragma("synchronous")), CommitDurability, "relaxed")
      expect(inside).toBe(1)
      expect(yield* pragma("synchronous")).toBe(1)
    }).pipe(Effect.withTracerEnabled(false), Effect.provide(MailroomSqlite.layer({ filename: tempDbFile(), synchronous: "NORMAL" }))))

  it.effect("creates the parent directory of the file", () =>
    Effect.gen(function* () {
      const filename = tempDbFile()
      expect(existsSync(filename)).toBe(false)
      yield* Effect.provide(Store, MailroomSqlite.layer({ filename }))
      expect(existsSync(filename)).toBe(true)
    }))

  it.effect("migrates at the first open, and a second open of the same file finds nothing left to do", () =>
    Effect.gen(function* () {
      const filename = tempDbFile()
      const first = yield* Effect.provide(recordedMigrations, MailroomSqlite.layer({ filename }))
      expect(first).toEqual(migrations.map(({ id, name }) => ({ id, name })))
      const second = yield* Effect.provide(
        Effect.all({ pending: migrate, recorded: recordedMigrations }),
        MailroomSqlite.layer({ filename }),
      )
      expect(second.pending).toEqual([])
      expect(second.recorded).toEqual(first)
    }))

  it.effect("clientLayer opens the configured file without migrating it, for a migrate script", () =>
    Effect.gen(function* () {
      expect(yield* pragma("foreign_keys")).toBe(1)
      expect(yield* pragma("synchronous")).toBe(2)
      expect((yield* migrate).map((m) => m.id)).toEqual(migrations.map((m) => m.id))
      expect(yield* migrate).toEqual([])
    }).pipe(Effect.provide(MailroomSqlite.clientLayer({ filename: tempDbFile() }))))

  it.effect("keeps acknowledged writes when the file is closed and opened again", () =>
    Effect.gen(function* () {
      const filename = tempDbFile()
      const account = makeAccount()
      const contact = makeContact({ accountId: account.id, tags: ["vip"], customFields: { city: "Leeds" } })
      yield* Effect.provide(
        Effect.flatMap(Store, (store) =>
          Effect.zipRight(store.accounts.insert(account), store.contacts.insert(contact))),
        MailroomSqlite.layer({ filename }),
      )
      const found = yield* Effect.provide(
        Effect.flatMap(Store, (store) => store.contacts.findById(account.id, contact.id)),
        MailroomSqlite.layer({ filename }),
      )
      const stored = Option.getOrThrow(found)
      expect([stored.email, stored.tags.map((t) => t.tag), stored.customFields.map((f) => [f.key, f.value])])
        .toEqual([contact.email, ["vip"], [["city", "Leeds"]]])
    }))

  it.effect("deleting a contact removes its tags and custom fields through the foreign keys", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const sql = yield* SqlClient.SqlClient
      const account = makeAccount()
      const contact = makeContact({ accountId: account.id, tags: ["a", "b"], customFields: { k: "v" } })
      yield* store.accounts.insert(account)
      yield* store.contacts.insert(contact)
      yield* store.contacts.delete(account.id, contact.id)
      const left = yield* sql`SELECT
        (SELECT COUNT(*) FROM contact_tags WHERE contact_id = ${contact.id}) AS tags,
        (SELECT COUNT(*) FROM contact_custom_fields WHERE contact_id = ${contact.id}) AS fields`
      expect(left).toEqual([{ tags: 0, fields: 0 }])
    }).pipe(Effect.provide(MailroomSqlite.layer({ filename: tempDbFile() }))))

  // With spans off a statement runs straight on the connection (client.ts); it must still never run inside another
  // fiber's open transaction, where that transaction's ROLLBACK would take it back.
  it.effect("with spans off, a statement outside a transaction waits for another fiber's open transaction to end", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE notes (id TEXT PRIMARY KEY)`
      const inside = yield* Deferred.make<void>()
      const finish = yield* Deferred.make<void>()
      const rolledBack = yield* Effect.fork(Effect.flip(sql.withTransaction(Effect.gen(function* () {
        yield* sql`INSERT INTO notes (id) VALUES ('in-transaction')`
        yield* Deferred.succeed(inside, undefined)
        yield* Deferred.await(finish)
        return yield* Effect.fail("undo" as const)
      }))))
      yield* Deferred.await(inside)
      const outside = yield* Effect.fork(sql`INSERT INTO notes (id) VALUES ('outside')`)
      // The statement has had every chance to run; it is still waiting for the connection.
      yield* Effect.yieldNow()
      expect(outside.unsafePoll()).toBeNull()
      yield* Deferred.succeed(finish, undefined)
      expect(yield* Fiber.join(rolledBack)).toBe("undo")
      yield* Fiber.join(outside)
      expect(yield* sql`SELECT id FROM notes ORDER BY id`).toEqual([{ id: "outside" }])
    }).pipe(
      Effect.provide(MailroomSqlite.clientLayer({ filename: tempDbFile() })),
      Effect.withTracerEnabled(false),
    ))
})
