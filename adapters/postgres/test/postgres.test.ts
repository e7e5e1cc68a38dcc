/** What MailroomPostgres adds to the SQL store: the pool, the schema at boot (concurrent boots included), and
 *  orderings that do not depend on the database's locale. */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { compareContacts, Store } from "@mailroom/core"
import { DirectStatements, migrate, migrations, migrationsLayer, SqlStore } from "@mailroom/sql"
import { findTestPostgres, makeAccount, makeContact } from "@mailroom/testing"
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

  // Spans are off here, as in the facade by default; the traced insert turns them on for itself.
  it.scoped("sends a contact insert straight to the pool outside a transaction, and through @effect/sql inside one or with spans on", () =>
    Effect.gen(function* () {
      const database = yield* scratchDatabase(url!)
      const sent: Array<string> = []
      const spy = Layer.effect(DirectStatements, Effect.map(DirectStatements, (direct) => ({
        run: (sql: string, params: ReadonlyArray<unknown>) => Effect.zipRight(Effect.sync(() => sent.push(sql)), direct.run(sql, params)),
      })))
      const layer = Layer.mergeAll(SqlStore.layer, migrationsLayer).pipe(
        Layer.provide(spy),
        Layer.provideMerge(MailroomPostgres.clientLayer({ url: database })),
      )
      const { contacts, accounts, transaction } = Context.get(yield* Layer.build(layer), Store)
      const account = makeAccount()
      yield* accounts.insert(account)
      const emails = Effect.map(
        contacts.list(account.id, { page: 1, limit: 10, sortBy: "email", sortOrder: "asc" }),
        (page) => page.contacts.map((c) => c.email),
      )

      yield* contacts.insert(makeContact({ accountId: account.id, email: "direct@example.com" }))
      expect(sent).toHaveLength(1)
      expect(sent[0]).toMatch(/^INSERT INTO contacts .* ON CONFLICT \(account_id, email\) DO NOTHING RETURNING id$/s)
      expect((yield* Effect.flip(contacts.insert(makeContact({ accountId: account.id, email: "direct@example.com" }))))._tag)
        .toBe("DuplicateContact")
      // A driver error comes back as StoreError, as on the usual path: here the account does not exist.
      const orphan = yield* Effect.flip(contacts.insert(makeContact({ accountId: makeAccount().id, email: "orphan@example.com" })))
      expect(orphan._tag).toBe("StoreError")
      expect(sent).toHaveLength(3)

      const undone = yield* Effect.flip(transaction(Effect.zipRight(
        contacts.insert(makeContact({ accountId: account.id, email: "undone@example.com" })),
        Effect.fail("undo" as const),
      )))
      expect(undone).toBe("undo")
      yield* contacts.insert(makeContact({ accountId: account.id, email: "traced@example.com" })).pipe(Effect.withTracerEnabled(true))
      expect(sent).toHaveLength(3)
      expect(yield* emails).toEqual(["direct@example.com", "traced@example.com"])
    }).pipe(Effect.withTracerEnabled(false)))
})
