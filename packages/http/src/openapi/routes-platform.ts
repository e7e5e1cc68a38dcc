/** The sending and platform routes (emails, domains, webhooks, inbound reports) as the OpenAPI document describes
 *  them, with the schemas their routes decode with. */
import {
  BatchInput, BatchResult, CreateDomainInput, CreateWebhookInput, FailureSettingsInput, ScheduleInput, ScheduleResult,
  SendInput, SendResult, TestWebhookInput, UpdateWebhookInput,
} from "@mailroom/core"
import { Schema } from "effect"
import { DomainsParams } from "../routes/domains.js"
import { MessageResponse } from "../routes/emails.js"
import { DeliveriesParams } from "../routes/webhooks.js"
import { Id, Ok, Paginated, type RouteDescription } from "./describe.js"
import {
  AttemptResponse, Deleted, FailureSettingsResponse, WebhookStats, CancelResponse, DeliveryResponse, DomainResponse, Message, ReportOutcomes,
  WebhookHealthResponse, WebhookResponse, WebhookTestResponse,
} from "./response-schemas.js"

const send = { apiKey: "emails:send" } as const
const byId = { id: Id }
const idempotency = {
  "Idempotency-Key": "Repeat a request with the same key and body to get the first answer again, for 24 hours",
}

const sendExample = {
  from: { email: "hello@example.com", name: "Example" },
  to: [{ email: "ada@example.com" }],
  content: { subject: "Welcome", html: "<p>Hello Ada</p>", text: "Hello Ada" },
}

const sendErrors = [
  "SENDER_DOMAIN_NOT_VERIFIED", "QUOTA_EXCEEDED", "IDEMPOTENCY_KEY_REUSED", "TOPIC_NOT_FOUND", "RESOURCE_NOT_FOUND",
  "PLAN_UPGRADE_REQUIRED", "TEMPLATE_NOT_FOUND", "TEMPLATE_NOT_PUBLISHED", "TEMPLATE_RETIRED", "MISSING_TEMPLATE_VARIABLES",
  "SENDER_NOT_ALLOWED",
] as const

const emails: ReadonlyArray<RouteDescription> = [
  {
    method: "post", path: "/v1/emails/send", tag: "Emails", summary: "Send a message", access: send, headers: idempotency,
    body: { schema: SendInput, example: sendExample },
    success: { status: 200, description: "Accepted for delivery", schema: Ok(SendResult) }, errors: sendErrors,
  },
  {
    method: "post", path: "/v1/emails/batch", tag: "Emails", summary: "Send a batch of messages", access: send,
    headers: idempotency, body: {
      schema: BatchInput,
      example: {
        from: sendExample.from, content: { subject: "Hello {{name}}", text: "Hello {{name}}" },
        recipients: [{ to: { email: "ada@example.com" }, variables: { name: "Ada" } }],
      },
    },
    success: { status: 200, description: "Accepted for delivery", schema: Ok(BatchResult) }, errors: sendErrors,
  },
  {
    method: "post", path: "/v1/emails/schedule", tag: "Emails", summary: "Schedule a message", access: send,
    headers: idempotency, body: { schema: ScheduleInput, example: { ...sendExample, scheduledFor: "2030-01-01T09:00:00Z" } },
    success: { status: 200, description: "Scheduled", schema: Ok(ScheduleResult) }, errors: sendErrors,
  },
  {
    method: "delete", path: "/v1/emails/schedule/{id}", tag: "Emails", summary: "Cancel a scheduled message", access: send,
    params: byId, success: { status: 200, description: "Cancelled", schema: Ok(CancelResponse) },
    errors: ["RESOURCE_NOT_FOUND", "INVALID_STATUS_TRANSITION"],
  },
  {
    method: "get", path: "/v1/emails/{id}", tag: "Emails", summary: "Read a message, its recipients and events",
    access: send, params: byId,
    success: { status: 200, description: "The message", schema: Ok(MessageResponse) }, errors: ["RESOURCE_NOT_FOUND"],
  },
]

