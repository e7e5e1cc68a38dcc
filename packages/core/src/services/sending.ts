/** Accepting mail: POST /emails/send, /emails/batch and /emails/schedule, DELETE /emails/schedule/{id}, and the
 *  background task that queues scheduled messages when their time comes. Spec: sending "Sending" (rules 1-3), "Send
 *  responses", the Message rows of "States and transitions"; audience rule 7 and the send-time filtering table.
 *
 *  Acceptance decodes the body with core's schemas, filters the recipients with ONE eligibility query per message or
 *  batch, reserves the quota for the recipients left, and writes the messages (state queued, dropped recipients with
 *  status dropped) with their email.queued and email.dropped events in one Store transaction. Delivery starts from the
 *  email.queued events; it is not done here. */
import { Context, Duration, Effect, Option, Schema } from "effect"
import type { Account, AccountId } from "../domain/account.js"
import type { DomainEvent } from "../domain/event.js"
import { emailEvent, type EmailEventType, eventTemplate } from "../domain/email-event.js"
import type { EmailAddress } from "../domain/email.js"
import {
  applicationSenders, checkAllowedSender, type Design, isApplicationTemplate, type SenderRestriction, subjectOverride,
} from "../domain/design.js"
import {
  acceptBatch, type AcceptedMessage, acceptSchedule, acceptSend, BatchInput, EmailAddressInput,
  type MessageId, ScheduleInput, SendInput, sendOptionFields, type Stream, Subject,
} from "../domain/message.js"
import { type MessageEvent, type StoredMessage, toStoredMessage } from "../domain/message-record.js"
import type { SendScope } from "../domain/suppression.js"
import { ResourceNotFound, type StoreError, ValidationFailed } from "../errors.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import { decodeInput } from "../validation.js"
import { Background } from "./background.js"
import { checkSender } from "./domains.js"
import { checkIdempotencyKey, Idempotency, requestFingerprint } from "./idempotency.js"
import { Quota } from "./quota.js"
import { inBatchRecipient, makeReleaseCache, renderRelease, resolveSendable, type TemplateApplication } from "./template-sends.js"
import { serviceMethod } from "./tracing.js"
import { currentDate } from "../internal/time.js"

/** Settings of the scheduled-send task. */
export class SendingConfig extends Context.Reference<SendingConfig>()("@mailroom/core/SendingConfig", {
  defaultValue: () => ({
    /** How often due scheduled messages are looked for. */
    scheduledPollInterval: Duration.seconds(1),
    /** Most scheduled messages queued in one pass (a pass goes on while it finds this many). */
    scheduledBatchSize: 100,
  }),
}) {}

/** POST /emails/send answers this ("Send responses"). `to` lists the distinct To addresses. */
export const SendResult = Schema.Struct({
  id: Schema.String,
  status: Schema.Literal("queued"),
  from: Schema.String,
  to: Schema.Array(Schema.String),
  subject: Schema.String,
  createdAt: Schema.Date,
})
export type SendResult = typeof SendResult.Type

/** POST /emails/batch answers this. `totalRecipients` is the number of entries (one message each); `messageIds`
 *  (not shown in the spec) gives each entry's message id, in entry order, for GET /emails/{id}. */
export const BatchResult = Schema.Struct({
  batchId: Schema.String,
  status: Schema.Literal("queued"),
  totalRecipients: Schema.Number,
  messageIds: Schema.Array(Schema.String),
  createdAt: Schema.Date,
})
export type BatchResult = typeof BatchResult.Type

/** POST /emails/schedule answers this. */
export const ScheduleResult = Schema.Struct({
  id: Schema.String,
  status: Schema.Literal("scheduled"),
  scheduledFor: Schema.Date,
  createdAt: Schema.Date,
})
export type ScheduleResult = typeof ScheduleResult.Type

/** DELETE /emails/schedule/{id} answers this (not shown in the spec). */
export interface CancelResult {
  readonly id: string
  readonly status: "cancelled"
}

export interface SendOptions {
  /** The Idempotency-Key of the request: a repeat with the same body answers the first result. */
  readonly idempotencyKey?: string | undefined
  /** The application credential behind the request, when it is one: it reaches only its application's templates and
   *  sends only from its allowed senders. */
  readonly application?: TemplateApplication | undefined
}

/** The body of POST /designs/{id}/send (the spec shows `to` and `variables`; the rest is the send body's). `from`
 *  defaults to the application credential's first allowed sender; `variables` may hold any JSON value, which an
 *  application template's schema types; `subject` overrides an account template's subject. */
