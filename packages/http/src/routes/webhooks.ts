/** /v1/webhooks: endpoints, secrets, test sends, failure settings, health, delivery history and manual retry. Spec:
 *  audience "Webhooks". Scopes webhooks:read and webhooks:write (CONTRACT.md). Unknown and foreign ids answer 404
 *  NOT_FOUND; the codes are listed in docs/webhooks.md. */
import {
  CreateWebhookInput, DeliveryStatus, FailureSettingsInput, limitParam, PageParam, ReceivedEventType, TestWebhookInput,
  UpdateWebhookInput, type WebhookAttempt, type WebhookDelivery, type WebhookEndpoint, webhookLimits, Webhooks,
} from "@mailroom/core"
import { Effect, Schema } from "effect"
import { Hono } from "hono"
import { requireScope } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { paginatedEnvelope } from "../envelope.js"
import { decodeJson, decodeQuery } from "../validation.js"

/** GET /webhooks/{id}/deliveries: page 1.., limit 1-100 (default 25), status and eventType filters. */
export const DeliveriesParams = Schema.Struct({
  page: Schema.optionalWith(PageParam, { default: () => 1 }),
  limit: Schema.optionalWith(limitParam(webhookLimits.maxPageSize), { default: () => webhookLimits.pageSize }),
  status: Schema.optional(DeliveryStatus),
  eventType: Schema.optional(ReceivedEventType),
})

/** An endpoint as the API answers it: the spec's fields, plus why it was disabled automatically. */
const webhookBody = (endpoint: WebhookEndpoint, totalDeliveries: number) => ({
  id: endpoint.id,
  url: endpoint.url,
  events: endpoint.events,
  description: endpoint.description,
  active: endpoint.active,
  secretPrefix: endpoint.secretPrefix,
  totalDeliveries,
  disabledReason: endpoint.disabledReason,
  createdAt: endpoint.createdAt.toISOString(),
  updatedAt: endpoint.updatedAt.toISOString(),
})

const iso = (date: Date | null) => (date === null ? null : date.toISOString())

const deliveryBody = (delivery: WebhookDelivery) => ({
  id: delivery.id,
  eventId: delivery.eventId,
  eventType: delivery.eventType,
  kind: delivery.kind,
  status: delivery.status,
  attempts: delivery.attempts,
  lastStatusCode: delivery.lastStatusCode,
  lastError: delivery.lastError,
  createdAt: delivery.createdAt.toISOString(),
  updatedAt: delivery.updatedAt.toISOString(),
  completedAt: iso(delivery.completedAt),
})

const attemptBody = (attempt: WebhookAttempt) => ({
  id: attempt.id,
  attempt: attempt.attempt,
  success: attempt.succeeded,
  statusCode: attempt.statusCode,
  durationMs: attempt.durationMs,
  responseSnippet: attempt.responseSnippet,
  error: attempt.error,
  startedAt: attempt.startedAt.toISOString(),
})

const read = requireScope("webhooks:read")
const write = requireScope("webhooks:write")

export const webhookRoutes = new Hono<MailroomEnv>()
  .get("/webhooks", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const webhooks = yield* Webhooks
      const all = yield* webhooks.list(c.get("account"))
      return c.json({ webhooks: all.map((e) => webhookBody(e.endpoint, e.totalDeliveries)) })
    })))
  .post("/webhooks", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, CreateWebhookInput)
      const webhooks = yield* Webhooks
      const { endpoint, secret } = yield* webhooks.create(c.get("account"), body)
      return c.json({
        webhook: webhookBody(endpoint, 0),
        secret,
        message: "Webhook created. Store the secret now: it is shown only once.",
      }, 201)
    })))
  .get("/webhooks/:id", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const webhooks = yield* Webhooks
      const { endpoint, totalDeliveries, stats } = yield* webhooks.get(c.get("account"), c.req.param("id"))
      return c.json({ webhook: webhookBody(endpoint, totalDeliveries), stats })
    })))
  .patch("/webhooks/:id", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, UpdateWebhookInput)
      const webhooks = yield* Webhooks
      const { endpoint, totalDeliveries } = yield* webhooks.update(c.get("account"), c.req.param("id"), body)
      return c.json({ webhook: webhookBody(endpoint, totalDeliveries), message: "Webhook updated." })
    })))
  .delete("/webhooks/:id", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const webhooks = yield* Webhooks
      yield* webhooks.remove(c.get("account"), c.req.param("id"))
      return c.json({ message: "Webhook deleted. No further events will be delivered to it." })
    })))
  .post("/webhooks/:id/rotate", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const webhooks = yield* Webhooks
      const rotated = yield* webhooks.rotate(c.get("account"), c.req.param("id"))
      return c.json({ id: rotated.id, secret: rotated.secret, previousSecretValidUntil: rotated.previousSecretValidUntil.toISOString() })
    })))
  .post("/webhooks/:id/test", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      // The body is optional: no body sends email.delivered.
      const declared = c.req.header("content-length")
      const hasBody = c.req.raw.body !== null && declared !== "0"
      const body = hasBody ? yield* decodeJson(c, TestWebhookInput) : {}
      const webhooks = yield* Webhooks
      return c.json(yield* webhooks.test(c.get("account"), c.req.param("id"), body.eventType))
    })))
  .patch("/webhooks/:id/failure-settings", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, FailureSettingsInput)
      const webhooks = yield* Webhooks
      const endpoint = yield* webhooks.updateFailureSettings(c.get("account"), c.req.param("id"), body)
      return c.json({ webhookId: endpoint.id, failureSettings: endpoint.failureSettings, message: "Failure settings updated." })
    })))
  .get("/webhooks/:id/health", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const webhooks = yield* Webhooks
      const health = yield* webhooks.health(c.get("account"), c.req.param("id"))
      return c.json({
        webhookId: health.endpoint.id,
        status: health.badge,
        active: health.endpoint.active,
        disabledReason: health.endpoint.disabledReason,
        consecutiveFailures: health.endpoint.streak.consecutiveFailures,
        stats: {
          period: "24h",
          totalDeliveries: health.totalDeliveries,
          successfulDeliveries: health.successfulDeliveries,
          successRate: health.successRate,
        },
      })
    })))
  .get("/webhooks/:id/deliveries", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const params = yield* decodeQuery(c, DeliveriesParams)
      const webhooks = yield* Webhooks
      const page = yield* webhooks.deliveries(c.get("account"), c.req.param("id"), params)
      return c.json(paginatedEnvelope(page.deliveries.map(deliveryBody), params, page.total))
    })))
  .get("/webhooks/:id/deliveries/:deliveryId", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const webhooks = yield* Webhooks
      const { delivery, attempts } = yield* webhooks.delivery(c.get("account"), c.req.param("id"), c.req.param("deliveryId"))
      return c.json({ delivery: { ...deliveryBody(delivery), attemptHistory: attempts.map(attemptBody) } })
    })))
  .post("/webhooks/:id/deliveries/:deliveryId/retry", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const webhooks = yield* Webhooks
      const retry = yield* webhooks.retryDelivery(c.get("account"), c.req.param("id"), c.req.param("deliveryId"))
      return c.json({
        delivery: deliveryBody(retry),
        retryOf: c.req.param("deliveryId"),
        message: "A webhook.retry event naming the original delivery is queued for the endpoint.",
      }, 202)
    })))
