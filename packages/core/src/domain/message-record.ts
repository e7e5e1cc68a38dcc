/** A message as Mailroom keeps it once accepted: its state, its recipients with their delivery status, and the events
 *  each recipient went through (GET /emails/{id}, not shown in the spec). Also the idempotency record of the
 *  sending routes. Spec: sending "States and transitions" (Message rows), rules 1-4,
 *  "Limits". */
import { Schema } from "effect"
import type { AccountId } from "./account.js"
import { Metadata } from "./contact.js"
import { Attachment, EmailAddressInput, type AcceptedMessage, type EnvelopeField, type MessageId, Stream } from "./message.js"

/** scheduled: waiting for its time; queued: accepted for delivery (its recipients say how far it got); cancelled:
 *  a scheduled message cancelled before it was sent. */
export const messageStates = ["scheduled", "queued", "cancelled"] as const
export type MessageState = (typeof messageStates)[number]

/** Where one recipient stands. queued: not tried yet; deferred: a temporary failure, tried again later; delivered,
 *  bounced: final; held: the outcome is unknown and an operator decides (rule 4); dropped: never sent (the
 *  scheduled send failed). */
export const recipientStatuses = ["queued", "deferred", "delivered", "bounced", "held", "dropped"] as const
export const RecipientStatus = Schema.Literal(...recipientStatuses)
export type RecipientStatus = typeof RecipientStatus.Type

/** The stored content of a message: everything of AcceptedMessage but its recipients, which are rows of their own. */
export const StoredContent = Schema.Struct({
  from: EmailAddressInput,
  replyTo: Schema.optional(EmailAddressInput),
  subject: Schema.String,
  html: Schema.optional(Schema.String),
  text: Schema.optional(Schema.String),
  attachments: Schema.Array(Attachment),
  variables: Schema.Record({ key: Schema.String, value: Schema.String }),
  categories: Schema.Array(Schema.String),
  tags: Schema.Record({ key: Schema.String, value: Schema.String }),
  metadata: Schema.NullOr(Metadata),
  stream: Stream,
  topicId: Schema.NullOr(Schema.String),
  track: Schema.Boolean,
  duplicates: Schema.Array(Schema.Struct({
    email: Schema.String,
    field: Schema.Literal("to", "cc", "bcc"),
    index: Schema.Number,
  })),
  /** The template and release version a send by templateId used (absent for inline content); see TemplateUse. */
  template: Schema.optional(Schema.Struct({
    id: Schema.String,
    version: Schema.Number,
    subject: Schema.optional(Schema.String),
    variables: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
    /** Campaign mail: the campaign's brand, which an account template reads in place of its own. */
    brandId: Schema.optional(Schema.String),
  })),
  /** Campaign mail: the campaign, whose id its links and events carry. */
  campaignId: Schema.optional(Schema.String),
  /** Campaign mail: the recipient's contact fields, rendered as {{contact.*}}. */
  contact: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
})
export type StoredContent = typeof StoredContent.Type

export interface MessageRecipient {
  /** Position in the envelope (To, then CC, then BCC): also the suffix of the recipient's Message-ID. */
  readonly position: number
  readonly email: string
  readonly name: string | undefined
  readonly field: EnvelopeField
  readonly status: RecipientStatus
  /** Submissions made so far. */
  readonly attempts: number
  /** The last answer of the receiving server, when there was one. */
  readonly lastResponse: string | null
  readonly updatedAt: Date
}

export interface StoredMessage {
  readonly id: MessageId
  readonly accountId: AccountId
  /** The batch the message belongs to, when it came from POST /emails/batch. */
  readonly batchId: string | null
  readonly state: MessageState
  readonly content: StoredContent
  readonly recipients: ReadonlyArray<MessageRecipient>
  readonly scheduledFor: Date | null
  readonly createdAt: Date
}

