/** The migration list and the runner: order, one transaction, idempotence. Concurrent boots on Postgres are tested
 *  by @mailroom/postgres. */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { migrate, migrations } from "../src/index.js"
import { applyMigrations } from "../src/migrate.js"
import type { Migration } from "../src/migrations/migration.js"
import { sqliteClient } from "./support.js"

const tableNames = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ readonly name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).pipe(
  Effect.map((rows) => rows.map((row) => row.name)),
)

const recorded = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ readonly id: number; readonly name: string }>`SELECT id, name FROM mailroom_migrations ORDER BY id`)

describe("migration list", () => {
  it("numbers migrations 1, 2, 3… in the order they apply, under unique snake_case names", () => {
    expect(migrations.map((m) => m.id)).toEqual(migrations.map((_, i) => i + 1))
    expect(new Set(migrations.map((m) => m.name)).size).toBe(migrations.length)
    for (const migration of migrations) expect(migration.name).toMatch(/^[a-z][a-z0-9_]*$/)
  })

  it("gives every migration statements (for both dialects, or one: an index that only one of them needs), one statement per string", () => {
    for (const migration of migrations) {
      expect(migration.sqlite.length + migration.pg.length).toBeGreaterThan(0)
      for (const statement of [...migration.sqlite, ...migration.pg]) expect(statement).not.toMatch(/;/)
    }
  })
})

describe("migrate", () => {
  it.effect("applies every migration on an empty database and records each by id and name", () =>
    Effect.gen(function* () {
      const applied = yield* migrate
      expect(applied.map((m) => m.id)).toEqual(migrations.map((m) => m.id))
      expect(yield* recorded).toEqual(migrations.map(({ id, name }) => ({ id, name })))
      expect(yield* tableNames).toEqual(expect.arrayContaining(["accounts", "contacts", "contact_tags", "events"]))
    }).pipe(Effect.provide(sqliteClient())))

  it.effect("is a no-op when run again", () =>
    Effect.gen(function* () {
      yield* migrate
      const tables = yield* tableNames
      expect(yield* migrate).toEqual([])
      expect(yield* tableNames).toEqual(tables)
      expect((yield* recorded).length).toBe(migrations.length)
    }).pipe(Effect.provide(sqliteClient())))

  it.effect("applies only the migrations added since the last run, in order", () =>
    Effect.gen(function* () {
      const [first, ...rest] = migrations
      expect((yield* applyMigrations([first!])).map((m) => m.id)).toEqual([1])
      expect((yield* migrate).map((m) => m.id)).toEqual(rest.map((m) => m.id))
      expect((yield* recorded).map((row) => row.id)).toEqual(migrations.map((m) => m.id))
    }).pipe(Effect.provide(sqliteClient())))

  it.effect("rolls back every migration of the run when one of them fails", () =>
    Effect.gen(function* () {
      const broken: Migration = { id: 99, name: "broken", sqlite: ["CREATE TABLE broken (id TEXT"], pg: ["CREATE TABLE broken (id TEXT"] }
      const exit = yield* Effect.exit(applyMigrations([...migrations, broken]))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(yield* tableNames).toEqual([])
      expect((yield* migrate).length).toBe(migrations.length)
    }).pipe(Effect.provide(sqliteClient())))
})
