/** Store contract: messages with recipients and events, the monthly quota counters (atomic reservations) and
 *  idempotency records. */
import { describe, expect } from "@effect/vitest"
import {
  type AccountId, acceptSend, type IdempotencyRecord, type MessageEvent, type MessageId, SendInput, Store,
  type StoredMessage, toStoredMessage,
} from "@mailroom/core"
import { Effect, Either, Option, Schema } from "effect"
import { uniqueText as freshId } from "../fixtures.js"
import { at, insertAccount, type StoreTester } from "./support.js"

const sendBody = {
  from: { email: "news@example.com", name: "Example News" },
  to: [{ email: "ada@example.org", name: "Ada" }, { email: "bob@example.org" }],
  cc: [{ email: "ADA@example.org" }],
  bcc: [{ email: "carol@example.org" }],
  replyTo: { email: "help@example.com" },
  content: {
    subject: "Hello {{name}}", html: "<p>Hi {{name}}, ünïcode ✓</p>", text: "Hi {{name}}",
    attachments: [{ filename: "a.txt", content: "aGVsbG8=", contentType: "text/plain" }],
  },
  variables: { name: "Ada" },
  categories: ["welcome"],
  tags: { plan: "pro" },
  metadata: { orderId: 42, nested: { ok: true } },
  suppressionGroupId: "tpc_news",
}

/** A stored message of `accountId` made from a full send body (or `body`), queued unless `scheduledFor` is given. */
export const makeStoredMessage = (
  accountId: AccountId,
  options: { readonly body?: unknown; readonly scheduledFor?: Date; readonly createdAt?: Date; readonly batchId?: string } = {},
): StoredMessage =>
  toStoredMessage({
    id: freshId("msg") as MessageId,
    accountId,
    batchId: options.batchId ?? null,
    message: Either.getOrThrow(acceptSend(Schema.decodeUnknownSync(SendInput)(options.body ?? sendBody))),
    scheduledFor: options.scheduledFor ?? null,
    createdAt: options.createdAt ?? at(0),
  })

const makeMessageEvent = (message: StoredMessage, overrides: Partial<MessageEvent> = {}): MessageEvent => ({
  id: freshId("mev"),
  accountId: message.accountId,
  messageId: message.id,
  recipient: message.recipients[0]!.email,
  type: "email.queued",
  occurredAt: at(1),
  smtpResponse: null,
  bounceType: null,
  bounceCode: null,
  bounceReason: null,
  ...overrides,
})