export const DesignSendInput = Schema.Struct({
  from: Schema.optional(EmailAddressInput),
  to: Schema.Array(EmailAddressInput).pipe(Schema.minItems(1, { message: () => "give at least one recipient" })),
  cc: Schema.optional(Schema.Array(EmailAddressInput)),
  bcc: Schema.optional(Schema.Array(EmailAddressInput)),
  replyTo: Schema.optional(EmailAddressInput),
  subject: Schema.optional(Subject),
  variables: Schema.optional(Schema.Record({
    key: Schema.String.pipe(Schema.minLength(1, { message: () => "a variable name must not be empty" })),
    value: Schema.Unknown,
  })),
  ...sendOptionFields,
})
export type DesignSendInput = typeof DesignSendInput.Type

/** Why a recipient that is not filtered by eligibility was dropped. */
export const dropReasons = {
  /** A copy of an address already in the envelope (differing only in case). */
  duplicate: "DUPLICATE_RECIPIENT",
  /** A scheduled message came due while the account's monthly quota could not hold its recipients. */
  quota: "QUOTA_EXCEEDED",
} as const

const scopeOf = (content: { readonly stream: Stream; readonly topicId: string | null }): SendScope => ({
  kind: content.stream,
  topicId: content.topicId,
})

const uniqueAddresses = (messages: ReadonlyArray<StoredMessage>): ReadonlyArray<EmailAddress> =>
  [...new Set(messages.flatMap((message) => message.recipients.map((r) => r.email as EmailAddress)))]

