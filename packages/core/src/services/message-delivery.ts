/** Delivery of accepted messages: an outbox consumer turns each email.queued message into one delivery job; the job
 *  renders the message for each recipient that still waits (queued or deferred), sends it through the Mailer, and
 *  records in one transaction what the relay answered: email.delivered, email.deferred (tried again on the
 *  deferralDelays schedule, with the quota reserved at acceptance), email.bounced with a Bounce suppression for a
 *  hard bounce, or held when the outcome is unknown (recorded by delivery-record.ts; the service that runs it and
 *  reviews held recipients is delivery-service.ts). Spec: sending
 *  "Sending" rules 2-4 and 6, "Events"; audience "Suppression reasons", the email.* events. */
import { Clock, Context, Effect, type Either, Option, Schema } from "effect"
import type { AccountId } from "../domain/account.js"
import { classifyOutcome, type DeliveryVerdict, deferralDelays, gaveUp, resolveRecipient } from "../domain/delivery-outcome.js"
import { type DeliveryLine, logDeliveries } from "./delivery-log.js"
import { eventsOf, writeResolutions } from "./delivery-record.js"
import type { EmailAddress } from "../domain/email.js"
import type { DomainEvent } from "../domain/event.js"
import type { MessageId } from "../domain/message.js"
import {
  type MessageEvent, type MessageRecipient, type RecipientUpdate, type StoredMessage, toAcceptedMessage,
} from "../domain/message-record.js"
import { buildOutgoing, pipelineValues, type UnsubscribeLinks } from "../domain/outgoing.js"
import { type RenderedInline, TemplateEngine } from "../ports/template-engine.js"
import { renderRelease, undeliverableReason } from "./template-sends.js"
import type { SendScope } from "../domain/suppression.js"
import type { StoreError } from "../errors.js"
import { Ids } from "../ports/ids.js"
import { defineJob, JobQueue, type JobRun } from "../ports/job-queue.js"
import { type DkimKey, Mailer, type MailerError, type MailResult, type OutgoingMessage } from "../ports/mailer.js"
import { Store } from "../ports/store.js"
import { Domains } from "./domains.js"
import { Tokens } from "./tokens.js"
import { trackOutgoing } from "./tracked-mail.js"
import { brandOfMessage, trackingOriginFor } from "./tracking-domains.js"

export interface DeliveryOptions {
  /** DKIM keys by domain, beside those of the account's verified sending domains (docs/domains.md): a message whose
   *  From: address is at `domainName` is signed with that key, whatever the account. */
  readonly dkimKeys?: ReadonlyArray<DkimKey> | undefined
  /** SMTP MAIL FROM of every message (where asynchronous bounces go). Default: the message's From: address. */
  readonly envelopeFrom?: string | undefined
  /** The mailbox of the `mailto:` entry of List-Unsubscribe. Default: `unsubscribe@<the From: address's domain>`. */
  readonly unsubscribeMailbox?: string | undefined
  /** Delivery jobs run at once in this process. Default 8. */
  readonly concurrency?: number | undefined
}

/** How messages are delivered; the facade provides it from its `delivery` option. */
export class DeliveryConfig extends Context.Reference<DeliveryConfig>()("@mailroom/core/DeliveryConfig", {
  defaultValue: (): DeliveryOptions => ({}),
}) {}

/** One message to deliver. Every attempt sends to the recipients still queued or deferred; the queue runs it again
 *  on the deferral schedule while one of them is deferred (or the relay could not be reached). */
export const messageDeliveryJob = defineJob(
  "message.deliver",
  Schema.Struct({
    accountId: Schema.String,
    messageId: Schema.String,
    /** Every message of the run when it delivers several of the account's messages (messageId is the first): the
     *  messages queued together (up to recipientsPerRun recipients) share one run, so their bookkeeping costs a few
     *  transactions, not a few each. */
    batch: Schema.optional(Schema.Array(Schema.String)),
  }),
  // A run submits at most recipientsPerRun at once, each bounded by the relay's timeouts (about 80 s at worst with
  // the SMTP relay's defaults): 2 minutes. A run whose process died is retried once this and pg-boss's margin passed.
  { retry: { delays: deferralDelays }, timeout: "2 minutes" },
)

/** A run that left recipients to try again: the queue runs the job again after the next deferral delay. */
export class DeliveryDeferred extends Schema.TaggedError<DeliveryDeferred>()("DeliveryDeferred", {
  messageId: Schema.String,
  detail: Schema.String,
}) {}

