/** Bulk suppressions and the send-time eligibility query work on sets: 10,000 addresses take a bounded number of
 *  statements, never one per address. */
import { expect, layer } from "@effect/vitest"
import { type EmailAddress, Store, type SuppressionId } from "@mailroom/core"
import { makeAccount, makeContact, uniqueText } from "@mailroom/testing"
import { Effect } from "effect"
import { backends, recordStatements, touching } from "./support.js"

const freshAccount = Effect.gen(function* () {
  const store = yield* Store
  const account = makeAccount()
  yield* store.accounts.insert(account)
  return account.id
})

const addresses = (count: number) =>
  Array.from({ length: count }, () => `${uniqueText("s")}@example.com` as EmailAddress)

const at = new Date("2024-05-01T12:00:00.000Z")

for (const backend of backends) {
  layer(backend.layer, { timeout: "60 seconds" })(`consent on sets (${backend.name})`, (it) => {
    it.effect("bulk add of 10,000 addresses is one statement, bulk remove another", () =>
      Effect.gen(function* () {
        const { suppressions } = yield* Store
        const accountId = yield* freshAccount
        const emails = addresses(10_000)
        const rows = emails.map((email) => ({
          id: uniqueText("sup") as SuppressionId, accountId, email, reason: "Manual" as const, details: null,
          createdAt: at, updatedAt: at,
        }))
        const added = yield* recordStatements(suppressions.putMany(rows))
        expect(added.value).toEqual({ added: 10_000, updated: 0 })
        expect(added.statements).toHaveLength(1)
        expect(touching(added.statements, "INSERT INTO", "suppressions")).toHaveLength(1)

        const again = yield* recordStatements(suppressions.putMany(rows.map((row) => ({ ...row, id: uniqueText("sup") as SuppressionId, reason: "Bounce" as const }))))
        expect(again.value).toEqual({ added: 0, updated: 10_000 })
        expect(again.statements).toHaveLength(1)

        const removed = yield* recordStatements(suppressions.deleteMany(accountId, emails))
        expect(removed.value).toBe(10_000)
        expect(removed.statements).toHaveLength(1)
        expect(touching(removed.statements, "DELETE FROM", "suppressions")).toHaveLength(1)
      }))

    it.effect("eligibility of 10,000 candidates is one query", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* freshAccount
        const emails = addresses(10_000)
        yield* store.contacts.insertMany(emails.slice(0, 100).map((email, i) =>
          makeContact({ accountId, email, status: i % 2 === 0 ? "UNSUBSCRIBED" : "ACTIVE" })))
        const { value, statements } = yield* recordStatements(
          store.suppressions.eligibility(accountId, { kind: "marketing", topicId: "grp_none" }, emails))
        expect(statements).toHaveLength(1)
        expect(value.dropped).toHaveLength(50)
        expect(value.eligible).toHaveLength(9_950)
      }))
  })
}
