import { makeSecret, signedHeaders } from "@mailroom/core"
import { startWebhookReceiver } from "@mailroom/testing"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { createMailroom, createWebhookDeduplicator, verifyWebhook } from "../src/index.js"

const secret = makeSecret("11".repeat(24))
const previous = makeSecret("22".repeat(24))
const body = JSON.stringify({ eventType: "email.delivered", messageId: "msg_1", recipient: "ada@example.com", timestamp: "2026-01-01T00:00:00.000Z", details: {} })
const at = new Date("2026-01-01T00:00:00Z")
const headersFor = (secrets: { current: string; previous: string | undefined }, text = body, when = at) =>
  signedHeaders(secrets, { eventType: "email.delivered", webhookId: "whd_1", attemptId: "wha_1", body: text, at: when })

describe("verifyWebhook", () => {
  // The Standard Webhooks timestamp is checked against the clock: each test but the last runs ten seconds after `at`.
  beforeEach((context) => {
    if (!context.task.name.includes("real delivery")) vi.useFakeTimers({ now: at.getTime() + 10_000, toFake: ["Date"] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it("answers the parsed envelope of a genuine delivery", () => {
    const verified = verifyWebhook(body, headersFor({ current: secret, previous: undefined }), { secret })
    expect(verified).toEqual({
      payload: JSON.parse(body), eventType: "email.delivered", messageId: "msg_1", recipient: "ada@example.com",
      webhookId: "whd_1", attemptId: "wha_1",
    })
    expect(verifyWebhook(new TextEncoder().encode(body), new Headers(headersFor({ current: secret, previous: undefined })), { secret }).messageId).toBe("msg_1")
  })

  it("refuses a changed body, another secret, and missing headers", () => {
    const headers = headersFor({ current: secret, previous: undefined })
    expect(() => verifyWebhook(body.replace("msg_1", "msg_2"), headers, { secret })).toThrow(/signature/)
    expect(() => verifyWebhook(body, headers, { secret: previous })).toThrow(/signature/)
    expect(() => verifyWebhook(body, { ...headers, "webhook-signature": undefined }, { secret })).toThrow(/missing/)
    const onlyStandard = { ...headers, "x-service-signature": "00".repeat(32) }
    expect(() => verifyWebhook(body, onlyStandard, { secret })).toThrow(/X-Service-Signature/)
  })

  it("refuses a timestamp outside the tolerance (a replay)", () => {
    const old = headersFor({ current: secret, previous: undefined }, body, new Date(at.getTime() - 10 * 60 * 1000))
    expect(() => verifyWebhook(body, old, { secret })).toThrow(/too old/)
    const early = headersFor({ current: secret, previous: undefined }, body, new Date(at.getTime() + 10 * 60 * 1000))
    expect(() => verifyWebhook(body, early, { secret })).toThrow(/too new/)
    const withinFiveMinutes = headersFor({ current: secret, previous: undefined }, body, new Date(at.getTime() - 4 * 60 * 1000))
    expect(verifyWebhook(body, withinFiveMinutes, { secret }).messageId).toBe("msg_1")
  })

  it("during a rotation accepts a receiver that still has only the previous secret, or both", () => {
    const headers = headersFor({ current: secret, previous })
    expect(verifyWebhook(body, headers, { secret: previous }).eventType).toBe("email.delivered")
    expect(verifyWebhook(body, headers, { secret: [secret, previous] }).eventType).toBe("email.delivered")
    const after = headersFor({ current: secret, previous: undefined })
    expect(() => verifyWebhook(body, after, { secret: previous })).toThrow()
  })

  it("verifies a real delivery from a Mailroom test send", async () => {
    const receiver = await startWebhookReceiver()
    const mailroom = createMailroom({ database: "memory:", adminToken: "t", unsafeAllowPrivateUrls: true })
    try {
      const call = async (path: string, key: string, payload?: unknown) =>
        (await mailroom.fetch(new Request(`http://mailroom.test${path}`, {
          method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(payload ?? {}),
        }))).json()
      const account = await call("/admin/accounts", "t", { plan: "starter" })
      const created = await call("/v1/webhooks", account.apiKey, { url: `http://127.0.0.1:${receiver.port}/in`, events: ["email.delivered"] })
      await call(`/v1/webhooks/${created.webhook.id}/test`, account.apiKey)
      const request = (await receiver.waitFor(1))[0]!
      expect(verifyWebhook(request.body, request.headers, { secret: created.secret }).eventType).toBe("email.delivered")
    } finally {
      await mailroom.close()
      await receiver.close()
    }
  })
})

describe("createWebhookDeduplicator", () => {
  it("keeps the first of eventType, messageId and recipient and drops repeats until they expire", () => {
    let clock = 0
    const dedupe = createWebhookDeduplicator({ ttlMs: 1000, now: () => clock })
    const a = { eventType: "email.delivered", messageId: "m1", recipient: "a@x.co" }
    expect(dedupe.firstTime(a)).toBe(true)
    expect(dedupe.firstTime(a)).toBe(false)
    expect(dedupe.firstTime({ ...a, recipient: "b@x.co" })).toBe(true)
    expect(dedupe.firstTime({ ...a, eventType: "email.opened" })).toBe(true)
    clock = 1001
    expect(dedupe.firstTime(a)).toBe(true)
  })
})
