/** /v1/emails: reading a message back (GET /emails/{id}: not shown in the spec). The sending routes (send, batch,
 *  schedule, cancel) join this file with the Sending service. */
import { type MessageDetails, Messages } from "@mailroom/core"
import { Effect, Schema } from "effect"
import { Hono } from "hono"
import { requireScope } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { ok } from "../envelope.js"

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

const toResponse = ({ message, status, events }: MessageDetails): typeof MessageResponse.Type => ({
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
const encodeMessage = (details: MessageDetails) => Effect.orDie(Schema.encode(MessageResponse)(toResponse(details)))

export const emailRoutes = new Hono<MailroomEnv>()
  .get("/emails/:id", requireScope("emails:send"), (c) =>
    c.get("run")(Effect.gen(function* () {
      const messages = yield* Messages
      const details = yield* messages.get(c.get("account"), c.req.param("id"))
      return c.json(ok(yield* encodeMessage(details)))
    })))
