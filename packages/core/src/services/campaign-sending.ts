/** Sending a campaign, in two chains of jobs that each resume where they stopped.
 *  - Queueing: the `campaign.chunk` job resolves the next chunk of the audience into the campaign's queue (its
 *    recipients, one row each) with one INSERT … SELECT (Store.campaigns.queueChunk), moves the campaign's cursor and
 *    enqueues the next chunk at once, in one transaction; nothing of the audience comes back to the process.
 *  - Sending, once the whole audience is queued (the last chunk starts it): the `campaign.send` job takes the next
 *    queued recipients after the send cursor (about one second's worth at the account's messages-per-second setting),
 *    reserves their quota, writes one message each with its email.queued event (delivery takes it from there, as for
 *    API mail), moves the send cursor and enqueues the next run, paced by the rate, in one transaction.
 *  A run that dies rolls back whole and runs again. Each job names the cursor it continues from; a job whose cursor is
 *  no longer the campaign's (a repeat, or a second chain started by a resume) does nothing, so a campaign never has
 *  two chains of either kind, and the per-recipient key makes a repeat add nobody twice. docs/campaigns.md. */
import { Context, Effect, Option, Schema } from "effect"
import type { DomainEvent } from "../domain/event.js"
import type { AccountId } from "../domain/account.js"
import {
  type Campaign, campaignCategories, campaignLimits, campaignMessagePrefix, campaignTracked, contactValues, type QueuedRecipient, resolveAudience,
} from "../domain/campaign.js"
import { emailEvent } from "../domain/email-event.js"
import type { MessageId } from "../domain/message.js"
import type { MessageEvent, StoredMessage } from "../domain/message-record.js"
import { Ids } from "../ports/ids.js"
import { defineJob, JobQueue } from "../ports/job-queue.js"
import { Store } from "../ports/store.js"
import { Quota } from "./quota.js"

/** Settings of campaign sending. */
export class CampaignConfig extends Context.Reference<CampaignConfig>()("@mailroom/core/CampaignConfig", {
  defaultValue: (): { readonly chunkSize: number; readonly sendBatch: number } => ({
    /** Audience members resolved into the queue by one chunk (one INSERT … SELECT). */
    chunkSize: campaignLimits.chunkSize,
    /** Most messages one send run writes. */
    sendBatch: campaignLimits.sendBatch,
  }),
}) {}

/** The outbox consumer that counts unsubscribes through a campaign's links: contact.unsubscribed carries the
 *  campaignId and the contact; its recipient row is marked once. */
export const recordCampaignUnsubscribes = (events: ReadonlyArray<DomainEvent>) =>
  Effect.flatMap(Store, (store) => Effect.forEach(events, (event) => {
    const campaignId = event.details["campaignId"]
    const email = event.details["contactEmail"]
    const contactId = event.details["contactId"]
    return event.type === "contact.unsubscribed" && typeof campaignId === "string" && typeof email === "string"
      ? store.campaigns.recordUnsubscribe(event.accountId, campaignId, {
        contactId: typeof contactId === "string" ? contactId : null, email,
      }, event.occurredAt)
      : Effect.void
  }, { discard: true }))

const CampaignJobPayload = Schema.Struct({
  accountId: Schema.String,
  campaignId: Schema.String,
  /** The cursor the job continues from; absent on jobs enqueued before jobs named one (they continue from any). */
  cursor: Schema.optional(Schema.NullOr(Schema.String)),
})
const retry = { delays: ["5 seconds", "30 seconds", "2 minutes", "10 minutes", "1 hour"] } as const

/** One chunk of a campaign's queueing. Retried on failure (a crash included: the run is retried once its timeout
 *  passed). */
export const campaignChunkJob = defineJob("campaign.chunk", CampaignJobPayload, { retry, timeout: "1 minute" })

/** One send run of a campaign. Retried as a chunk is. */
export const campaignSendJob = defineJob("campaign.send", CampaignJobPayload, { retry, timeout: "30 seconds" })

/** The dedupe keys of the chunk job and of the send run that continue after `cursor`; `attempt` tells apart jobs from
 *  one cursor that are meant to be distinct (a resume), since a key stays taken until its job finishes. */
export const chunkKey = (campaignId: string, cursor: string | null, attempt = "") => `${campaignId}:${cursor ?? "start"}${attempt}`
export const sendKey = (campaignId: string, cursor: string | null, attempt = "") => `${campaignId}:send:${cursor ?? "start"}${attempt}`

