/** Migration 4 on a database that already holds rows: every folded column is filled with core's foldText of its text,
 *  across several batches. SQLite in memory, and Postgres on a scratch database of its own when the test server
 *  answers. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { backfillScenario } from "./backfill-scenario.js"
import { postgresUrl, scratchPostgres, sqliteClient } from "./support.js"

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