/** Name of the outbox consumer that dispatches queued messages (its cursor is kept under it). */
export const deliveryDispatchConsumer = "message-delivery"

/** What a recipient shows while its submission is under way. Should the process die before the outcome is recorded,
 *  the recipient stays held: it may have received the message, so it is never sent again without an operator. */
export const submissionInProgress = "submission started; the outcome was not recorded (the process stopped?)"

const waiting = (r: MessageRecipient) => r.status === "queued" || r.status === "deferred"

const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1).toLowerCase()

/** Most recipients one delivery run takes (a message of more recipients has a run of its own), all submitted at once.
 *  A run marks its recipients held before it submits any, so this also bounds what a process killed mid-run leaves
 *  held for an operator: the recipients of its runs in flight, whose submission may have happened. Ten keeps that to
 *  about what is on the wire, and a run short through a slow relay. */
export const recipientsPerRun = 10

/** Enqueues the delivery of the messages named by email.queued events (one event per recipient), with one write: one
 *  job per account for the messages of one batch of events (up to recipientsPerRun recipients each), keyed by its first
 *  message's id so that a repeat while it is pending makes nothing new. A message that lands in two runs is still sent
 *  once: a run only takes recipients still waiting. Without a JobQueue nothing happens: the events wait for a worker. */
export const dispatchQueuedMessages = (events: ReadonlyArray<DomainEvent>): Effect.Effect<void, StoreError> =>
  Effect.gen(function* () {
    const queue = yield* Effect.serviceOption(JobQueue)
    if (Option.isNone(queue)) return
    // Recipients (queued events) per message, by account, in the order of the events.
    const byAccount = new Map<string, Map<string, number>>()
    for (const event of events) {
      const messageId = event.details["messageId"]
      if (event.type !== "email.queued" || typeof messageId !== "string") continue
      const messages = byAccount.get(event.accountId) ?? new Map<string, number>()
      messages.set(messageId, (messages.get(messageId) ?? 0) + 1)
      byAccount.set(event.accountId, messages)
    }
    const payloads = [...byAccount].flatMap(([accountId, messages]) => {
      const runs: Array<Array<string>> = []
      let recipients = recipientsPerRun
      for (const [messageId, count] of messages) {
        if (recipients >= recipientsPerRun) {
          runs.push([])
          recipients = 0
        }
        runs.at(-1)!.push(messageId)
        recipients += count
      }
      return runs.map((batch) => batch.length === 1 ? { accountId, messageId: batch[0]! } : { accountId, messageId: batch[0]!, batch })
    })
    yield* queue.value.enqueueAll(messageDeliveryJob, payloads.map((payload) => ({ payload, options: { dedupeKey: payload.messageId } })))
  })

interface Outcome {
  readonly recipient: MessageRecipient
  /** The status before this run, restored when nothing was submitted. */
  readonly before: MessageRecipient["status"]
  readonly subject: string
  readonly result:
    | { readonly kind: "verdict"; readonly verdict: DeliveryVerdict }
    | { readonly kind: "not-sent"; readonly detail: string }
    | { readonly kind: "dropped"; readonly detail: string; readonly reason: string }
}

/** The handler of messageDeliveryJob: one attempt for every recipient still waiting of each message of the run.
 *  Recipients are marked held while their submission is under way (in a transaction that also makes sure no other run
 *  took them), so a crash between sending and recording never leads to a second submission. The messages of a run
 *  are taken in one transaction and their outcomes recorded in another, however many they are. Fails with
 *  DeliveryDeferred, so that the queue runs it again later, while a recipient was deferred or the relay could not be
 *  reached; on the last attempt those recipients bounce softly instead. */
