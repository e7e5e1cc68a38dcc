/** The webhooks scenario suite: every route of the spec's "Webhooks" table over HTTP, against a Mailroom configured
 *  with adminToken "test-admin-token" and relaxed URL rules (MAILROOM_UNSAFE_ALLOW_PRIVATE_URLS), delivering to a
 *  real receiver on 127.0.0.1 that verifies what it gets with the `standardwebhooks` package. */
import { createHmac } from "node:crypto"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { expectError, type HttpTarget, makeClient } from "./http-suite/client.js"
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.js"

export const webhooksSuite = (name: string, makeTarget: () => Promise<HttpTarget>) =>
  describe(`webhook scenarios (${name})`, () => {
    let target: HttpTarget | undefined
    let receiver: WebhookReceiver
    beforeAll(async () => {
      target = await makeTarget()
      receiver = await startWebhookReceiver()
    })
    afterAll(async () => {
      await target?.close()
      await receiver?.close()
    })
    beforeEach(() => {
      receiver.answer = () => ({ status: 200, body: "ok" })
    })
    const client = makeClient(() => {
      if (target === undefined) throw new Error("the HTTP target is not ready")
      return target
    })
    const url = (path = "/in") => `http://127.0.0.1:${receiver.port}${path}`

    const account = async (plan = "pro") => (await client.account({ plan })).key
    const create = async (key: string, body: Record<string, unknown> = {}) => {
      const answer = await client.call("POST", "/v1/webhooks", { key, body: { url: url(), events: ["email.delivered"], ...body } })
      expect(answer.status).toBe(201)
      return answer.json as { webhook: Record<string, any>; secret: string; message: string }
    }

    describe("endpoints", () => {
      it("POST /webhooks answers the endpoint, its secret once and a message; listings show only the prefix", async () => {
        const key = await account()
        const created = await create(key, { description: "orders", events: ["email.delivered", "contact.subscribed", "email.delivered"] })
        expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
        expect(created.message).toMatch(/only once/)
        expect(created.webhook).toEqual({
          id: expect.stringMatching(/^wh_/), url: url(), events: ["email.delivered", "contact.subscribed"], description: "orders",
          active: true, secretPrefix: created.secret.slice(0, 12), totalDeliveries: 0, disabledReason: null,
          createdAt: expect.any(String), updatedAt: expect.any(String),
        })
        const listed = await client.call("GET", "/v1/webhooks", { key })
        expect(listed.status).toBe(200)
        expect(listed.json).toEqual({ webhooks: [created.webhook] })
        expect(listed.text).not.toContain(created.secret)
        const one = await client.call("GET", `/v1/webhooks/${created.webhook.id}`, { key })
        expect(one.json).toEqual({ webhook: created.webhook, stats: { totalDeliveries: 0, successfulDeliveries: 0, successRate: 100 } })
      })

      it("refuses unknown event types with WEBHOOK_EVENT_UNKNOWN and webhook.retry with VALIDATION_ERROR, writing nothing", async () => {
        const key = await account()
        expectError(await client.call("POST", "/v1/webhooks", { key, body: { url: url(), events: ["email.sent"] } }), 400, "WEBHOOK_EVENT_UNKNOWN")
        expectError(await client.call("POST", "/v1/webhooks", { key, body: { url: url(), events: ["webhook.retry"] } }), 400, "VALIDATION_ERROR", "events")
        expectError(await client.call("POST", "/v1/webhooks", { key, body: { url: url(), events: [] } }), 400, "VALIDATION_ERROR", "events")
        expectError(await client.call("POST", "/v1/webhooks", { key, body: { events: ["email.delivered"] } }), 400, "VALIDATION_ERROR", "url")
        expectError(await client.call("POST", "/v1/webhooks", { key, body: { url: url(), events: ["email.delivered"], description: "d".repeat(501) } }), 400, "VALIDATION_ERROR", "description")
        expect((await client.call("GET", "/v1/webhooks", { key })).json).toEqual({ webhooks: [] })
      })

      it.each([
        ["https://user:secret@127.0.0.1/in", /credentials/],
        ["https://169.254.169.254/latest", /linkLocal/],
        ["ftp://127.0.0.1/in", /https/],
        ["not a url", /valid URL/],
      ])("refuses the URL %s even with relaxed rules", async (bad, reason) => {
        const key = await account()
        const answer = await client.call("POST", "/v1/webhooks", { key, body: { url: bad, events: ["email.delivered"] } })
        expectError(answer, 400, "VALIDATION_ERROR", "url")
        expect(answer.json.error.message).toMatch(reason)
      })

      it("applies the plan limits: none below Starter (403), Starter 1, Micro 3, Pro 10, Scale unlimited", async () => {
        const free = await account("free")
        const refused = await client.call("POST", "/v1/webhooks", { key: free, body: { url: url(), events: ["email.delivered"] } })
        expectError(refused, 403, "PLAN_UPGRADE_REQUIRED")
        expect(refused.json.error.message).toMatch(/free plan .*webhooks need the Starter plan or above/)
        expect((await client.call("GET", "/v1/webhooks", { key: free })).json).toEqual({ webhooks: [] })
        const full = async (key: string, plan: string, limit: number) => {
          const answer = await client.call("POST", "/v1/webhooks", { key, body: { url: url(), events: ["email.delivered"] } })
          expectError(answer, 400, "API_KEY_LIMIT_REACHED")
          expect(answer.json.error.message).toContain(`the ${plan} plan allows at most ${limit} webhook endpoint`)
          expect((await client.call("GET", "/v1/webhooks", { key })).json.webhooks).toHaveLength(limit)
        }
        const starter = await account("starter")
        await create(starter)
        await full(starter, "starter", 1)
        const micro = await account("micro")
        for (let i = 0; i < 3; i++) await create(micro)
        await full(micro, "micro", 3)
        const pro = await account("pro")
        for (let i = 0; i < 10; i++) await create(pro)
        await full(pro, "pro", 10)
        const scale = await account("scale")
        for (let i = 0; i < 11; i++) await create(scale)
        const listed = await client.call("GET", "/v1/webhooks", { key: scale })
        expect(listed.status).toBe(200)
        expect(listed.json.webhooks).toHaveLength(11)
      }, 90_000) // some thirty calls in a row: about 9 s on PostgreSQL on a busy 2-core machine, 30 s when it was busier

      it("concurrent POST /webhooks never take an account past its plan's endpoint count (Micro: 3 of 12 created)", async () => {
        const key = await account("micro")
        const answers = await Promise.all(Array.from({ length: 12 }, () =>
          client.call("POST", "/v1/webhooks", { key, body: { url: url(), events: ["email.delivered"] } })))
        expect(answers.filter((answer) => answer.status === 201)).toHaveLength(3)
        for (const answer of answers) if (answer.status !== 201) expectError(answer, 400, "API_KEY_LIMIT_REACHED")
        expect((await client.call("GET", "/v1/webhooks", { key })).json.webhooks).toHaveLength(3)
      })

      it("PATCH changes only the fields sent and checks them as create does; DELETE removes the endpoint", async () => {
        const key = await account()
        const { webhook } = await create(key)
        const patched = await client.call("PATCH", `/v1/webhooks/${webhook.id}`, { key, body: { events: ["email.bounced"], active: false } })
        expect(patched.status).toBe(200)
        expect(patched.json.message).toBeTypeOf("string")
        expect(patched.json.webhook).toMatchObject({ id: webhook.id, url: url(), events: ["email.bounced"], active: false })
        expectError(await client.call("PATCH", `/v1/webhooks/${webhook.id}`, { key, body: { events: ["nope"] } }), 400, "WEBHOOK_EVENT_UNKNOWN")
        expectError(await client.call("PATCH", `/v1/webhooks/${webhook.id}`, { key, body: { url: "https://a:b@127.0.0.1/" } }), 400, "VALIDATION_ERROR", "url")
        expectError(await client.call("PATCH", `/v1/webhooks/${webhook.id}`, { key, body: { secret: "x" } }), 400, "VALIDATION_ERROR", "secret")
        const deleted = await client.call("DELETE", `/v1/webhooks/${webhook.id}`, { key })
        expect(deleted.status).toBe(200)
        expect(deleted.json.message).toMatch(/deleted/)
        expectError(await client.call("GET", `/v1/webhooks/${webhook.id}`, { key }), 404, "NOT_FOUND")
        expectError(await client.call("DELETE", `/v1/webhooks/${webhook.id}`, { key }), 404, "NOT_FOUND")
      })

      it("another account's endpoint answers 404 on every route", async () => {
        const owner = await account()
        const { webhook } = await create(owner)
        const other = await account()
        for (const [method, path, body] of [
          ["GET", ""], ["PATCH", "", { active: false }], ["DELETE", ""], ["POST", "/rotate"], ["POST", "/test", {}],
          ["PATCH", "/failure-settings", { enabled: false }], ["GET", "/health"], ["GET", "/deliveries"],
          ["POST", "/deliveries/whd_x/retry"],
        ] as const) {
          expectError(await client.call(method, `/v1/webhooks/${webhook.id}${path}`, { key: other, ...(body ? { body } : {}) }), 404, "NOT_FOUND")
        }
        expect((await client.call("GET", `/v1/webhooks/${webhook.id}`, { key: owner })).status).toBe(200)
      })

      it("needs webhooks:read to read and webhooks:write to change", async () => {
        const created = await client.account({ plan: "pro" })
        const { webhook } = await create(created.key)
        const reader = await client.key(created.id, ["webhooks:read"])
        const none = await client.key(created.id, ["contacts:read"])
        expect((await client.call("GET", "/v1/webhooks", { key: reader.key })).status).toBe(200)
        expectError(await client.call("POST", "/v1/webhooks", { key: reader.key, body: { url: url(), events: ["email.delivered"] } }), 403, "SCOPE_INSUFFICIENT")
        expectError(await client.call("POST", `/v1/webhooks/${webhook.id}/test`, { key: reader.key, body: {} }), 403, "SCOPE_INSUFFICIENT")
        expectError(await client.call("GET", "/v1/webhooks", { key: none.key }), 403, "SCOPE_INSUFFICIENT")
      })
    })

    describe("test sends and signatures", () => {
      it("POST /test delivers a signed email.delivered that standardwebhooks and the hex signature both verify", async () => {
        const key = await account()
        const { webhook, secret } = await create(key)
        const before = receiver.requests.length
        const answer = await client.call("POST", `/v1/webhooks/${webhook.id}/test`, { key })
        expect(answer.status).toBe(200)
        expect(answer.json).toEqual({
          success: true, statusCode: 200, responseTime: expect.any(Number), deliveryId: expect.stringMatching(/^whd_/),
          message: expect.any(String),
        })
        const request = receiver.requests[before]!
        expect(request.headers["x-service-event"]).toBe("email.delivered")
        expect(request.headers["x-service-delivery"]).toMatch(/^wha_/)
        expect(request.headers["x-service-signature"]).toBe(createHmac("sha256", secret).update(request.body).digest("hex"))
        expect(request.headers["x-service-signature-previous"]).toBeUndefined()
        expect(request.headers["webhook-id"]).toBe(answer.json.deliveryId)
        const verified = new Webhook(secret).verify(request.body, request.headers) as Record<string, unknown>
        expect(verified).toMatchObject({ eventType: "email.delivered", messageId: answer.json.deliveryId, details: { test: true } })
        expect(Object.keys(verified)).not.toContain("recipient")
      })

      it("POST /test sends the eventType asked for, refuses unknown ones, and refuses a disabled endpoint", async () => {
        const key = await account()
        const { webhook } = await create(key)
        const before = receiver.requests.length
        expect((await client.call("POST", `/v1/webhooks/${webhook.id}/test`, { key, body: { eventType: "contact.subscribed" } })).json.success).toBe(true)
        expect(receiver.requests[before]!.headers["x-service-event"]).toBe("contact.subscribed")
        expectError(await client.call("POST", `/v1/webhooks/${webhook.id}/test`, { key, body: { eventType: "email.sent" } }), 400, "WEBHOOK_EVENT_UNKNOWN")
        await client.call("PATCH", `/v1/webhooks/${webhook.id}`, { key, body: { active: false } })
        expectError(await client.call("POST", `/v1/webhooks/${webhook.id}/test`, { key, body: {} }), 400, "VALIDATION_ERROR")
      })

      it("POST /test reports a receiver that answers 500, and an unreachable one with statusCode 0", async () => {
        const key = await account()
        const { webhook } = await create(key)
        receiver.answer = () => ({ status: 500, body: "boom" })
        const failed = await client.call("POST", `/v1/webhooks/${webhook.id}/test`, { key, body: {} })
        expect(failed.json).toMatchObject({ success: false, statusCode: 500, errorMessage: expect.stringMatching(/500/) })
        const gone = await create(key, { url: "http://127.0.0.1:1/in" })
        const unreachable = await client.call("POST", `/v1/webhooks/${gone.webhook.id}/test`, { key, body: {} })
        expect(unreachable.json).toMatchObject({ success: false, statusCode: 0, errorMessage: expect.stringMatching(/refused/) })
        expect(unreachable.json.deliveryId).toMatch(/^whd_/)
      })

      it("after rotation both secrets sign for an hour: X-Service-Signature-Previous and two Standard Webhooks signatures", async () => {
        const key = await account()
        const { webhook, secret: old } = await create(key)
        const rotated = await client.call("POST", `/v1/webhooks/${webhook.id}/rotate`, { key })
        expect(rotated.status).toBe(200)
        expect(rotated.json).toEqual({ id: webhook.id, secret: expect.stringMatching(/^whsec_/), previousSecretValidUntil: expect.any(String) })
        const validFor = Date.parse(rotated.json.previousSecretValidUntil) - Date.now()
        expect(validFor).toBeGreaterThan(59 * 60 * 1000)
        expect(validFor).toBeLessThanOrEqual(60 * 60 * 1000)
        const before = receiver.requests.length
        await client.call("POST", `/v1/webhooks/${webhook.id}/test`, { key, body: {} })
        const request = receiver.requests[before]!
        expect(request.headers["x-service-signature"]).toBe(createHmac("sha256", rotated.json.secret).update(request.body).digest("hex"))
        expect(request.headers["x-service-signature-previous"]).toBe(createHmac("sha256", old).update(request.body).digest("hex"))
        expect(request.headers["webhook-signature"]!.split(" ")).toHaveLength(2)
        expect(() => new Webhook(old).verify(request.body, request.headers)).not.toThrow()
        expect(() => new Webhook(rotated.json.secret).verify(request.body, request.headers)).not.toThrow()
        const listed = (await client.call("GET", `/v1/webhooks/${webhook.id}`, { key })).json.webhook
        expect(listed.secretPrefix).toBe(rotated.json.secret.slice(0, 12))
      })
    })

    describe("failure settings, health and history", () => {
      it("PATCH /failure-settings answers the settings and checks them", async () => {
        const key = await account()
        const { webhook } = await create(key)
        const answer = await client.call("PATCH", `/v1/webhooks/${webhook.id}/failure-settings`, {
          key, body: { enabled: true, notifyEmails: ["ops@example.com"], failureThreshold: 3, autoDisableAfter: 10 },
        })
        expect(answer.status).toBe(200)
        expect(answer.json).toEqual({
          webhookId: webhook.id,
          failureSettings: { enabled: true, notifyEmails: ["ops@example.com"], failureThreshold: 3, autoDisableAfter: 10 },
          message: expect.any(String),
        })
        const partial = await client.call("PATCH", `/v1/webhooks/${webhook.id}/failure-settings`, { key, body: { enabled: false } })
        expect(partial.json.failureSettings).toEqual({ enabled: false, notifyEmails: ["ops@example.com"], failureThreshold: 3, autoDisableAfter: 10 })
        for (const body of [
          { notifyEmails: ["a@x.co", "b@x.co", "c@x.co", "d@x.co", "e@x.co", "f@x.co"] }, { notifyEmails: ["not-an-address"] },
          { failureThreshold: 0 }, { autoDisableAfter: -1 }, { failureThreshold: 2.5 }, { other: 1 },
        ]) {
          expectError(await client.call("PATCH", `/v1/webhooks/${webhook.id}/failure-settings`, { key, body }), 400, "VALIDATION_ERROR")
        }
      })

      it("GET /health applies the badge rule to the last 24 hours and the streak", async () => {
        const key = await account()
        const { webhook } = await create(key)
        const health = async () => (await client.call("GET", `/v1/webhooks/${webhook.id}/health`, { key })).json
        expect(await health()).toEqual({
          webhookId: webhook.id, status: "healthy", active: true, disabledReason: null, consecutiveFailures: 0,
          stats: { period: "24h", totalDeliveries: 0, successfulDeliveries: 0, successRate: 100 },
        })
        receiver.answer = () => ({ status: 503 })
        for (let i = 0; i < 2; i++) await client.call("POST", `/v1/webhooks/${webhook.id}/test`, { key, body: {} })
        receiver.answer = () => ({ status: 200 })
        for (let i = 0; i < 8; i++) await client.call("POST", `/v1/webhooks/${webhook.id}/test`, { key, body: {} })
        expect(await health()).toMatchObject({ status: "degraded", consecutiveFailures: 0, stats: { totalDeliveries: 10, successfulDeliveries: 8, successRate: 80 } })
        receiver.answer = () => ({ status: 500 })
        for (let i = 0; i < 10; i++) await client.call("POST", `/v1/webhooks/${webhook.id}/test`, { key, body: {} })
        expect(await health()).toMatchObject({ status: "failing", consecutiveFailures: 10 })
        const stats = (await client.call("GET", `/v1/webhooks/${webhook.id}`, { key })).json.stats
        expect(stats).toEqual({ totalDeliveries: 20, successfulDeliveries: 8, successRate: 40 })
      })

      it("a streak reaching autoDisableAfter disables the endpoint and records why", async () => {
        const key = await account()
        const { webhook } = await create(key)
        await client.call("PATCH", `/v1/webhooks/${webhook.id}/failure-settings`, { key, body: { autoDisableAfter: 3 } })
        receiver.answer = () => ({ status: 500 })
        for (let i = 0; i < 3; i++) await client.call("POST", `/v1/webhooks/${webhook.id}/test`, { key, body: {} })
        const read = (await client.call("GET", `/v1/webhooks/${webhook.id}`, { key })).json.webhook
        expect(read.active).toBe(false)
        expect(read.disabledReason).toMatch(/3 consecutive failed deliveries/)
        const enabled = (await client.call("PATCH", `/v1/webhooks/${webhook.id}`, { key, body: { active: true } })).json.webhook
        expect(enabled).toMatchObject({ active: true, disabledReason: null })
        expect((await client.call("GET", `/v1/webhooks/${webhook.id}/health`, { key })).json.consecutiveFailures).toBe(0)
      })

      it("GET /deliveries pages the history newest first and filters it; each delivery lists its attempts", async () => {
        const key = await account()
        const { webhook } = await create(key)
        receiver.answer = () => ({ status: 200, body: "fine" })
        const ok = (await client.call("POST", `/v1/webhooks/${webhook.id}/test`, { key, body: {} })).json.deliveryId
        receiver.answer = () => ({ status: 404, body: "no such hook" })
        const missing = (await client.call("POST", `/v1/webhooks/${webhook.id}/test`, { key, body: { eventType: "email.bounced" } })).json.deliveryId
        const all = await client.call("GET", `/v1/webhooks/${webhook.id}/deliveries`, { key })
        expect(all.status).toBe(200)
        expect(all.json.pagination).toEqual({ page: 1, limit: 25, total: 2, totalPages: 1 })
        expect(all.json.data.map((d: any) => d.id)).toEqual([missing, ok])
        expect(all.json.data[0]).toMatchObject({ eventType: "email.bounced", kind: "test", status: "failed", attempts: 1, lastStatusCode: 404 })
        const failed = await client.call("GET", `/v1/webhooks/${webhook.id}/deliveries?status=failed`, { key })
        expect(failed.json.data.map((d: any) => d.id)).toEqual([missing])
        const delivered = await client.call("GET", `/v1/webhooks/${webhook.id}/deliveries?eventType=email.delivered&limit=1`, { key })
        expect(delivered.json.data.map((d: any) => d.id)).toEqual([ok])
        expectError(await client.call("GET", `/v1/webhooks/${webhook.id}/deliveries?status=lost`, { key }), 400, "VALIDATION_ERROR", "status")
        expectError(await client.call("GET", `/v1/webhooks/${webhook.id}/deliveries?limit=101`, { key }), 400, "VALIDATION_ERROR", "limit")
        const one = await client.call("GET", `/v1/webhooks/${webhook.id}/deliveries/${missing}`, { key })
        expect(one.json.delivery.attemptHistory).toEqual([{
          id: expect.stringMatching(/^wha_/), attempt: 1, success: false, statusCode: 404, durationMs: expect.any(Number),
          responseSnippet: "no such hook", error: expect.stringMatching(/404/), startedAt: expect.any(String),
        }])
      })

      it("retrying a failed delivery queues a webhook.retry naming it; other deliveries cannot be retried", async () => {
        const key = await account()
        const { webhook } = await create(key)
        receiver.answer = () => ({ status: 500 })
        const failed = (await client.call("POST", `/v1/webhooks/${webhook.id}/test`, { key, body: {} })).json.deliveryId
        receiver.answer = () => ({ status: 200 })
        const succeeded = (await client.call("POST", `/v1/webhooks/${webhook.id}/test`, { key, body: {} })).json.deliveryId
        const retried = await client.call("POST", `/v1/webhooks/${webhook.id}/deliveries/${failed}/retry`, { key })
        expect(retried.status).toBe(202)
        expect(retried.json).toMatchObject({ retryOf: failed, delivery: { eventType: "webhook.retry", kind: "retry", status: "pending" } })
        expectError(await client.call("POST", `/v1/webhooks/${webhook.id}/deliveries/${succeeded}/retry`, { key }), 400, "VALIDATION_ERROR")
        expectError(await client.call("POST", `/v1/webhooks/${webhook.id}/deliveries/whd_unknown/retry`, { key }), 404, "NOT_FOUND")
        const history = await client.call("GET", `/v1/webhooks/${webhook.id}/deliveries?eventType=webhook.retry`, { key })
        expect(history.json.data.map((d: any) => d.id)).toEqual([retried.json.delivery.id])
      })
    })
  })
