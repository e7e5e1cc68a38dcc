/** The messages repository works on sets: a batch of 1,000 messages is stored in a few multi-row statements, and a
 *  quota reservation is a bounded number of statements whatever the count. */
import { expect, layer } from "@effect/vitest"
import { acceptSend, type MessageId, SendInput, Store, toStoredMessage } from "@mailroom/core"
import { makeAccount, uniqueText } from "@mailroom/testing"
import { Effect, Either, Option, Schema } from "effect"
import { backends, recordStatements, touching } from "./support.js"

const freshAccount = Effect.gen(function* () {
  const store = yield* Store
  const account = makeAccount()
  yield* store.accounts.insert(account)
  return account.id
})

for (const backend of backends) {
  layer(backend.layer, { timeout: "60 seconds" })(`messages on sets (${backend.name})`, (it) => {
    it.effect("insertMany of 1,000 messages with 3 recipients each is one INSERT per table", () =>
      Effect.gen(function* () {
        const { messages } = yield* Store
        const accountId = yield* freshAccount
        const batch = Array.from({ length: 1000 }, (_, i) => toStoredMessage({
          id: uniqueText("msg") as MessageId,
          accountId,
          batchId: "bat_1",
          message: Either.getOrThrow(acceptSend(Schema.decodeUnknownSync(SendInput)({
            from: { email: "news@example.com" },
            to: [{ email: `r${i}@example.org` }],
            cc: [{ email: `c${i}@example.org` }],
            bcc: [{ email: `b${i}@example.org` }],
            content: { subject: "Hi {{name}}", html: "<p>Hello {{name}}</p>" },
            variables: { name: `n${i}` },
          }))),
          scheduledFor: null,
          createdAt: new Date(0),
        }))
        const { statements } = yield* recordStatements(messages.insertMany(batch))
        // 1,000 rows of 11 columns and 3,000 rows of 10 columns each fit under the 32,000-parameter limit.
        expect(touching(statements, "INSERT INTO", "messages")).toHaveLength(1)
        expect(touching(statements, "INSERT INTO", "message_recipients")).toHaveLength(1)
        expect(statements.filter((s) => /^\s*INSERT/i.test(s))).toHaveLength(2)
        const last = Option.getOrThrow(yield* messages.findById(accountId, batch[999]!.id))
        expect(last.recipients.map((r) => r.email)).toEqual(["r999@example.org", "c999@example.org", "b999@example.org"])
      }))

    it.effect("a quota reservation is one statement, and a refused one reads the counter once more", () =>
      Effect.gen(function* () {
        const { quota } = yield* Store
        const accountId = yield* freshAccount
        const granted = yield* recordStatements(quota.reserve(accountId, "2026-01", 1000, 3000))
        expect(granted.value).toEqual({ reserved: true, used: 1000 })
        expect(granted.statements).toHaveLength(1)
        const refused = yield* recordStatements(quota.reserve(accountId, "2026-01", 2001, 3000))
        expect(refused.value).toEqual({ reserved: false, used: 1000 })
        expect(refused.statements).toHaveLength(2)
      }))
  })
}
