/** Migration 4 on a database that already holds rows: every folded column is filled with core's foldText of its text,
 *  across several batches. SQLite in memory, and Postgres on a scratch database of its own when the test server
 *  answers. */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { backfillScenario } from "./backfill-scenario.js"
import { postgresClient, postgresUrl, sqliteClient } from "./support.js"

/** A fresh, empty Postgres database on the test server, dropped when the layer is released. */
const scratchPostgres = (serverUrl: string) =>
  Layer.unwrapScoped(Effect.gen(function* () {
    const name = `mailroom_backfill_${Date.now()}_${Math.floor(Math.random() * 1e6)}`
    const admin = (statement: string) =>
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
        Effect.provide(postgresClient(serverUrl)), Effect.orDie)
    yield* Effect.acquireRelease(admin(`CREATE DATABASE ${name}`), () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    const url = new URL(serverUrl)
    url.pathname = `/${name}`
    return postgresClient(url.toString())
  }))

const check = Effect.map(backfillScenario, ({ mismatches, rows }) => {
  expect(mismatches).toEqual([])
  expect(rows).toBeGreaterThan(1_200)
})

describe("migration 4 (folded text) on existing rows", () => {
  it.effect("SQLite: fills every folded column of contacts, custom fields and lists with core's folding", () =>
    check.pipe(Effect.provide(sqliteClient())), 60_000)

  it.effect.skipIf(postgresUrl === undefined)("Postgres: fills every folded column with core's folding", () =>
    Effect.scoped(check.pipe(Effect.provide(scratchPostgres(postgresUrl!)))), 60_000)
})
