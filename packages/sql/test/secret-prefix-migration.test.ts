/** Migration 15 on a database that already holds webhook endpoints: a prefix stored with an ellipsis becomes the
 *  literal start of its secret, and one already literal is left as it is. SQLite in memory, and Postgres on a scratch
 *  database of its own when the test server answers. */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { applyMigrations, migrations } from "../src/index.js"
import { postgresUrl, scratchPostgres, sqliteClient } from "./support.js"

const scenario = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* applyMigrations(migrations.filter((migration) => migration.id < 15))
  const accountId = `acc_prefix_${Date.now()}`
  yield* sql`INSERT INTO accounts (id, name, plan, owner_email, created_at) VALUES (${accountId}, 'a', 'pro', NULL, 0)`
  const endpoint = (id: string, secretPrefix: string) => ({
    id, account_id: accountId, url: "https://hooks.example.com/in", events: "[]", description: null,
    active: sql.onDialectOrElse({ pg: () => true, orElse: () => 1 }), secret_prefix: secretPrefix,
    sealed_secret: "sealed", sealed_previous_secret: null, previous_secret_expires_at: null, failure_settings: "{}",
    consecutive_failures: 0, streak_notified: sql.onDialectOrElse({ pg: () => false, orElse: () => 0 }),
    disabled_reason: null, disabled_at: null, created_at: 0, updated_at: 0,
  })
  yield* sql`INSERT INTO webhook_endpoints ${sql.insert([
    endpoint(`${accountId}_old`, "whsec_Ab3x…"),
    endpoint(`${accountId}_new`, "whsec_Ab3xQ9"),
  ])}`
  yield* applyMigrations(migrations)
  const rows = yield* sql<{ readonly id: string; readonly secret_prefix: string }>`SELECT id, secret_prefix
    FROM webhook_endpoints WHERE account_id = ${accountId} ORDER BY id`
  expect(rows.map((row) => [row.id, row.secret_prefix])).toEqual([
    [`${accountId}_new`, "whsec_Ab3xQ9"],
    [`${accountId}_old`, "whsec_Ab3x"],
  ])
})

describe("migration 15 (literal secret prefix) on existing endpoints", () => {
  it.effect("SQLite: drops the ellipsis after a stored prefix and keeps a literal one", () =>
    scenario.pipe(Effect.provide(sqliteClient())), 60_000)

  it.effect.skipIf(postgresUrl === undefined)("Postgres: drops the ellipsis after a stored prefix and keeps a literal one", () =>
    Effect.scoped(scenario.pipe(Effect.provide(scratchPostgres(postgresUrl!)))), 60_000)
})
