/** Driver errors are told apart by the constraint they violate, with the errors each driver really raises. */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { makeAccount } from "@mailroom/testing"
import { Cause, Effect, Logger } from "effect"
import { inspect } from "node:util"
import { isUniqueViolation, orStoreError, type UniqueConstraint } from "../src/internal/errors.js"
import { backends } from "./support.js"

const contactsEmail: UniqueConstraint = { name: "contacts_account_email_key", table: "contacts", columns: ["account_id", "email"] }
const apiKeysHash: UniqueConstraint = { name: "api_keys_hash_key", table: "api_keys", columns: ["hash"] }

const contactRow = (accountId: string, id: string, email: string) => ({
  id, account_id: accountId, email, source: "API", status: "ACTIVE", subscribed_at: 0, created_at: 0, updated_at: 0,
})

/** Every way a StoreError reaches a log: Effect's loggers (as the HTTP layer logs internal errors), Node's inspect
 *  (console.error), JSON, and the stack. */
const renderings = (error: unknown) =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    const capture = (logger: Logger.Logger<unknown, unknown>) =>
      Logger.replace(Logger.defaultLogger, Logger.map(logger, (line) => { lines.push(typeof line === "string" ? line : JSON.stringify(line)) }))
    for (const logger of [Logger.stringLogger, Logger.logfmtLogger, Logger.jsonLogger, Logger.structuredLogger]) {
      yield* Effect.logError("request failed with an internal error", Cause.fail(error)).pipe(Effect.provide(capture(logger)))
    }
    const cause = (error as { cause?: unknown }).cause
    return [
      ...lines, inspect(error, { depth: 10 }), JSON.stringify(error), Cause.pretty(Cause.fail(error)), String((cause as Error).stack),
    ]
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

    it.effect("a StoreError from a duplicate insert is logged without the row's values", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const account = makeAccount()
        const address = "private.person@example.com"
        yield* sql`INSERT INTO accounts ${sql.insert({ id: account.id, plan: "free", created_at: 0 })}`
        yield* sql`INSERT INTO contacts ${sql.insert(contactRow(account.id, `${account.id}_1`, address))}`
        const error = yield* Effect.flip(
          sql`INSERT INTO contacts ${sql.insert(contactRow(account.id, `${account.id}_2`, address))}`.pipe(orStoreError("contacts.test")))
        expect(error._tag).toBe("StoreError")
        const logged = yield* renderings(error)
        for (const text of logged) {
          expect(text).not.toContain("private.person")
          expect(text).not.toContain(`${account.id}_1`)
        }
        // What the operator needs is still there: the operation, the driver's code and the constraint.
        expect(logged.join("\n")).toContain("contacts.test")
        const cause = error.cause as { code?: string; message: string }
        expect(cause.code).toBe(backend.name === "postgres" ? "23505" : "SQLITE_CONSTRAINT_UNIQUE")
        expect(cause.message).toContain(backend.name === "postgres" ? "contacts_account_email_key" : "contacts.account_id, contacts.email")
      }))

    it.effect.skipIf(backend.name !== "postgres")("a value Postgres quotes in its message is masked", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        // invalid input syntax for type integer: "private.person@example.com"
        const error = yield* Effect.flip(sql`SELECT CAST(${"private.person@example.com"} AS INTEGER) AS n`.pipe(orStoreError("test.cast")))
        expect((error.cause as { code?: string }).code).toBe("22P02")
        for (const text of yield* renderings(error)) expect(text).not.toContain("private.person")
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