const domainsRead = { apiKey: "domains:read" } as const
const domainsWrite = { apiKey: "domains:write" } as const

const domains: ReadonlyArray<RouteDescription> = [
  {
    method: "get", path: "/v1/domains", tag: "Domains", summary: "List sending domains", access: domainsRead,
    query: DomainsParams, success: { status: 200, description: "A page of domains", schema: Paginated(DomainResponse) }, errors: [],
  },
  {
    method: "post", path: "/v1/domains", tag: "Domains", summary: "Add a sending domain", access: domainsWrite,
    body: { schema: CreateDomainInput, example: { hostname: "mail.example.com" } },
    success: { status: 201, description: "The domain and the records to publish", schema: Ok(DomainResponse) },
    errors: ["DOMAIN_ALREADY_EXISTS", "PLAN_UPGRADE_REQUIRED", "API_KEY_LIMIT_REACHED"],
  },
  {
    method: "get", path: "/v1/domains/{id}", tag: "Domains", summary: "Read a domain", access: domainsRead, params: byId,
    success: { status: 200, description: "The domain", schema: Ok(DomainResponse) }, errors: ["DOMAIN_NOT_FOUND"],
  },
  {
    method: "post", path: "/v1/domains/{id}/verify", tag: "Domains", summary: "Check a domain's DNS records",
    access: domainsWrite, params: byId,
    success: { status: 200, description: "The domain after the check", schema: Ok(DomainResponse) },
    errors: ["DOMAIN_NOT_FOUND", "DNS_VERIFICATION_FAILED", "DNS_RECORD_MISSING", "DNS_LOOKUP_ERROR"],
  },
  {
    method: "delete", path: "/v1/domains/{id}", tag: "Domains", summary: "Remove a domain", access: domainsWrite, params: byId,
    success: { status: 200, description: "Removed", schema: Ok(Deleted) }, errors: ["DOMAIN_NOT_FOUND"],
  },
]

const webhooksRead = { apiKey: "webhooks:read" } as const
const webhooksWrite = { apiKey: "webhooks:write" } as const
const byDelivery = { id: Id, deliveryId: Id }

