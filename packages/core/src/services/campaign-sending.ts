/** Sending a campaign: the `campaign.chunk` job resolves the next chunk of the audience and writes its messages with
 *  their email.queued events, set-based in the store (Store.campaigns.queueChunk), reserves the quota of its eligible
 *  recipients, enqueues their delivery runs paced by the account's messages-per-second setting, moves the campaign's
 *  cursor and enqueues the next chunk at once, all in one transaction: queueing goes at the store's speed, delivery at
 *  the account's rate. A chunk whose run dies rolls back whole and runs again; the per-recipient key makes a repeat
 *  add nobody twice. docs/campaigns.md. */
import { Context, Effect, Option, Schema } from "effect"
import type { DomainEvent } from "../domain/event.js"
import type { AccountId } from "../domain/account.js"
import { type Campaign, campaignLimits, campaignTracked, resolveAudience } from "../domain/campaign.js"
import { campaignMail, paceDeliveries } from "../domain/campaign-mail.js"
import { defineJob, JobQueue } from "../ports/job-queue.js"
import { Store } from "../ports/store.js"
import { messageDeliveryJob } from "./message-delivery.js"
import { Quota } from "./quota.js"

/** Settings of campaign sending. */
export class CampaignConfig extends Context.Reference<CampaignConfig>()("@mailroom/core/CampaignConfig", {
  defaultValue: (): { readonly chunkSize: number; readonly deliveryBatch: number } => ({
    /** Audience members resolved and queued by one chunk (a few INSERT … SELECT statements). */
    chunkSize: campaignLimits.chunkSize,
    /** Messages of one delivery run, paced as one. */
    deliveryBatch: campaignLimits.deliveryBatch,
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

export type ChunkOutcome = "idle" | "queued" | "finished" | "quota"

/** Runs one chunk of the campaign, when it is running. Answers what happened; "queued" means more remain. */
export const runChunk = (accountId: AccountId, campaignId: string, at: Date) =>
  Effect.gen(function* () {
    const store = yield* Store
    const quota = yield* Quota
    const queue = yield* Effect.serviceOption(JobQueue)
    const { chunkSize, deliveryBatch } = yield* CampaignConfig
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
      const tracked = campaignTracked(lists)
      // A design renders from its live release at the time of the chunk (the delivery reads that release).
      const design = campaign.templateId === null ? Option.none() : yield* store.designs.findById(accountId, campaign.templateId)
      const version = Option.isSome(design) ? (design.value.liveVersion ?? 0) : 0
      const chunk = yield* store.campaigns.queueChunk({
        accountId, campaignId: campaign.id, audience, after: campaign.cursor, limit: chunkSize,
        mail: campaignMail(campaign, tracked, version), at,
      })
      if (Option.isSome(account)) yield* quota.reserve(account.value, chunk.queued.length)
      // Delivery is paced at the account's rate: each run of the chunk's messages waits for its slot, continuing the
      // pace of the chunks before (queueing itself goes at the store's speed).
      const rate = yield* campaignRate(accountId)
      const paced = paceDeliveries(chunk.queued, { batch: deliveryBatch, rate, from: campaign.paceAt, at })
      if (Option.isSome(queue) && paced.runs.length > 0) {
        yield* queue.value.enqueueAll(messageDeliveryJob, paced.runs.map((run) => ({
          payload: { accountId, messageId: run.messageIds[0]!, ...(run.messageIds.length > 1 ? { batch: run.messageIds } : {}) },
          options: { runAt: run.runAt, dedupeKey: run.messageIds[0]! },
        })))
      }
      const finished = chunk.covered < chunkSize
      yield* store.campaigns.save({
        ...campaign,
        cursor: chunk.last ?? campaign.cursor,
        paceAt: paced.next,
        status: finished ? "finished" : "running",
        finishedAt: finished ? at : null,
        updatedAt: at,
      })
      // The next chunk commits with this one and runs at once: no crash leaves a running campaign without one.
      if (!finished && Option.isSome(queue)) {
        yield* queue.value.enqueue(campaignChunkJob, { accountId, campaignId }, { runAt: at, dedupeKey: chunkKey(campaignId, chunk.last) })
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
