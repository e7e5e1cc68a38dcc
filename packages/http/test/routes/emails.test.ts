import { acceptSend, type AccountId, type MessageId, SendInput, Store, toStoredMessage } from "@mailroom/core"
import { Effect, Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { call, makeTestApp, newAccount, scopedKey } from "../support.js"

const app = makeTestApp()

const storeMessage = (accountId: string, options: { scheduledFor?: Date } = {}) =>
  app.runtime.runPromise(Effect.gen(function* () {
    const store = yield* Store
    const message = toStoredMessage({
      id: `msg_${Math.random().toString(36).slice(2)}` as MessageId,
      accountId: accountId as AccountId,
      batchId: null,
      message: Either.getOrThrow(acceptSend(Schema.decodeUnknownSync(SendInput)({
        from: { email: "news@example.com", name: "News" },
        to: [{ email: "ada@example.org" }],
        bcc: [{ email: "bob@example.org" }],
        content: { subject: "Hello", text: "Hi" },
        suppressionGroupId: "tpc_weekly",
        metadata: { orderId: 7 },
      }))),
      scheduledFor: options.scheduledFor ?? null,
      createdAt: new Date("2026-02-01T10:00:00Z"),
    })
    yield* store.messages.insertMany([message])
    yield* store.messages.updateRecipients(message.accountId, [
      { messageId: message.id, position: 0, status: "delivered", addAttempts: 1, lastResponse: "250 2.0.0 Ok", at: new Date("2026-02-01T10:00:02Z") },
    ])
    yield* store.messages.appendEvents([{
      id: `mev_${message.id}`, accountId: message.accountId, messageId: message.id, recipient: "ada@example.org",
      type: "email.delivered", occurredAt: new Date("2026-02-01T10:00:02Z"), smtpResponse: "250 2.0.0 Ok",
      bounceType: null, bounceCode: null, bounceReason: null,
    }])
    return message
  }))

describe("GET /v1/emails/{id}", () => {
  it("answers the message with its status, recipients and events", async () => {
    const { id, key } = await newAccount(app)
    const message = await storeMessage(id)
    const answer = await call(app, "GET", `/v1/emails/${message.id}`, { key })
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({
      success: true,
      data: {
        id: message.id,
        status: "queued",
        stream: "marketing",
        topicId: "tpc_weekly",
        batchId: null,
        from: { email: "news@example.com", name: "News" },
        replyTo: null,
        subject: "Hello",
        categories: [],
        tags: {},
        metadata: { orderId: 7 },
        track: true,
        template: null,
        scheduledFor: null,
        createdAt: "2026-02-01T10:00:00.000Z",
        recipients: [
          { email: "ada@example.org", name: null, field: "to", status: "delivered", attempts: 1, lastResponse: "250 2.0.0 Ok", updatedAt: "2026-02-01T10:00:02.000Z" },
          { email: "bob@example.org", name: null, field: "bcc", status: "queued", attempts: 0, lastResponse: null, updatedAt: "2026-02-01T10:00:00.000Z" },
        ],
        events: [{
          type: "email.delivered", recipient: "ada@example.org", occurredAt: "2026-02-01T10:00:02.000Z",
          smtpResponse: "250 2.0.0 Ok", bounceType: null, bounceCode: null, bounceReason: null,
        }],
      },
    })
  })

  it("shows a scheduled message as scheduled", async () => {
    const { id, key } = await newAccount(app)
    const message = await storeMessage(id, { scheduledFor: new Date("2026-03-01T00:00:00Z") })
    const answer = await call(app, "GET", `/v1/emails/${message.id}`, { key })
    expect(answer.json.data).toMatchObject({ status: "scheduled", scheduledFor: "2026-03-01T00:00:00.000Z" })
  })

  it("answers 404 for another account's message and an unknown id", async () => {
    const owner = await newAccount(app)
    const stranger = await newAccount(app)
    const message = await storeMessage(owner.id)
    const foreign = await call(app, "GET", `/v1/emails/${message.id}`, { key: stranger.key })
    expect(foreign.status).toBe(404)
    expect(foreign.json.error.code).toBe("RESOURCE_NOT_FOUND")
    expect((await call(app, "GET", "/v1/emails/msg_unknown", { key: owner.key })).status).toBe(404)
  })

  it("needs the emails:send scope", async () => {
    const { id } = await newAccount(app)
    const message = await storeMessage(id)
    const key = await scopedKey(app, id, ["contacts:read"])
    const answer = await call(app, "GET", `/v1/emails/${message.id}`, { key })
    expect(answer.status).toBe(403)
    expect(answer.json.error.code).toBe("SCOPE_INSUFFICIENT")
  })
})