/** The setting key of an account's campaign rate (messages per second). */
export const rateSettingKey = (accountId: string) => `campaign-rate:${accountId}`

/** The account's campaign rate in messages per second. */
export const campaignRate = (accountId: string) =>
  Effect.flatMap(Store, (store) => Effect.map(store.settings.get(rateSettingKey(accountId)), (value) => {
    const rate = Option.isSome(value) ? Number(value.value) : Number.NaN
    return Number.isFinite(rate) && rate > 0 ? rate : campaignLimits.defaultRate
  }))

/** The message of a campaign to one queued recipient: the campaign's content, its contact's fields, its topic. */
export const campaignMessage = (
  campaign: Campaign, recipient: QueuedRecipient, tracked: boolean, version: number, at: Date,
): StoredMessage => ({
  id: recipient.messageId as MessageId,
  accountId: campaign.accountId,
  batchId: null,
  state: "queued",
  content: {
    from: campaign.from,
    replyTo: campaign.replyTo ?? undefined,
    subject: campaign.subject,
    html: campaign.html ?? undefined,
    text: campaign.text ?? undefined,
    attachments: [],
    categories: [...campaignCategories(campaign)],
    tags: {},
    metadata: null,
    stream: "marketing",
    topicId: campaign.topicId,
    track: tracked,
    variables: campaign.variables,
    duplicates: [],
    template: campaign.templateId === null ? undefined : {
      id: campaign.templateId, version, subject: campaign.subject, variables: campaign.variables,
      ...(campaign.brandId === null ? {} : { brandId: campaign.brandId }),
    },
    campaignId: campaign.id,
    contact: contactValues(recipient),
  },
  recipients: [{
    position: 0, email: recipient.email, name: undefined, field: "to", status: "queued", attempts: 0, lastResponse: null, updatedAt: at,
  }],
  scheduledFor: null,
  createdAt: at,
})

/** What a chunk did: nothing ("idle": the campaign is not running, or the job is a repeat), a chunk with more to
 *  come ("queued"), or the last chunk ("complete": the whole audience is in the queue). */
export type ChunkOutcome = "idle" | "queued" | "complete"

/** What a send run did: nothing ("idle": the campaign is not running or not queued yet, or the job is a repeat),
 *  messages written with more to come ("sent"), none left (the campaign is "finished"), or stopped by the quota. */
export type SendOutcome = "idle" | "sent" | "finished" | "quota"

/** A scheduled campaign starts when its first chunk job runs at the scheduled time. */
const startIfDue = (campaign: Campaign, at: Date): Campaign =>
  campaign.status === "scheduled" && campaign.scheduledAt !== null && campaign.scheduledAt <= at
    ? { ...campaign, status: "running", startedAt: at }
    : campaign

/** Runs one chunk of the campaign's queueing, when it is running and `expected` (the job's cursor) is its cursor. */
export const runChunk = (accountId: AccountId, campaignId: string, at: Date, expected?: string | null) =>
  Effect.gen(function* () {
    const store = yield* Store
    const queue = yield* Effect.serviceOption(JobQueue)
    const { chunkSize } = yield* CampaignConfig
    return yield* store.transaction(Effect.gen(function* () {
      const found = yield* store.campaigns.findById(accountId, campaignId, { forUpdate: true })
      if (Option.isNone(found)) return "idle"
      const campaign = startIfDue(found.value, at)
      if (campaign.status !== "running" || campaign.queuedAt !== null) return "idle"
      if (expected !== undefined && expected !== campaign.cursor) return "idle"
      const lists = yield* store.lists.findByIds(accountId, campaign.listIds)
      const chunk = yield* store.campaigns.queueChunk({
        accountId, campaignId: campaign.id, audience: resolveAudience(campaign.topicId, lists), after: campaign.cursor,
        limit: chunkSize, messagePrefix: campaignMessagePrefix(campaign.id), at,
      })
      const complete = chunk.covered < chunkSize
      const cursor = chunk.last ?? campaign.cursor
      yield* store.campaigns.save({ ...campaign, cursor, queuedAt: complete ? at : null, updatedAt: at })
      // The next chunk, or after the last one the first send run, commits with this chunk: no crash leaves a running
      // campaign without one.
      if (Option.isSome(queue)) {
        yield* complete
          ? queue.value.enqueue(campaignSendJob, { accountId, campaignId, cursor: campaign.sendCursor }, {
            runAt: at, dedupeKey: sendKey(campaignId, campaign.sendCursor),
          })
          : queue.value.enqueue(campaignChunkJob, { accountId, campaignId, cursor }, { runAt: at, dedupeKey: chunkKey(campaignId, cursor) })
      }
      return complete ? "complete" : "queued"
    }))
  }) satisfies Effect.Effect<ChunkOutcome, unknown, unknown>

