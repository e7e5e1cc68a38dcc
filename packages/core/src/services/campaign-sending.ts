/** Sending a campaign: the `campaign.chunk` job resolves the next chunk of the audience with one INSERT … SELECT
 *  (Store.campaigns.queueChunk), reserves the quota of its eligible recipients, writes one message per recipient with
 *  its email.queued event (delivery takes it from there, as for API mail) and moves the campaign's cursor, all in one
 *  transaction; then it enqueues the next chunk, paced by the account's messages-per-second setting. A chunk whose
 *  run dies rolls back whole and runs again; the per-recipient key makes a repeat add nobody twice. docs/campaigns.md. */
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
  defaultValue: (): { readonly chunkSize: number } => ({
    /** Audience members resolved and queued by one chunk (one INSERT … SELECT). */
    chunkSize: campaignLimits.chunkSize,
  }),
}) {}

/** The outbox consumer that counts unsubscribes through a campaign's links: contact.unsubscribed carries the
 *  campaignId; its recipient row is marked once. */
export const recordCampaignUnsubscribes = (events: ReadonlyArray<DomainEvent>) =>
  Effect.flatMap(Store, (store) => Effect.forEach(events, (event) => {
    const campaignId = event.details["campaignId"]
    const email = event.details["contactEmail"]
    return event.type === "contact.unsubscribed" && typeof campaignId === "string" && typeof email === "string"
      ? store.campaigns.recordUnsubscribe(event.accountId, campaignId, email, event.occurredAt)
      : Effect.void
  }, { discard: true }))

/** One chunk of a campaign. Retried on failure (a crash included: the run is retried once its timeout passed). */
export const campaignChunkJob = defineJob(
  "campaign.chunk",
  Schema.Struct({ accountId: Schema.String, campaignId: Schema.String }),
  { retry: { delays: ["5 seconds", "30 seconds", "2 minutes", "10 minutes", "1 hour"] }, timeout: "2 minutes" },
)

/** The dedupe key of the chunk job that starts after `cursor`: a resume while that job is pending enqueues nothing
 *  new, so that a campaign never has two chains of chunk jobs (which would double its rate). */
export const chunkKey = (campaignId: string, cursor: string | null) => `${campaignId}:${cursor ?? "start"}`

/** The setting key of an account's campaign rate (messages per second). */
export const rateSettingKey = (accountId: string) => `campaign-rate:${accountId}`

/** The account's campaign rate in messages per second. */
export const campaignRate = (accountId: string) =>
  Effect.flatMap(Store, (store) => Effect.map(store.settings.get(rateSettingKey(accountId)), (value) => {
    const rate = Option.isSome(value) ? Number(value.value) : Number.NaN
    return Number.isFinite(rate) && rate > 0 ? rate : campaignLimits.defaultRate
  }))

/** The message of a campaign to one eligible recipient: the campaign's content, its contact's fields, its topic. */
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

export type ChunkOutcome = "idle" | "queued" | "finished" | "quota"

/** Runs one chunk of the campaign, when it is running. Answers what happened; "queued" means more remain. */
export const runChunk = (accountId: AccountId, campaignId: string, at: Date) =>
  Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const quota = yield* Quota
    const queue = yield* Effect.serviceOption(JobQueue)
    const { chunkSize } = yield* CampaignConfig
    const attempt = yield* Effect.either(store.transaction(Effect.gen(function* () {
      const found = yield* store.campaigns.findById(accountId, campaignId, { forUpdate: true })
      if (Option.isNone(found)) return "idle"
      // A scheduled campaign starts when its first chunk job runs at the scheduled time.
      const due = found.value.status === "scheduled" && found.value.scheduledAt !== null && found.value.scheduledAt <= at
      const campaign: Campaign = due ? { ...found.value, status: "running", startedAt: at } : found.value
      if (campaign.status !== "running") return "idle"
      const account = yield* store.accounts.findById(accountId)
      const lists = yield* store.lists.findByIds(accountId, campaign.listIds)
      const audience = resolveAudience(campaign.topicId, lists)
      const chunk = yield* store.campaigns.queueChunk({
        accountId, campaignId: campaign.id, audience, after: campaign.cursor, limit: chunkSize,
        messagePrefix: campaignMessagePrefix(campaign.id), at,
      })
      const eligible = chunk.recipients.filter((r) => r.reason === null)
      if (Option.isSome(account)) yield* quota.reserve(account.value, eligible.length)
      const tracked = campaignTracked(lists)
      // A design renders from its live release at the time of the chunk (the delivery reads that release).
      const design = campaign.templateId === null ? Option.none() : yield* store.designs.findById(accountId, campaign.templateId)
      const version = Option.isSome(design) ? (design.value.liveVersion ?? 0) : 0
      const messages = eligible.map((r) => campaignMessage(campaign, r, tracked, version, at))
      if (messages.length > 0) {
        yield* store.messages.insertMany(messages)
        const events = messages.map((m) => {
          const recipient = m.recipients[0]!.email
          const outbox = emailEvent({
            id: ids.make("event", at), accountId, type: "email.queued", messageId: m.id, recipient,
            sender: campaign.from.email, subject: campaign.subject, occurredAt: at, metadata: null, campaignId: campaign.id,
          })
          const log: MessageEvent = {
            id: ids.make("messageEvent", at), accountId, messageId: m.id, recipient: recipient, type: "email.queued",
            occurredAt: at, smtpResponse: null, bounceType: null, bounceCode: null, bounceReason: null,
          }
          return { outbox, log }
        })
        yield* store.events.append(events.map((e) => e.outbox))
        yield* store.messages.appendEvents(events.map((e) => e.log))
      }
      const finished = chunk.recipients.length < chunkSize
      yield* store.campaigns.save({
        ...campaign,
        cursor: chunk.last ?? campaign.cursor,
        status: finished ? "finished" : "running",
        finishedAt: finished ? at : null,
        updatedAt: at,
      })
      // The next chunk commits with this one, paced by the account's rate: no crash leaves a running campaign without one.
      if (!finished && Option.isSome(queue)) {
        const rate = yield* campaignRate(accountId)
        const runAt = new Date(at.getTime() + Math.ceil((eligible.length / rate) * 1000))
        yield* queue.value.enqueue(campaignChunkJob, { accountId, campaignId }, { runAt, dedupeKey: chunkKey(campaignId, chunk.last) })
      }
      return (finished ? "finished" : "queued")
    })))
    if (attempt._tag === "Left") {
      if (attempt.left._tag !== "QuotaExceeded") return yield* Effect.fail(attempt.left)
      // The quota ran out mid-way (other mail used it since the campaign started): nothing of this chunk was written;
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
  })
