/** Driver errors are told apart by the constraint they violate, with the errors each driver really raises. */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { makeAccount } from "@mailroom/testing"
import { Effect } from "effect"
import { isUniqueViolation, type UniqueConstraint } from "../src/internal/errors.js"
import { backends } from "./support.js"

const contactsEmail: UniqueConstraint = { name: "contacts_account_email_key", table: "contacts", columns: ["account_id", "email"] }
const apiKeysHash: UniqueConstraint = { name: "api_keys_hash_key", table: "api_keys", columns: ["hash"] }

const contactRow = (accountId: string, id: string, email: string) => ({
  id, account_id: accountId, email, source: "API", status: "ACTIVE", subscribed_at: 0, created_at: 0, updated_at: 0,
})

for (const backend of backends) {
  layer(backend.layer, { timeout: "30 seconds" })(`driver errors (${backend.name})`, (it) => {
    it.effect("a second address in the account violates the contacts constraint and no other", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const account = makeAccount()
        yield* sql`INSERT INTO accounts ${sql.insert({ id: account.id, plan: "free", created_at: 0 })}`
        yield* sql`INSERT INTO contacts ${sql.insert(contactRow(account.id, `${account.id}_1`, "ada@example.com"))}`
        const error = yield* Effect.flip(
          sql`INSERT INTO contacts ${sql.insert(contactRow(account.id, `${account.id}_2`, "ada@example.com"))}`)
        expect(isUniqueViolation(error, contactsEmail)).toBe(true)
        expect(isUniqueViolation(error, apiKeysHash)).toBe(false)
      }))

    it.effect("a repeated primary key or a missing required value is no address conflict", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const account = makeAccount()
        yield* sql`INSERT INTO accounts ${sql.insert({ id: account.id, plan: "free", created_at: 0 })}`
        yield* sql`INSERT INTO contacts ${sql.insert(contactRow(account.id, `${account.id}_1`, "ada@example.com"))}`
        const samePrimaryKey = yield* Effect.flip(
          sql`INSERT INTO contacts ${sql.insert(contactRow(account.id, `${account.id}_1`, "bob@example.com"))}`)
        const missingColumn = yield* Effect.flip(
          sql`INSERT INTO contacts ${sql.insert({ ...contactRow(account.id, `${account.id}_3`, "cy@example.com"), status: null })}`)
        expect(isUniqueViolation(samePrimaryKey, contactsEmail)).toBe(false)
        expect(isUniqueViolation(missingColumn, contactsEmail)).toBe(false)
      }))
  })
}
