/** The rows migration 4 finds in a database migrated to 3, and the check that it folded each of them. Shared with the
 *  Postgres adapter's test. */
import { SqlClient } from "@effect/sql"
import { foldNullable } from "@mailroom/core"
import { Effect } from "effect"
import { applyMigrations, migrations } from "../src/index.js"

const names = ["ÉMILE", "Straße", "ΟΔΥΣΣΕΥΣ", "ПЕТРОВ", "İstanbul", "plain", null] as const

/** Answers the rows whose folded column differs from foldText of its text (none when the backfill is right), and how
 *  many rows were checked. */
export const backfillScenario = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* applyMigrations(migrations.filter((migration) => migration.id <= 3))
  const accountId = `acc_backfill_${Date.now()}`
  yield* sql`INSERT INTO accounts (id, name, plan, owner_email, created_at) VALUES (${accountId}, 'a', 'pro', NULL, 0)`
  const contacts = Array.from({ length: 1_201 }, (_, i) => ({
    id: `${accountId}_ct_${String(i).padStart(5, "0")}`,
    account_id: accountId,
    email: `c${i}@example.com`,
    first_name: names[i % names.length]!,
    last_name: names[(i + 3) % names.length]!,
    phone: i % 2 === 0 ? "+14155550100" : null,
    source: "API",
    status: "ACTIVE",
    subscribed_at: 0,
    created_at: 0,
    updated_at: 0,
  }))
  for (let start = 0; start < contacts.length; start += 400) {
    yield* sql`INSERT INTO contacts ${sql.insert(contacts.slice(start, start + 400))}`
  }
  yield* sql`INSERT INTO contact_custom_fields ${sql.insert(contacts.slice(0, 20).map((contact, i) => ({
    id: `${contact.id}_cf`, account_id: accountId, contact_id: contact.id, key: "city", value: names[i % 6]!,
  })))}`
  yield* sql`INSERT INTO contact_lists ${sql.insert([0, 1, 2].map((i) => ({
    id: `${accountId}_lst_${i}`, account_id: accountId, name: names[i]!, description: names[i + 4] ?? null, type: "STATIC",
    segment_rules: null, suppression_group_id: null, tracking_enabled: sql.onDialectOrElse({ pg: () => true, orElse: () => 1 }),
    is_archived: sql.onDialectOrElse({ pg: () => false, orElse: () => 0 }), created_at: 0, updated_at: 0,
    last_synced_at: null,
  })))}`
  yield* applyMigrations(migrations)

  const contactRows = yield* sql<Record<string, string | null>>`SELECT first_name, first_name_folded, last_name,
    last_name_folded, phone, phone_folded FROM contacts WHERE account_id = ${accountId}`
  const fieldRows = yield* sql<Record<string, string | null>>`SELECT value, value_folded FROM contact_custom_fields
    WHERE account_id = ${accountId}`
  const listRows = yield* sql<Record<string, string | null>>`SELECT name, name_folded, description, description_folded
    FROM contact_lists WHERE account_id = ${accountId}`
  const pairs: ReadonlyArray<readonly [ReadonlyArray<Record<string, string | null>>, ReadonlyArray<string>]> = [
    [contactRows, ["first_name", "last_name", "phone"]],
    [fieldRows, ["value"]],
    [listRows, ["name", "description"]],
  ]
  const mismatches = pairs.flatMap(([rows, columns]) =>
    rows.flatMap((row) => columns.flatMap((column) =>
      row[`${column}_folded`] === foldNullable(row[column] ?? null) ? [] : [{ column, row }])))
  return { mismatches, rows: contactRows.length + fieldRows.length + listRows.length }
})