export const deliverMessage = (
  payload: { readonly accountId: string; readonly messageId: string; readonly batch?: ReadonlyArray<string> | undefined },
  run: JobRun,
) =>
  Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const tokens = yield* Tokens
    const config = yield* DeliveryConfig
    const mailer = yield* Effect.serviceOption(Mailer)
    if (Option.isNone(mailer)) return yield* Effect.dieMessage("message delivery needs a Mailer")
    // Without the Domains service (a host running delivery alone), only the configured keys sign.
    const domains = yield* Effect.serviceOption(Domains)
    const engine = yield* Effect.serviceOption(TemplateEngine)
    if (Option.isNone(engine)) return yield* Effect.dieMessage("message delivery needs the TemplateEngine")
    const accountId = payload.accountId as AccountId
    const messageIds = (payload.batch ?? [payload.messageId]) as ReadonlyArray<MessageId>

    // Take the waiting recipients: serialised per account (a row lock on Postgres), so two runs never take the same.
    // Committed before anything is sent: held is on disk before the first submission starts.
    const taken = yield* store.transaction(Effect.gen(function* () {
      yield* store.accounts.lock(accountId)
      const at = new Date(yield* Clock.currentTimeMillis)
      const loaded: Array<{ readonly message: StoredMessage; readonly candidates: ReadonlyArray<MessageRecipient> }> = []
      for (const message of yield* store.messages.findByIds(accountId, messageIds)) {
        if (message.state !== "queued") continue
        const candidates = message.recipients.filter(waiting)
        if (candidates.length > 0) loaded.push({ message, candidates })
      }
      // Send-time filtering again, one set-based query per scope (stream and topic) over the run's messages of that
      // scope: an address may have bounced, complained or opted out since the message was accepted (a deferral retried
      // hours later, a scheduled send).
      const scopes = new Map<string, { readonly scope: SendScope; readonly addresses: Set<EmailAddress> }>()
      for (const { message, candidates } of loaded) {
        const key = `${message.content.stream}\u0000${message.content.topicId ?? ""}`
        const entry = scopes.get(key) ?? { scope: { kind: message.content.stream, topicId: message.content.topicId }, addresses: new Set() }
        for (const r of candidates) entry.addresses.add(r.email as EmailAddress)
        scopes.set(key, entry)
      }
      const reasonsByScope = new Map<string, Map<string, string>>()
      for (const [key, { scope, addresses }] of scopes) {
        const { dropped } = yield* store.suppressions.eligibility(accountId, scope, [...addresses])
        reasonsByScope.set(key, new Map(dropped.map((d) => [d.email, d.reason])))
      }
      const taken: Array<{
        readonly message: StoredMessage
        readonly recipients: ReadonlyArray<MessageRecipient>
        /** Recipients the message no longer goes to: dropped at acceptance, or by this run's filtering. */
        readonly dropped: ReadonlySet<string>
      }> = []
      const droppedEvents: Array<ReturnType<typeof eventsOf>> = []
      const updates: Array<RecipientUpdate> = []
      for (const { message, candidates } of loaded) {
        const reasons = reasonsByScope.get(`${message.content.stream}\u0000${message.content.topicId ?? ""}`)!
        const recipients = candidates.filter((r) => !reasons.has(r.email))
        const blocked = candidates.filter((r) => reasons.has(r.email))
        updates.push(
          ...recipients.map((r): RecipientUpdate => ({
            messageId: message.id, position: r.position, status: "held", addAttempts: 0, lastResponse: submissionInProgress, at,
          })),
          ...blocked.map((r): RecipientUpdate => ({
            messageId: message.id, position: r.position, status: "dropped", addAttempts: 0,
            lastResponse: `not sent: ${reasons.get(r.email)!}`, at,
          })),
        )
        droppedEvents.push(...blocked.map((r) =>
          eventsOf(ids, message, r.email, message.content.subject, "email.dropped", undefined, at, { reason: reasons.get(r.email)! })))
        if (recipients.length > 0) {
          const dropped = new Set([...message.recipients.filter((r) => r.status === "dropped"), ...blocked].map((r) => r.email))
          taken.push({ message, recipients, dropped })
        }
      }
      yield* store.messages.updateRecipients(accountId, updates)
      if (droppedEvents.length > 0) {
        yield* store.messages.appendEvents(droppedEvents.map((m) => m.record))
        yield* store.events.append(droppedEvents.map((m) => m.outbox))
      }
      return taken
    }))
    if (taken.length === 0) return
    const lastAttempt = run.lastAttempt

    /** The origin of the links of mail sent under a template's brand (else the account's default brand): its verified
     *  tracking domain's, or none (TRACK_URL and APP_URL then). Read once per brand per run. */
    const origins = new Map<string, string | undefined>()
    const originFor = (templateBrandId: string | null) =>
      Effect.gen(function* () {
        const brandId = yield* brandOfMessage(store, accountId, templateBrandId)
        const key = Option.getOrElse(brandId, () => "")
        if (origins.has(key)) return origins.get(key)
        const origin = yield* trackingOriginFor(store, accountId, brandId)
        origins.set(key, origin)
        return origin
      })

    /** The key that signs mail from a domain in this run: a configured key, else the account's verified domain's (read
     *  once per domain per run; a domain deleted since acceptance signs nothing). */
    const keys = new Map<string, DkimKey | undefined>()
    const keyFor = (domain: string) =>
      Effect.gen(function* () {
        if (keys.has(domain)) return keys.get(domain)
        const configured = config.dkimKeys?.find((key) => key.domainName.toLowerCase() === domain)
        const key = configured ?? (Option.isSome(domains)
          ? Option.getOrUndefined(yield* domains.value.signingKey(accountId, domain))
          : undefined)
        keys.set(domain, key)
        return key
      })

    /** The submissions of one message, one per recipient. A message sent by template renders from the release it
     *  recorded, for each recipient with its pipeline values; when the template was deleted or retired since it was
     *  accepted, or a recipient's mail does not render, that mail is dropped (email.dropped with the reason), never
     *  sent half-rendered. */
    const submissions = ({ message, recipients, dropped }: (typeof taken)[number]) => Effect.gen(function* () {
      const accepted = toAcceptedMessage(message)
      const from = message.content.from.email
      const use = message.content.template
      const template = use === undefined ? undefined : yield* undeliverableReason(store, accountId, use)
      const dkim = yield* keyFor(domainOf(from))
      const origin = yield* originFor(template !== undefined && "design" in template ? template.design.brandId : null)
      const personal = message.content.contact === undefined ? {} : { contact: message.content.contact }
      return recipients.map((recipient) => Effect.gen(function* () {
        const base = { recipient, before: recipient.status, subject: message.content.subject }
        let unsubscribe: UnsubscribeLinks | undefined
        if (accepted.stream === "marketing") {
          const subject = {
            accountId, recipient: recipient.email, topicId: accepted.topicId ?? undefined, campaignId: message.content.campaignId,
            origin,
          }
          unsubscribe = {
            unsubscribeUrl: yield* tokens.unsubscribeUrl(subject),
            preferencesUrl: yield* tokens.preferencesUrl(subject),
            mailto: config.unsubscribeMailbox ?? `unsubscribe@${domainOf(from)}`,
          }
        }
        let rendered: RenderedInline
        if (use !== undefined && template !== undefined) {
          if ("reason" in template) {
            const detail = `not sent: template ${use.id} is ${template.reason === "TEMPLATE_RETIRED" ? "retired" : "deleted"}`
            return { ...base, result: { kind: "dropped", detail, reason: template.reason } } satisfies Outcome
          }
          const output = yield* Effect.either(renderRelease(template, {
            variables: { ...(use.variables ?? message.content.variables), ...personal },
            pipeline: pipelineValues(unsubscribe),
            subject: use.subject,
          }).pipe(Effect.provideService(TemplateEngine, engine.value)))
          if (output._tag === "Left") {
            return { ...base, result: { kind: "dropped", detail: `not sent: ${output.left.message}`, reason: output.left.code } } satisfies Outcome
          }
          rendered = output.right
        } else {
          // Inline content, with the recipient's pipeline values; content that does not render is dropped.
          // Campaign mail renders {{contact.*}} beside the variables: an object value, which Handlebars reads by path.
          const output = yield* Effect.either(engine.value.renderInline(accepted, {
            variables: { ...accepted.variables, ...personal },
            pipeline: pipelineValues(unsubscribe),
          }))
          if (output._tag === "Left") {
            return { ...base, result: { kind: "dropped", detail: output.left.message, reason: "RENDER_FAILED" } } satisfies Outcome
          }
          rendered = output.right
        }
        const built = buildOutgoing({
          messageId: message.id,
          message: accepted,
          recipient: recipient.email,
          envelopeFrom: config.envelopeFrom ?? from,
          unsubscribe,
          rendered,
          dropped,
        })
        if (built._tag === "Left") {
          return { ...base, result: { kind: "dropped", detail: built.left.message, reason: "RENDER_FAILED" } } satisfies Outcome
        }
        const tracked = yield* trackOutgoing(built.right, {
          tracked: accepted.track, accountId, messageId: message.id, recipient: recipient.email,
          campaignId: message.content.campaignId, origin,
        })
        const outgoing: OutgoingMessage = dkim === undefined ? tracked : { ...tracked, dkim }
        const sent = yield* Effect.either(mailer.value.send(outgoing))
        return { ...base, subject: outgoing.subject, result: resultOf(recipient.email, sent) } satisfies Outcome
      }))
    })

    // Every submission of the run at once (up to recipientsPerRun for a message of more); the Mailer's pool queues what
    // its connections cannot take yet.
    const attempts = yield* Effect.forEach(taken, submissions)
    const flat: ReadonlyArray<Outcome> = yield* Effect.all(attempts.flat(), { concurrency: recipientsPerRun })
    const at = new Date(yield* Clock.currentTimeMillis)
    // A deferral on the last run gives up; otherwise resolveRecipient decides from the run's number.
    const attemptNumber = lastAttempt ? deferralDelays.length + 1 : Math.min(run.attempt, deferralDelays.length)

    let retry: string | undefined
    const lines: Array<DeliveryLine> = []
    yield* store.transaction(Effect.gen(function* () {
      lines.length = 0
      // The events of every message of the run, appended with one insert of each kind at the end.
      const outbox: Array<DomainEvent> = []
      const records: Array<MessageEvent> = []
      const updates: Array<RecipientUpdate> = []
      let offset = 0
      for (const [index, { message }] of taken.entries()) {
        const outcomes = flat.slice(offset, offset + attempts[index]!.length)
        offset += outcomes.length
        const resolutions: Array<Parameters<typeof writeResolutions>[1][number]> = []
        const restored: Array<RecipientUpdate> = []
        const dropped: Array<ReturnType<typeof eventsOf>> = []
        for (const outcome of outcomes) {
          const { recipient, subject, result } = outcome
          switch (result.kind) {
            case "verdict": {
              const resolution = resolveRecipient(result.verdict, attemptNumber)
              // No address in the detail: the job runner logs it.
              if (resolution.retry) retry ??= "a recipient was deferred"
              resolutions.push({ recipient, subject, resolution, addAttempts: 1 })
              lines.push({ messageId: message.id, recipient: recipient.email, outcome: resolution.status, reply: resolution.verdict.smtpResponse })
              break
            }
            case "not-sent": {
              if (!lastAttempt) {
                retry ??= "the message could not be submitted"
                restored.push({
                  messageId: message.id, position: recipient.position, status: outcome.before, addAttempts: 0, lastResponse: result.detail, at,
                })
                lines.push({ messageId: message.id, recipient: recipient.email, outcome: "not-sent", reply: result.detail })
              } else {
                const verdict = gaveUp(recipient.attempts, result.detail)
                const resolution = resolveRecipient(verdict, attemptNumber)
                resolutions.push({ recipient, subject, resolution, addAttempts: 0 })
                lines.push({ messageId: message.id, recipient: recipient.email, outcome: resolution.status, reply: result.detail })
              }
              break
            }
            case "dropped": {
              restored.push({ messageId: message.id, position: recipient.position, status: "dropped", addAttempts: 0, lastResponse: result.detail, at })
              lines.push({ messageId: message.id, recipient: recipient.email, outcome: "dropped", reply: result.detail })
              dropped.push(eventsOf(ids, message, recipient.email, subject, "email.dropped", undefined, at, { reason: result.reason }))
              break
            }
          }
        }
        const written = yield* writeResolutions(message, resolutions, at)
        outbox.push(...written.outbox, ...dropped.map((d) => d.outbox))
        records.push(...written.records, ...dropped.map((d) => d.record))
        updates.push(...written.updates, ...restored)
      }
      yield* store.messages.updateRecipients(accountId, updates)
      if (records.length > 0) yield* store.messages.appendEvents(records)
      if (outbox.length > 0) yield* store.events.append(outbox)
    }))
    yield* logDeliveries(lines)
    if (retry !== undefined) return yield* Effect.fail(new DeliveryDeferred({ messageId: payload.messageId, detail: retry }))
  })

const resultOf = (recipient: string, sent: Either.Either<MailResult, MailerError>): Outcome["result"] => {
  if (sent._tag === "Left") return { kind: "not-sent", detail: `not sent: ${sent.left.detail}` }
  const outcome = sent.right.recipients.find((r) => r.recipient.toLowerCase() === recipient.toLowerCase())
    ?? sent.right.recipients[0]
  if (outcome === undefined) return { kind: "not-sent", detail: "not sent: the mailer reported no recipient" }
  return { kind: "verdict", verdict: classifyOutcome(outcome) }
}