export class Sending extends Effect.Service<Sending>()("@mailroom/core/Sending", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const quota = yield* Quota
    const idempotency = yield* Idempotency
    const background = yield* Background
    const config = yield* SendingConfig
    const method = yield* serviceMethod
    const now = currentDate
    const releases = makeReleaseCache()

    /** The email.* event of one recipient, twice: in the outbox (webhooks, delivery) and in the message's log
     *  (GET /emails/{id}). A dropped recipient's reason is its bounceReason in both (the envelope carries bounceReason
     *  on email.dropped, "when available"), and `details.reason` in the outbox. */
    const recipientEvent = (message: StoredMessage, type: EmailEventType, recipient: string, at: Date, reason?: string) => {
      const outbox = emailEvent({
        id: ids.make("event", at), accountId: message.accountId, type, messageId: message.id, recipient,
        sender: message.content.from.email, subject: message.content.subject, occurredAt: at, reason, bounceReason: reason,
        metadata: message.content.metadata, template: eventTemplate(message.content.template),
      })
      const log: MessageEvent = {
        id: ids.make("messageEvent", at), accountId: message.accountId, messageId: message.id, recipient, type,
        occurredAt: at, smtpResponse: null, bounceType: null, bounceCode: null, bounceReason: reason ?? null,
      }
      return { outbox, log }
    }

    const appendEvents = (events: ReadonlyArray<{ readonly outbox: DomainEvent; readonly log: MessageEvent }>) =>
      events.length === 0
        ? Effect.void
        : Effect.zipRight(store.events.append(events.map((e) => e.outbox)), store.messages.appendEvents(events.map((e) => e.log)))

    /** email.dropped for the copies of addresses discarded from the envelope. */
    const duplicateEvents = (message: StoredMessage, at: Date) =>
      message.content.duplicates.map((d) => recipientEvent(message, "email.dropped", d.email, at, dropReasons.duplicate))

    /** The reasons of the addresses a send of `scope` drops, from one eligibility query over all of them. */
    const filter = (accountId: AccountId, scope: SendScope, addresses: ReadonlyArray<EmailAddress>) =>
      Effect.map(
        store.suppressions.eligibility(accountId, scope, addresses),
        (eligibility) => new Map<string, string>(eligibility.dropped.map((d) => [d.email, d.reason])),
      )

    /** suppressionGroupId names one of the account's topics. */
    const checkTopic = (account: Account, message: AcceptedMessage) =>
      message.topicId === null
        ? Effect.void
        : Effect.flatMap(store.topics.findById(account.id, message.topicId), Option.match({
          onNone: () => Effect.fail(new ValidationFailed({
            field: "suppressionGroupId",
            detail: `no topic ${message.topicId} exists in this account`,
          })),
          onSome: () => Effect.void,
        }))

    /** Messages that name a template take its live release: each is rendered once now (a missing variable, an unsafe
     *  URL value, a retired or unpublished template is refused before anything is queued), takes the rendered
     *  subject and records the template and version, which delivery renders from. Messages without one pass as they
     *  are. Every message of a batch names the same template. Answers the messages and the sender restriction of the
     *  send (`senderRestriction`). */
    const withTemplate = (
      account: Account,
      application: TemplateApplication,
      messages: ReadonlyArray<AcceptedMessage>,
      batch = false,
    ) =>
      Effect.gen(function* () {
        const templateId = messages[0]?.templateId
        if (templateId === undefined) return { messages, senders: application }
        const template = yield* resolveSendable(store, account.id, application, templateId, releases)
        // An empty subject is the placeholder of acceptance for "none given" (Subject is never empty).
        const requested = messages[0]!.subject === "" ? undefined : messages[0]!.subject
        const subject = yield* subjectOverride(template.design, requested)
        const rendered: Array<AcceptedMessage> = []
        for (const [index, message] of messages.entries()) {
          const variables = message.template?.variables ?? message.variables
          const output = yield* renderRelease(template, { variables, subject }).pipe(
            Effect.mapError((error) => batch ? inBatchRecipient(index)(error) : error))
          rendered.push({
            ...message,
            subject: output.subject,
            template: { id: template.design.id, version: template.release.version, subject, variables: message.template?.variables },
          })
        }
        return { messages: rendered, senders: yield* senderRestriction(account, application, template.design) }
      })

    /** The account/application table's Sender row: an application credential's own allowed senders; an account key
     *  sending an application template, that application's; an account template, none. */
    const senderRestriction = (account: Account, application: TemplateApplication, design: Pick<Design, "applicationKey">) =>
      application !== null || !isApplicationTemplate(design)
        ? Effect.succeed<SenderRestriction | null>(application)
        : Effect.map(store.appCredentials.ofApplication(account.id, design.applicationKey), (credentials) =>
          applicationSenders(design.applicationKey, credentials))

    /** The sender rules: the allowed senders of the send's restriction, then the account's sending domains. */
    const checkFrom = (account: Account, senders: SenderRestriction | null, from: string) =>
      Effect.zipRight(checkAllowedSender(senders, from), checkSender(store, account.id, from))

    /** Queues accepted messages that share one scope (a send, or the entries of a batch): one eligibility query, the
     *  quota of the recipients left, one multi-row insert, and their events. Joins the caller's transaction. */
    const queue = (
      account: Account,
      messages: ReadonlyArray<AcceptedMessage>,
      batchId: string | null,
      at: Date,
    ) =>
      Effect.gen(function* () {
        const drafts = messages.map((message) =>
          toStoredMessage({ id: ids.make("message", at) as MessageId, accountId: account.id, batchId, message, scheduledFor: null, createdAt: at }))
        const dropped = yield* filter(account.id, scopeOf(drafts[0]!.content), uniqueAddresses(drafts))
        const stored = drafts.map((message): StoredMessage => ({
          ...message,
          recipients: message.recipients.map((r) => dropped.has(r.email) ? { ...r, status: "dropped" } : r),
        }))
        yield* store.messages.insertMany(stored)
        yield* appendEvents(stored.flatMap((message) => [
          ...message.recipients.map((r) =>
            r.status === "dropped"
              ? recipientEvent(message, "email.dropped", r.email, at, dropped.get(r.email))
              : recipientEvent(message, "email.queued", r.email, at)),
          ...duplicateEvents(message, at),
        ]))
        // Last: the counter's row stays locked until commit, so every concurrent send of the account waits on it for
        // as short a time as possible. A refusal rolls back what was written above.
        const kept = stored.reduce((total, m) => total + m.recipients.filter((r) => r.status === "queued").length, 0)
        yield* quota.reserve(account, kept)
        return stored
      })

    /** Runs `work` in one transaction, once per Idempotency-Key when one is given: a repeat with the same body answers
     *  the first result (stored as JSON, decoded back with `schema`) without running `work` again, so that it answers
     *  alike even when the topic it named was deleted since. */
    const once = <A, I, E, R>(
      account: Account,
      route: string,
      fields: unknown,
      options: SendOptions,
      schema: Schema.Schema<A, I, never>,
      work: Effect.Effect<A, E, R>,
    ) =>
      Effect.gen(function* () {
        if (options.idempotencyKey === undefined) return yield* store.transaction(work)
        const key = yield* checkIdempotencyKey(options.idempotencyKey)
        const answer = yield* idempotency.run(
          account.id,
          { key, route, bodyHash: requestFingerprint(fields) },
          Effect.flatMap(work, (result) =>
            Effect.map(Effect.orDie(Schema.encode(schema)(result)), (body) => ({ status: 200, body }))),
        )
        return yield* Effect.orDie(Schema.decodeUnknown(schema)(answer.body))
      })

    /** POST /emails/send. */
    const send = method("Sending.send")(function* (account: Account, fields: typeof SendInput.Encoded, options: SendOptions = {}) {
      const accepted = yield* acceptSend(yield* decodeInput(SendInput, fields))
      return yield* sendOne(account, "send", fields, options, accepted)
    })

    /** One message, accepted: its template resolved and rendered, its sender and topic checked, queued. */
    const sendOne = (account: Account, route: string, fields: unknown, options: SendOptions, accepted: AcceptedMessage) =>
      once(account, route, fields, options, SendResult, Effect.gen(function* () {
        const application = options.application ?? null
        const { messages: [message], senders } = yield* withTemplate(account, application, [accepted])
        yield* checkTopic(account, message!)
        yield* checkFrom(account, senders, message!.from.email)
        const at = yield* now
        const [stored] = yield* queue(account, [message!], null, at)
        return {
          id: stored!.id,
          status: "queued",
          from: message!.from.email,
          to: message!.envelope.recipients.filter((r) => r.field === "to").map((r) => r.email),
          subject: message!.subject,
          createdAt: at,
        } satisfies SendResult
      }))

    /** POST /designs/{id}/send: the live release of the template to `to` (cc, bcc), with the Idempotency-Key the route
     *  requires. The sender defaults to the application credential's first allowed sender, else the brand's sender. */
    const sendTemplate = method("Sending.sendTemplate")(function* (
      account: Account,
      templateId: string,
      fields: typeof DesignSendInput.Encoded,
      options: SendOptions,
    ) {
      const input = yield* decodeInput(DesignSendInput, fields)
      const application = options.application ?? null
      // Without `from`: the first allowed sender (the credential's, or an application template's application's), else
      // the brand's sender (the theme the template renders with: live for account templates, frozen for application ones).
      const design = application === null ? Option.getOrUndefined(yield* store.designs.findById(account.id, templateId)) : undefined
      const restriction = design === undefined ? application : yield* senderRestriction(account, application, design)
      const fallback = restriction?.allowedSenders[0]
      const brandSender = input.from !== undefined || fallback !== undefined
        ? null
        : (yield* resolveSendable(store, account.id, application, templateId)).theme.sender
      const from = input.from ?? (fallback !== undefined
        ? { email: fallback }
        : brandSender === null ? undefined : { email: brandSender.email, name: brandSender.name })
      if (from === undefined) {
        return yield* Effect.fail(new ValidationFailed({
          field: "from",
          detail: "is required: neither the request nor the template's brand names a sender, so give the address the mail comes from",
        }))
      }
      const variables = input.variables ?? {}
      const strings = Object.values(variables).every((value) => typeof value === "string")
      const sendFields = {
        from: from as typeof SendInput.Encoded["from"],
        to: input.to, cc: input.cc, bcc: input.bcc, replyTo: input.replyTo,
        content: { templateId, ...(input.subject === undefined ? {} : { subject: input.subject }) },
        categories: input.categories, tags: input.tags, metadata: input.metadata, attachments: input.attachments,
        stream: input.stream, suppressionGroupId: input.suppressionGroupId, track: input.track,
      }
      const accepted = yield* acceptSend(yield* decodeInput(SendInput, sendFields))
      const message: AcceptedMessage = strings
        ? { ...accepted, variables: variables as Record<string, string> }
        : { ...accepted, template: { id: templateId, version: 0, variables } }
      return yield* sendOne(account, `design-send:${templateId}`, fields, options, message)
    })

    /** POST /emails/batch: one message per entry, all filtered with one query and written with one insert. */
    const batch = method("Sending.batch")(function* (account: Account, fields: typeof BatchInput.Encoded, options: SendOptions = {}) {
      const accepted = yield* acceptBatch(yield* decodeInput(BatchInput, fields))
      return yield* once(account, "batch", fields, options, BatchResult, Effect.gen(function* () {
        const application = options.application ?? null
        const { messages, senders } = yield* withTemplate(account, application, accepted, true)
        yield* checkTopic(account, messages[0]!)
        yield* checkFrom(account, senders, messages[0]!.from.email)
        const at = yield* now
        const batchId = ids.make("batch", at)
        const stored = yield* queue(account, messages, batchId, at)
        return {
          batchId,
          status: "queued",
          totalRecipients: messages.length,
          messageIds: stored.map((m) => m.id),
          createdAt: at,
        } satisfies BatchResult
      }))
    })

    /** POST /emails/schedule: kept as scheduled; filtering and the quota wait until it is queued. */
    const schedule = method("Sending.schedule")(function* (account: Account, fields: typeof ScheduleInput.Encoded, options: SendOptions = {}) {
      const input = yield* decodeInput(ScheduleInput, fields)
      const accepted = yield* acceptSchedule(input, yield* now)
      return yield* once(account, "schedule", fields, options, ScheduleResult, Effect.gen(function* () {
        const application = options.application ?? null
        const { messages: [resolved], senders } = yield* withTemplate(account, application, [accepted.message])
        yield* checkTopic(account, resolved!)
        yield* checkFrom(account, senders, resolved!.from.email)
        const at = yield* now
        const message = toStoredMessage({
          id: ids.make("message", at) as MessageId, accountId: account.id, batchId: null, message: resolved!,
          scheduledFor: accepted.scheduledFor, createdAt: at,
        })
        yield* store.messages.insertMany([message])
        yield* appendEvents(duplicateEvents(message, at))
        return { id: message.id, status: "scheduled", scheduledFor: accepted.scheduledFor, createdAt: at } satisfies ScheduleResult
      }))
    })

    /** DELETE /emails/schedule/{id}: RESOURCE_NOT_FOUND once the message was queued (or cancelled), and for another
     *  account's id. */
    const cancel = method("Sending.cancel")(function* (account: Account, id: string) {
      const cancelled = yield* store.messages.moveScheduled(account.id, id as MessageId, "cancelled")
      if (!cancelled) return yield* Effect.fail(new ResourceNotFound({ resource: "scheduled message", id }))
      return { id, status: "cancelled" } satisfies CancelResult
    }, store.transaction)

    /** Queues one due scheduled message in its own transaction: filtered now, its quota reserved now. When the quota
     *  cannot hold it, every recipient is dropped (email.dropped, QUOTA_EXCEEDED). Nothing when a concurrent cancel or
     *  another process got there first. */
    const release = (accountId: AccountId, id: MessageId, at: Date) =>
      store.transaction(Effect.gen(function* () {
        if (!(yield* store.messages.moveScheduled(accountId, id, "queued"))) return
        const found = yield* store.messages.findById(accountId, id)
        if (Option.isNone(found)) return
        const message = found.value
        const account = yield* store.accounts.findById(accountId)
        const dropped = yield* filter(accountId, scopeOf(message.content), uniqueAddresses([message]))
        const kept = message.recipients.filter((r) => !dropped.has(r.email))
        const reserved = Option.isNone(account)
          ? false
          : (yield* Effect.either(quota.reserve(account.value, kept.length)))._tag === "Right"
        const reasonOf = (email: string) => reserved ? dropped.get(email) : (dropped.get(email) ?? dropReasons.quota)
        const droppedNow = message.recipients.filter((r) => reasonOf(r.email) !== undefined)
        yield* store.messages.updateRecipients(accountId, droppedNow.map((r) => ({
          messageId: id, position: r.position, status: "dropped", addAttempts: 0, lastResponse: null, at,
        })))
        yield* appendEvents(message.recipients.map((r) => {
          const reason = reasonOf(r.email)
          return reason === undefined
            ? recipientEvent(message, "email.queued", r.email, at)
            : recipientEvent(message, "email.dropped", r.email, at, reason)
        }))
      }))

    /** Queues every scheduled message that is due; answers how many it looked at. The background task runs it. */
    const releaseDue: Effect.Effect<number, StoreError> = Effect.gen(function* () {
      let total = 0
      for (;;) {
        const at = yield* now
        const due = yield* store.messages.dueScheduled(at, config.scheduledBatchSize)
        for (const item of due) yield* release(item.accountId, item.id, at)
        total += due.length
        if (due.length < config.scheduledBatchSize) return total
      }
    })

    yield* background.every("scheduled sends", config.scheduledPollInterval, Effect.asVoid(releaseDue))

    return { send, sendTemplate, batch, schedule, cancel, releaseDue } as const
  }),
}) {}
