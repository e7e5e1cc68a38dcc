/** /v1/emails: sending (POST /emails/send, /emails/batch, /emails/schedule, DELETE /emails/schedule/{id}) through
 *  the Sending service, and reading a message back (GET /emails/{id}: not shown in the spec). The body is read under
 *  the app's 8 MiB limit and decoded by the service, so the facade gets the same errors. Request rates are
 *  perSecondRateLimit's (rate-limit.ts). */
import {
  type BatchInput, BatchResult, type MessageDetails, Messages, type ScheduleInput, ScheduleResult, Sending, type SendInput,
  SendResult,
} from "@mailroom/core"
import { Effect, Schema } from "effect"
import { type Context, Hono } from "hono"
import { requireScope } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { ok } from "../envelope.js"
import { readJson } from "../validation.js"

const Address = Schema.Struct({ email: Schema.String, name: Schema.optional(Schema.String) })

/** A message as GET /emails/{id} answers it. */
export const MessageResponse = Schema.Struct({
  id: Schema.String,
  status: Schema.String,
  stream: Schema.String,
  topicId: Schema.NullOr(Schema.String),
  batchId: Schema.NullOr(Schema.String),
  from: Address,
  replyTo: Schema.NullOr(Address),
  subject: Schema.String,
  categories: Schema.Array(Schema.String),
  tags: Schema.Record({ key: Schema.String, value: Schema.String }),
  metadata: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  track: Schema.Boolean,
  scheduledFor: Schema.NullOr(Schema.Date),
  createdAt: Schema.Date,
  /** The template and release version of a message sent by template; null for inline content. */
  template: Schema.NullOr(Schema.Struct({ id: Schema.String, version: Schema.Number })),
  recipients: Schema.Array(Schema.Struct({
    email: Schema.String,
    name: Schema.NullOr(Schema.String),
    field: Schema.String,
    status: Schema.String,
    attempts: Schema.Number,
    lastResponse: Schema.NullOr(Schema.String),
    updatedAt: Schema.Date,
  })),
  events: Schema.Array(Schema.Struct({
    type: Schema.String,
    recipient: Schema.String,
    occurredAt: Schema.Date,
    smtpResponse: Schema.NullOr(Schema.String),
    bounceType: Schema.NullOr(Schema.String),
    bounceCode: Schema.NullOr(Schema.String),
    bounceReason: Schema.NullOr(Schema.String),
  })),
})

export const messageResponse = ({ message, status, events }: MessageDetails): typeof MessageResponse.Type => ({
  id: message.id,
  status,
  stream: message.content.stream,
  topicId: message.content.topicId,
  batchId: message.batchId,
  from: message.content.from,
  replyTo: message.content.replyTo ?? null,
  subject: message.content.subject,
  categories: message.content.categories,
  tags: message.content.tags,
  metadata: message.content.metadata,
  track: message.content.track,
  scheduledFor: message.scheduledFor,
  createdAt: message.createdAt,
  template: message.content.template === undefined
    ? null
    : { id: message.content.template.id, version: message.content.template.version },
  recipients: message.recipients.map((r) => ({
    email: r.email, name: r.name ?? null, field: r.field, status: r.status, attempts: r.attempts,
    lastResponse: r.lastResponse, updatedAt: r.updatedAt,
  })),
  events: events.map((e) => ({
    type: e.type, recipient: e.recipient, occurredAt: e.occurredAt, smtpResponse: e.smtpResponse,
    bounceType: e.bounceType, bounceCode: e.bounceCode, bounceReason: e.bounceReason,
  })),
})

/** A stored message that does not encode is a bug in the stored data, not bad input: it dies. */
const encodeMessage = (details: MessageDetails) => Effect.orDie(Schema.encode(MessageResponse)(messageResponse(details)))

/** The request's Idempotency-Key header, when sent. */
const idempotencyKey = (c: Context<MailroomEnv>) => ({ idempotencyKey: c.req.header("idempotency-key") })

/** A result of the service encoded for JSON (dates as ISO 8601 strings); a result that does not encode is a bug. */
const encodeResult = <A, I>(schema: Schema.Schema<A, I, never>, result: A) => Effect.orDie(Schema.encode(schema)(result))

const send = requireScope("emails:send")

export const emailRoutes = new Hono<MailroomEnv>()
  .post("/emails/send", send, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* readJson<typeof SendInput.Encoded>(c)
      const result = yield* (yield* Sending).send(c.get("account"), body, idempotencyKey(c))
      return c.json(ok(yield* encodeResult(SendResult, result)))
    })))
  .post("/emails/batch", send, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* readJson<typeof BatchInput.Encoded>(c)
      const result = yield* (yield* Sending).batch(c.get("account"), body, idempotencyKey(c))
      return c.json(ok(yield* encodeResult(BatchResult, result)))
    })))
  .post("/emails/schedule", send, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* readJson<typeof ScheduleInput.Encoded>(c)
      const result = yield* (yield* Sending).schedule(c.get("account"), body, idempotencyKey(c))
      return c.json(ok(yield* encodeResult(ScheduleResult, result)))
    })))
  .delete("/emails/schedule/:id", send, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(yield* (yield* Sending).cancel(c.get("account"), c.req.param("id"))))
    })))
  .get("/emails/:id", requireScope("emails:send"), (c) =>
    c.get("run")(Effect.gen(function* () {
      const messages = yield* Messages
      const details = yield* messages.get(c.get("account"), c.req.param("id"))
      return c.json(ok(yield* encodeMessage(details)))
    })))