const webhooks: ReadonlyArray<RouteDescription> = [
  {
    method: "get", path: "/v1/webhooks", tag: "Webhooks", summary: "List webhook endpoints", access: webhooksRead,
    success: { status: 200, description: "Every endpoint", schema: Schema.Struct({ webhooks: Schema.Array(WebhookResponse) }) },
    errors: [],
  },
  {
    method: "post", path: "/v1/webhooks", tag: "Webhooks", summary: "Add a webhook endpoint", access: webhooksWrite,
    body: { schema: CreateWebhookInput, example: { url: "https://example.com/hooks/mailroom", events: ["email.delivered"] } },
    success: {
      status: 201, description: "The endpoint and its signing secret, shown only here",
      schema: Schema.Struct({ webhook: WebhookResponse, secret: Schema.String, message: Schema.String }),
    },
    errors: ["WEBHOOK_EVENT_UNKNOWN", "API_KEY_LIMIT_REACHED", "PLAN_UPGRADE_REQUIRED"],
  },
  {
    method: "get", path: "/v1/webhooks/{id}", tag: "Webhooks", summary: "Read a webhook endpoint", access: webhooksRead,
    params: byId,
    success: { status: 200, description: "The endpoint", schema: Schema.Struct({ webhook: WebhookResponse, stats: WebhookStats }) },
    errors: ["NOT_FOUND"],
  },
  {
    method: "patch", path: "/v1/webhooks/{id}", tag: "Webhooks", summary: "Update a webhook endpoint", access: webhooksWrite,
    params: byId, body: { schema: UpdateWebhookInput },
    success: { status: 200, description: "Updated", schema: Schema.Struct({ webhook: WebhookResponse, message: Schema.String }) },
    errors: ["NOT_FOUND", "WEBHOOK_EVENT_UNKNOWN"],
  },
  {
    method: "delete", path: "/v1/webhooks/{id}", tag: "Webhooks", summary: "Delete a webhook endpoint", access: webhooksWrite,
    params: byId, success: { status: 200, description: "Deleted", schema: Message }, errors: ["NOT_FOUND"],
  },
  {
    method: "post", path: "/v1/webhooks/{id}/rotate", tag: "Webhooks", summary: "Rotate the signing secret",
    access: webhooksWrite, params: byId,
    success: {
      status: 200, description: "The new secret; the previous one stays valid for a while",
      schema: Schema.Struct({ id: Schema.String, secret: Schema.String, previousSecretValidUntil: Schema.String }),
    },
    errors: ["NOT_FOUND"],
  },
  {
    method: "post", path: "/v1/webhooks/{id}/test", tag: "Webhooks", summary: "Send a test event", access: webhooksWrite,
    params: byId, body: { schema: TestWebhookInput, required: false, example: { eventType: "email.delivered" } },
    success: { status: 200, description: "What the endpoint answered", schema: WebhookTestResponse },
    errors: ["NOT_FOUND", "WEBHOOK_EVENT_UNKNOWN"],
  },
  {
    method: "patch", path: "/v1/webhooks/{id}/failure-settings", tag: "Webhooks", summary: "Change the failure settings",
    access: webhooksWrite, params: byId, body: { schema: FailureSettingsInput },
    success: {
      status: 200, description: "Updated",
      schema: Schema.Struct({ webhookId: Schema.String, failureSettings: FailureSettingsResponse, message: Schema.String }),
    },
    errors: ["NOT_FOUND"],
  },
  {
    method: "get", path: "/v1/webhooks/{id}/health", tag: "Webhooks", summary: "Read an endpoint's health",
    access: webhooksRead, params: byId,
    success: { status: 200, description: "The last 24 hours", schema: WebhookHealthResponse }, errors: ["NOT_FOUND"],
  },
  {
    method: "get", path: "/v1/webhooks/{id}/deliveries", tag: "Webhooks", summary: "List an endpoint's deliveries",
    access: webhooksRead, params: byId, query: DeliveriesParams,
    success: { status: 200, description: "A page of deliveries", schema: Paginated(DeliveryResponse) }, errors: ["NOT_FOUND"],
  },
  {
    method: "get", path: "/v1/webhooks/{id}/deliveries/{deliveryId}", tag: "Webhooks",
    summary: "Read a delivery and its attempts", access: webhooksRead, params: byDelivery,
    success: {
      status: 200, description: "The delivery",
      schema: Schema.Struct({
        delivery: Schema.Struct({ ...DeliveryResponse.fields, attemptHistory: Schema.Array(AttemptResponse) }),
      }),
    },
    errors: ["NOT_FOUND"],
  },
  {
    method: "post", path: "/v1/webhooks/{id}/deliveries/{deliveryId}/retry", tag: "Webhooks",
    summary: "Deliver an event again", access: webhooksWrite, params: byDelivery,
    success: {
      status: 202, description: "A retry is queued",
      schema: Schema.Struct({ delivery: DeliveryResponse, retryOf: Schema.String, message: Schema.String }),
    },
    errors: ["NOT_FOUND"],
  },
]

const rawMessage = { contentType: "message/rfc822", schema: Schema.String } as const

const inbound: ReadonlyArray<RouteDescription> = [
  {
    method: "post", path: "/v1/inbound/bounces", tag: "Inbound reports",
    summary: "Record a delivery status notification (RFC 3464)", access: { apiKey: "suppressions:write" }, body: rawMessage,
    success: { status: 200, description: "What was recorded for each recipient", schema: Ok(ReportOutcomes) }, errors: [],
  },
  {
    method: "post", path: "/v1/inbound/complaints", tag: "Inbound reports",
    summary: "Record a feedback-loop report (ARF, RFC 5965)", access: { apiKey: "suppressions:write" }, body: rawMessage,
    success: { status: 200, description: "What was recorded for each recipient", schema: Ok(ReportOutcomes) }, errors: [],
  },
]

export const platformRoutes: ReadonlyArray<RouteDescription> = [...emails, ...domains, ...webhooks, ...inbound]