/** Runs one send run of the campaign, when it is running and `expected` (the job's cursor) is its send cursor. */
export const runSend = (accountId: AccountId, campaignId: string, at: Date, expected?: string | null) =>
  Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const quota = yield* Quota
    const queue = yield* Effect.serviceOption(JobQueue)
    const { sendBatch } = yield* CampaignConfig
    const attempt = yield* Effect.either(store.transaction(Effect.gen(function* () {
      const found = yield* store.campaigns.findById(accountId, campaignId, { forUpdate: true })
      if (Option.isNone(found)) return "idle"
      const campaign = found.value
      if (campaign.status !== "running" || campaign.queuedAt === null) return "idle"
      if (expected !== undefined && expected !== campaign.sendCursor) return "idle"
      const rate = yield* campaignRate(accountId)
      const recipients = yield* store.campaigns.nextRecipients({
        accountId, campaignId: campaign.id, after: campaign.sendCursor, limit: Math.min(sendBatch, Math.max(1, Math.ceil(rate))),
      })
      // Recipients the run passes over because their contact was deleted since they were queued are dropped with a
      // reason, so that progress still accounts for every member resolved (to the end of the queue on the last run).
      yield* store.campaigns.dropDeleted({
        accountId, campaignId: campaign.id, after: campaign.sendCursor, upTo: recipients.at(-1)?.contactId ?? null,
      })
      if (recipients.length === 0) {
        yield* store.campaigns.save({ ...campaign, status: "finished", finishedAt: at, updatedAt: at })
        return "finished"
      }
      const account = yield* store.accounts.findById(accountId)
      if (Option.isSome(account)) yield* quota.reserve(account.value, recipients.length)
      const lists = yield* store.lists.findByIds(accountId, campaign.listIds)
      const tracked = campaignTracked(lists)
      // A design renders from its live release at the time of the run (the delivery reads that release).
      const design = campaign.templateId === null ? Option.none() : yield* store.designs.findById(accountId, campaign.templateId)
      const version = Option.isSome(design) ? (design.value.liveVersion ?? 0) : 0
      const messages = recipients.map((r) => campaignMessage(campaign, r, tracked, version, at))
      yield* store.messages.insertMany(messages)
      const events = messages.map((m) => {
        const recipient = m.recipients[0]!.email
        const outbox = emailEvent({
          id: ids.make("event", at), accountId, type: "email.queued", messageId: m.id, recipient,
          sender: campaign.from.email, subject: campaign.subject, occurredAt: at, metadata: null, campaignId: campaign.id,
        })
        const log: MessageEvent = {
          id: ids.make("messageEvent", at), accountId, messageId: m.id, recipient, type: "email.queued",
          occurredAt: at, smtpResponse: null, bounceType: null, bounceCode: null, bounceReason: null,
        }
        return { outbox, log }
      })
      yield* store.events.append(events.map((e) => e.outbox))
      yield* store.messages.appendEvents(events.map((e) => e.log))
      yield* store.campaigns.save({ ...campaign, sendCursor: recipients.at(-1)!.contactId, updatedAt: at })
      // The next run commits with this one, paced by the account's rate: no crash leaves a running campaign without one.
      if (Option.isSome(queue)) {
        const cursor = recipients.at(-1)!.contactId
        yield* queue.value.enqueue(campaignSendJob, { accountId, campaignId, cursor }, {
          runAt: new Date(at.getTime() + Math.ceil((recipients.length / rate) * 1000)), dedupeKey: sendKey(campaignId, cursor),
        })
      }
      return "sent"
    })))
    if (attempt._tag === "Left") {
      if (attempt.left._tag !== "QuotaExceeded") return yield* Effect.fail(attempt.left)
      // The quota ran out mid-way (other mail used it since the campaign started): nothing of this run was written;
      // the campaign pauses with the reason, and resumes from here when resumed.
      yield* store.transaction(Effect.gen(function* () {
        const found = yield* store.campaigns.findById(accountId, campaignId, { forUpdate: true })
        if (Option.isSome(found) && found.value.status === "running") {
          yield* store.campaigns.save({ ...found.value, status: "paused", stopReason: "QUOTA_EXCEEDED", updatedAt: at })
        }
      }))
      return "quota"
    }
    return attempt.right
  }) satisfies Effect.Effect<SendOutcome, unknown, unknown>