/** One thing that happened to one recipient of a message, as GET /emails/{id} lists it. */
export interface MessageEvent {
  readonly id: string
  readonly accountId: AccountId
  readonly messageId: MessageId
  readonly recipient: string
  /** email.queued, email.delivered, email.deferred, email.bounced, email.dropped, … */
  readonly type: string
  readonly occurredAt: Date
  readonly smtpResponse: string | null
  readonly bounceType: string | null
  readonly bounceCode: string | null
  readonly bounceReason: string | null
}

/** The change of one recipient's status after a delivery attempt or a report. */
export interface RecipientUpdate {
  readonly messageId: MessageId
  readonly position: number
  readonly status: RecipientStatus
  /** Added to the recipient's attempts (1 for a submission, 0 for a report that arrived later). */
  readonly addAttempts: number
  readonly lastResponse: string | null
  readonly at: Date
}

/** The stored form of an accepted message with its recipients, all queued (or scheduled). */
export const toStoredMessage = (input: {
  readonly id: MessageId
  readonly accountId: AccountId
  readonly batchId: string | null
  readonly message: AcceptedMessage
  readonly scheduledFor: Date | null
  readonly createdAt: Date
}): StoredMessage => {
  const message = input.message
  const envelope = message.envelope
  return {
    id: input.id,
    accountId: input.accountId,
    batchId: input.batchId,
    state: input.scheduledFor === null ? "queued" : "scheduled",
    // Field by field, in AcceptedMessage's order (the stored JSON keeps it): a rest pattern and a spread followed by
    // a new field both take V8's slow path, which a batch of 1,000 messages pays on every request.
    content: {
      from: message.from,
      replyTo: message.replyTo,
      subject: message.subject,
      html: message.html,
      text: message.text,
      attachments: message.attachments,
      categories: message.categories,
      tags: message.tags,
      metadata: message.metadata,
      stream: message.stream,
      topicId: message.topicId,
      track: message.track,
      variables: message.variables,
      duplicates: envelope.duplicates,
      template: message.template,
    },
    recipients: envelope.recipients.map((recipient, position) => ({
      position,
      email: recipient.email,
      name: recipient.name,
      field: recipient.field,
      status: "queued",
      attempts: 0,
      lastResponse: null,
      updatedAt: input.createdAt,
    })),
    scheduledFor: input.scheduledFor,
    createdAt: input.createdAt,
  }
}

/** The accepted message back from its stored form, for the delivery job. */
export const toAcceptedMessage = (stored: StoredMessage): AcceptedMessage => {
  const { duplicates, campaignId: _campaign, contact: _contact, ...content } = stored.content
  return {
    ...content,
    replyTo: content.replyTo,
    html: content.html,
    text: content.text,
    envelope: {
      recipients: stored.recipients.map((r) => ({ email: r.email as AcceptedMessage["from"]["email"], name: r.name, field: r.field })),
      duplicates,
    },
  }
}

/** The status GET /emails/{id} shows for a message. A scheduled or cancelled message shows its state. Otherwise its
 *  recipients decide, in this order: held when one is held (an operator must look), queued while one is queued or
 *  deferred, then delivered, bounced or dropped when every recipient ended so, and partially_delivered for a mix. */
export const messageStatus = (
  state: MessageState,
  recipients: ReadonlyArray<Pick<MessageRecipient, "status">>,
): string => {
  if (state !== "queued") return state
  const statuses = new Set(recipients.map((r) => r.status))
  if (statuses.has("held")) return "held"
  if (statuses.has("queued") || statuses.has("deferred")) return "queued"
  if (statuses.size === 1) return [...statuses][0]!
  return statuses.size === 0 ? "queued" : "partially_delivered"
}

/** The first answer to a request sent with an Idempotency-Key, kept to answer repeats. */
export interface IdempotencyRecord {
  readonly accountId: AccountId
  readonly key: string
  /** Which route the key was used on (send, batch, schedule): a key is bound to its route as to its body. */
  readonly route: string
  /** SHA-256 of the request body, hex. */
  readonly bodyHash: string
  readonly status: number
  readonly response: unknown
  readonly createdAt: Date
}

/** How long a key is remembered: a repeat after this is a new request (as with Stripe's keys). */
export const idempotencyWindowHours = 24