/** Dates as epoch milliseconds, so that backends compare equal. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown

export const messageTests = (it: StoreTester) => {
  describe("messages", () => {
    it.effect("findById answers an inserted message with its content and recipients in envelope order", () =>
      Effect.gen(function* () {
        const { messages } = yield* Store
        const accountId = yield* insertAccount
        const message = makeStoredMessage(accountId)
        yield* messages.insertMany([message])
        const found = Option.getOrThrow(yield* messages.findById(accountId, message.id))
        expect(plain(found)).toEqual(plain(message))
        expect(found.recipients.map((r) => [r.position, r.email, r.field, r.status])).toEqual([
          [0, "ada@example.org", "to", "queued"], [1, "bob@example.org", "to", "queued"], [2, "carol@example.org", "bcc", "queued"],
        ])
        expect(found.content.duplicates).toEqual([{ email: "ada@example.org", field: "cc", index: 0 }])
        expect(found.content.metadata).toEqual({ orderId: 42, nested: { ok: true } })
        expect(found.content.replyTo).toEqual({ email: "help@example.com" })
      }))

    it.effect("keeps absent optional content absent", () =>
      Effect.gen(function* () {
        const { messages } = yield* Store
        const accountId = yield* insertAccount
        const message = makeStoredMessage(accountId, {
          body: { from: { email: "a@example.com" }, to: [{ email: "b@example.org" }], content: { subject: "s", text: "t" } },
        })
        yield* messages.insertMany([message])
        const found = Option.getOrThrow(yield* messages.findById(accountId, message.id))
        expect(found.content.html).toBeUndefined()
        expect(found.content.replyTo).toBeUndefined()
        expect(found.content.metadata).toBeNull()
        expect(found.recipients[0]!.name).toBeUndefined()
      }))

    it.effect("findById answers none for another account's message and an unknown id", () =>
      Effect.gen(function* () {
        const { messages } = yield* Store
        const owner = yield* insertAccount
        const stranger = yield* insertAccount
        const message = makeStoredMessage(owner)
        yield* messages.insertMany([message])
        expect(Option.isNone(yield* messages.findById(stranger, message.id))).toBe(true)
        expect(Option.isNone(yield* messages.findById(owner, "msg_unknown" as MessageId))).toBe(true)
      }))

    it.effect("insertMany stores a thousand messages of a batch, and nothing for an empty list", () =>
      Effect.gen(function* () {
        const { messages } = yield* Store
        const accountId = yield* insertAccount
        const batchId = freshId("bat")
        const many = Array.from({ length: 1000 }, (_, i) => makeStoredMessage(accountId, {
          batchId,
          body: { from: { email: "a@example.com" }, to: [{ email: `r${i}@example.org` }], content: { subject: "s", text: `t${i}` } },
        }))
        yield* messages.insertMany(many)
        yield* messages.insertMany([])
        const last = Option.getOrThrow(yield* messages.findById(accountId, many[999]!.id))
        expect(last.batchId).toBe(batchId)
        expect(last.recipients[0]!.email).toBe("r999@example.org")
        expect(last.content.text).toBe("t999")
      }))

    it.effect("updateRecipients changes only the named recipients of the account's messages, across messages at once", () =>
      Effect.gen(function* () {
        const { messages } = yield* Store
        const accountId = yield* insertAccount
        const stranger = yield* insertAccount
        const message = makeStoredMessage(accountId)
        const other = makeStoredMessage(accountId)
        yield* messages.insertMany([message, other])
        yield* messages.updateRecipients(accountId, [
          { messageId: message.id, position: 0, status: "delivered", addAttempts: 1, lastResponse: "250 2.0.0 Ok", at: at(5) },
          { messageId: message.id, position: 2, status: "deferred", addAttempts: 1, lastResponse: "451 4.3.0 later", at: at(5) },
          { messageId: message.id, position: 7, status: "bounced", addAttempts: 1, lastResponse: "550", at: at(5) },
          { messageId: other.id, position: 1, status: "held", addAttempts: 0, lastResponse: "in progress", at: at(6) },
          { messageId: "msg_unknown" as MessageId, position: 0, status: "held", addAttempts: 0, lastResponse: "x", at: at(6) },
        ])
        yield* messages.updateRecipients(accountId, [
          { messageId: message.id, position: 2, status: "bounced", addAttempts: 1, lastResponse: "550 5.1.1 unknown", at: at(9) },
        ])
        yield* messages.updateRecipients(stranger, [
          { messageId: message.id, position: 1, status: "held", addAttempts: 1, lastResponse: "x", at: at(9) },
        ])
        yield* messages.updateRecipients(accountId, [])
        const found = Option.getOrThrow(yield* messages.findById(accountId, message.id))
        expect(found.recipients.map((r) => [r.status, r.attempts, r.lastResponse, r.updatedAt.getTime()])).toEqual([
          ["delivered", 1, "250 2.0.0 Ok", at(5).getTime()],
          ["queued", 0, null, at(0).getTime()],
          ["bounced", 2, "550 5.1.1 unknown", at(9).getTime()],
        ])
        const second = Option.getOrThrow(yield* messages.findById(accountId, other.id))
        expect(second.recipients.map((r) => [r.status, r.attempts, r.lastResponse])).toEqual([
          ["queued", 0, null], ["held", 0, "in progress"], ["queued", 0, null],
        ])
      }))
    it.effect("findByIds answers the account's messages among the ids, in their order, with their recipients", () =>
      Effect.gen(function* () {
        const { messages } = yield* Store
        const accountId = yield* insertAccount
        const stranger = yield* insertAccount
        const [first, second, third] = [makeStoredMessage(accountId), makeStoredMessage(accountId), makeStoredMessage(accountId)]
        const foreign = makeStoredMessage(stranger)
        yield* messages.insertMany([first, second, third, foreign])
        const found = yield* messages.findByIds(accountId, [third.id, "msg_unknown" as MessageId, foreign.id, first.id])
        expect(found.map((m) => m.id)).toEqual([third.id, first.id])
        expect(found[0]).toEqual(Option.getOrThrow(yield* messages.findById(accountId, third.id)))
        expect(found[1]!.recipients.map((r) => r.email)).toEqual(first.recipients.map((r) => r.email))
        expect(yield* messages.findByIds(accountId, [])).toEqual([])
        expect(yield* messages.findByIds(stranger, [first.id])).toEqual([])
      }))
    it.effect("moveScheduled moves a scheduled message once; queued, cancelled, foreign and unknown ones stay", () =>
      Effect.gen(function* () {
        const { messages } = yield* Store
        const accountId = yield* insertAccount
        const stranger = yield* insertAccount
        const scheduled = makeStoredMessage(accountId, { scheduledFor: at(3600) })
        const other = makeStoredMessage(accountId, { scheduledFor: at(7200) })
        const queued = makeStoredMessage(accountId)
        yield* messages.insertMany([scheduled, other, queued])
        expect(scheduled.state).toBe("scheduled")
        expect(yield* messages.moveScheduled(stranger, scheduled.id, "cancelled")).toBe(false)
        expect(yield* messages.moveScheduled(accountId, scheduled.id, "cancelled")).toBe(true)
        expect(yield* messages.moveScheduled(accountId, scheduled.id, "queued")).toBe(false)
        expect(yield* messages.moveScheduled(accountId, queued.id, "cancelled")).toBe(false)
        expect(yield* messages.moveScheduled(accountId, "msg_unknown" as MessageId, "cancelled")).toBe(false)
        expect(yield* messages.moveScheduled(accountId, other.id, "queued")).toBe(true)
        const states = yield* Effect.forEach([scheduled, other, queued], (m) =>
          Effect.map(messages.findById(accountId, m.id), (found) => Option.getOrThrow(found).state))
        expect(states).toEqual(["cancelled", "queued", "queued"])
      }))

    it.effect("of concurrent cancels and sends of one scheduled message exactly one moves it", () =>
      Effect.gen(function* () {
        const { messages } = yield* Store
        const accountId = yield* insertAccount
        const message = makeStoredMessage(accountId, { scheduledFor: at(60) })
        yield* messages.insertMany([message])
        const moves = yield* Effect.forEach(
          Array.from({ length: 10 }, (_, i): "queued" | "cancelled" => (i % 2 === 0 ? "queued" : "cancelled")),
          (to) => messages.moveScheduled(accountId, message.id, to),
          { concurrency: "unbounded" },
        )
        expect(moves.filter(Boolean)).toHaveLength(1)
      }))

    it.effect("dueScheduled answers scheduled messages due at a time, earliest first, within the limit", () =>
      Effect.gen(function* () {
        const { messages } = yield* Store
        const accountId = yield* insertAccount
        // Far in the future, so that other tests' scheduled messages sharing the backend are not due.
        const base = new Date(Date.UTC(2199, 0, 1)).getTime()
        const when = (s: number) => new Date(base + s * 1000)
        const late = makeStoredMessage(accountId, { scheduledFor: when(30) })
        const early = makeStoredMessage(accountId, { scheduledFor: when(10) })
        const notYet = makeStoredMessage(accountId, { scheduledFor: when(90) })
        const cancelled = makeStoredMessage(accountId, { scheduledFor: when(20) })
        yield* messages.insertMany([late, early, notYet, cancelled])
        yield* messages.moveScheduled(accountId, cancelled.id, "cancelled")
        const due = (yield* messages.dueScheduled(when(60), 1000)).filter((d) => d.accountId === accountId)
        expect(due.map((d) => [d.id, d.scheduledFor.getTime()])).toEqual([[early.id, when(10).getTime()], [late.id, when(30).getTime()]])
        expect(yield* messages.dueScheduled(when(60), 0)).toEqual([])
      }))

    it.effect("recipientsWithStatus answers the account's recipients with a status, least recently updated first", () =>
      Effect.gen(function* () {
        const { messages } = yield* Store
        const accountId = yield* insertAccount
        const first = makeStoredMessage(accountId)
        const second = makeStoredMessage(accountId)
        yield* messages.insertMany([first, second])
        yield* messages.updateRecipients(accountId, [{ messageId: second.id, position: 1, status: "held", addAttempts: 1, lastResponse: "lost", at: at(10) }])
        yield* messages.updateRecipients(accountId, [{ messageId: first.id, position: 2, status: "held", addAttempts: 1, lastResponse: "lost", at: at(20) }])
        const held = yield* messages.recipientsWithStatus(accountId, "held", 10)
        expect(held.map((h) => [h.messageId, h.recipient.email])).toEqual([[second.id, "bob@example.org"], [first.id, "carol@example.org"]])
        expect(yield* messages.recipientsWithStatus(accountId, "held", 1)).toHaveLength(1)
        expect(yield* messages.recipientsWithStatus(yield* insertAccount, "held", 10)).toEqual([])
      }))

    it.effect("events answers a message's events oldest first, and only to its account", () =>
      Effect.gen(function* () {
        const { messages } = yield* Store
        const accountId = yield* insertAccount
        const stranger = yield* insertAccount
        const message = makeStoredMessage(accountId)
        const other = makeStoredMessage(accountId)
        yield* messages.insertMany([message, other])
        const queued = makeMessageEvent(message, { occurredAt: at(1) })
        const bounced = makeMessageEvent(message, {
          type: "email.bounced", occurredAt: at(5), smtpResponse: "550 5.1.1 unknown", bounceType: "hard", bounceCode: "5.1.1",
          bounceReason: "5.1.1 unknown",
        })
        const deferred = makeMessageEvent(message, { type: "email.deferred", occurredAt: at(3), smtpResponse: "451 later" })
        yield* messages.appendEvents([queued, bounced])
        yield* messages.appendEvents([deferred, makeMessageEvent(other)])
        yield* messages.appendEvents([])
        expect(plain(yield* messages.events(accountId, message.id))).toEqual(plain([queued, deferred, bounced]))
        expect(yield* messages.events(stranger, message.id)).toEqual([])
      }))

    it.effect("messages and events written in a failed transaction are rolled back", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* insertAccount
        const message = makeStoredMessage(accountId)
        const failed = yield* Effect.flip(store.transaction(Effect.gen(function* () {
          yield* store.messages.insertMany([message])
          yield* store.messages.appendEvents([makeMessageEvent(message)])
          yield* store.quota.reserve(accountId, "2030-01", 3, 10)
          return yield* Effect.fail("refused" as const)
        })))
        expect(failed).toBe("refused")
        expect(Option.isNone(yield* store.messages.findById(accountId, message.id))).toBe(true)
        expect(yield* store.messages.events(accountId, message.id)).toEqual([])
        expect(yield* store.quota.used(accountId, "2030-01")).toBe(0)
      }))
  })

  describe("quota", () => {
    it.effect("reserve counts per account and period within the limit, and refuses what would pass it", () =>
      Effect.gen(function* () {
        const { quota } = yield* Store
        const accountId = yield* insertAccount
        const other = yield* insertAccount
        expect(yield* quota.used(accountId, "2026-03")).toBe(0)
        expect(yield* quota.reserve(accountId, "2026-03", 3, 5)).toEqual({ reserved: true, used: 3 })
        expect(yield* quota.reserve(accountId, "2026-03", 3, 5)).toEqual({ reserved: false, used: 3 })
        expect(yield* quota.reserve(accountId, "2026-03", 2, 5)).toEqual({ reserved: true, used: 5 })
        expect(yield* quota.reserve(accountId, "2026-03", 1, 5)).toEqual({ reserved: false, used: 5 })
        expect(yield* quota.reserve(accountId, "2026-04", 5, 5)).toEqual({ reserved: true, used: 5 })
        // A first reservation above the limit makes no counter.
        expect(yield* quota.reserve(accountId, "2026-06", 6, 5)).toEqual({ reserved: false, used: 0 })
        expect(yield* quota.reserve(accountId, "2026-06", 5, 5)).toEqual({ reserved: true, used: 5 })
        expect(yield* quota.reserve(other, "2026-03", 4, 5)).toEqual({ reserved: true, used: 4 })
        expect(yield* quota.used(accountId, "2026-03")).toBe(5)
      }))

    it.effect("reserve without a limit always counts", () =>
      Effect.gen(function* () {
        const { quota } = yield* Store
        const accountId = yield* insertAccount
        expect(yield* quota.reserve(accountId, "2026-03", 1_000_000, null)).toEqual({ reserved: true, used: 1_000_000 })
        expect(yield* quota.reserve(accountId, "2026-03", 1, null)).toEqual({ reserved: true, used: 1_000_001 })
      }))

    it.effect("concurrent reservations never overshoot the limit", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* insertAccount
        // 40 reservations of 1 to 3 recipients against a limit of 50, all at once, each in a transaction of its own
        // as a send makes it.
        const counts = Array.from({ length: 40 }, (_, i) => 1 + (i % 3))
        const answers = yield* Effect.forEach(counts, (count) =>
          store.transaction(store.quota.reserve(accountId, "2026-05", count, 50)), { concurrency: "unbounded" })
        const reserved = counts.filter((_, i) => answers[i]!.reserved).reduce((a, b) => a + b, 0)
        expect(reserved).toBeLessThanOrEqual(50)
        expect(yield* store.quota.used(accountId, "2026-05")).toBe(reserved)
        // The counter is full enough that no reservation of 1 to 3 could still fit beside the ones refused.
        expect(50 - reserved).toBeLessThan(3)
      }))
  })

  describe("idempotency", () => {
    const record = (accountId: AccountId, key: string, overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
      accountId, key, route: "send", bodyHash: "a".repeat(64), status: 200,
      response: { success: true, data: { id: "msg_1", to: ["ada@example.org"] } }, createdAt: at(100), ...overrides,
    })

    it.effect("find answers a saved record while it is live, and none for another account or an expired record", () =>
      Effect.gen(function* () {
        const { idempotency } = yield* Store
        const accountId = yield* insertAccount
        const stranger = yield* insertAccount
        const saved = record(accountId, "key-1")
        expect(yield* idempotency.save(saved, at(0))).toBe(true)
        expect(plain(Option.getOrThrow(yield* idempotency.find(accountId, "key-1", at(50))))).toEqual(plain(saved))
        expect(Option.isNone(yield* idempotency.find(stranger, "key-1", at(50)))).toBe(true)
        expect(Option.isNone(yield* idempotency.find(accountId, "key-1", at(101)))).toBe(true)
        expect(Option.isNone(yield* idempotency.find(accountId, "key-2", at(0)))).toBe(true)
      }))

    it.effect("save refuses a second record for a live key and replaces an expired one", () =>
      Effect.gen(function* () {
        const { idempotency } = yield* Store
        const accountId = yield* insertAccount
        const stranger = yield* insertAccount
        yield* idempotency.save(record(accountId, "key-1"), at(0))
        expect(yield* idempotency.save(record(accountId, "key-1", { bodyHash: "b".repeat(64), createdAt: at(150) }), at(50))).toBe(false)
        expect(Option.getOrThrow(yield* idempotency.find(accountId, "key-1", at(0))).bodyHash).toBe("a".repeat(64))
        expect(yield* idempotency.save(record(stranger, "key-1"), at(0))).toBe(true)
        expect(yield* idempotency.save(record(accountId, "key-1", { bodyHash: "c".repeat(64), createdAt: at(300) }), at(200))).toBe(true)
        expect(Option.getOrThrow(yield* idempotency.find(accountId, "key-1", at(200))).bodyHash).toBe("c".repeat(64))
      }))

    it.effect("of concurrent saves of one key exactly one is stored", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* insertAccount
        const answers = yield* Effect.forEach(Array.from({ length: 8 }, (_, i) => i), (i) =>
          store.transaction(store.idempotency.save(record(accountId, "race", { bodyHash: String(i).repeat(64) }), at(0))),
        { concurrency: "unbounded" })
        expect(answers.filter(Boolean)).toHaveLength(1)
        const winner = answers.indexOf(true)
        expect(Option.getOrThrow(yield* store.idempotency.find(accountId, "race", at(0))).bodyHash).toBe(String(winner).repeat(64))
      }))
  })
}
