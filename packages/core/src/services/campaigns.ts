/** The campaigns API: create and edit drafts, send at once or schedule, pause, resume, cancel, progress, test sends,
 *  the rate setting and design usage. Sending itself is campaign-sending.ts. docs/campaigns.md. Spec: audience rules
 *  6-7, "Send-time filtering" (marketing row), plan rules (campaigns need Micro or above). */
import { Clock, Effect, Option, Schema } from "effect"
import { type Account, type AccountId, planLimits } from "../domain/account.js"
import {
  type Campaign, type CampaignAction, type CampaignId, campaignLimits, canMove, checkContent, CreateCampaignInput,
  type CampaignProgress, type CampaignStatus, resolveAudience, SendCampaignInput, TestCampaignInput, UpdateCampaignInput,
} from "../domain/campaign.js"
import { ListNotFound, PlanUpgradeRequired, QuotaExceeded, ResourceNotFound, TopicNotFound, ValidationFailed } from "../errors.js"
import { BrandNotFound } from "../brand-errors.js"
import { sendableVersion } from "../domain/design.js"
import { Ids } from "../ports/ids.js"
import { type JobDefinition, JobQueue } from "../ports/job-queue.js"
import { Store } from "../ports/store.js"
import { decodeInput } from "../validation.js"
import { quotaPeriod, quotaResetsAt } from "../domain/quota.js"
import { Background } from "./background.js"
import {
  campaignChunkJob, campaignRate, campaignSendJob, chunkKey, rateSettingKey, recordCampaignUnsubscribes, runChunk, runSend, sendKey,
} from "./campaign-sending.js"
import { checkSender } from "./domains.js"
import { Quota } from "./quota.js"
import { Sending } from "./sending.js"

/** Body of PUT /campaigns/settings. */
export const CampaignSettingsInput = Schema.Struct({
  messagesPerSecond: Schema.Number.pipe(Schema.greaterThan(0, { message: () => "must be above 0" }), Schema.lessThanOrEqualTo(10_000, { message: () => "must be at most 10000" })),
})

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** Campaigns need the Micro plan or above. */
const checkPlan = (account: Account) =>
  planLimits[account.plan].campaigns
    ? Effect.void
    : Effect.fail(new PlanUpgradeRequired({ plan: account.plan, feature: "campaigns", requiredPlan: "micro" }))

const moveError = (action: CampaignAction, campaign: Campaign) =>
  new ValidationFailed({ field: "status", detail: `a ${campaign.status} campaign cannot be ${action === "edit" ? "edited" : action === "delete" ? "deleted" : `${action}d`.replace("sendd", "sent").replace("canceld", "cancelled")}` })

export class Campaigns extends Effect.Service<Campaigns>()("@mailroom/core/Campaigns", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const quota = yield* Quota
    const sending = yield* Sending
    const background = yield* Background

    yield* background.work(campaignChunkJob, (payload) =>
      Effect.asVoid(Effect.flatMap(now, (at) => runChunk(payload.accountId as AccountId, payload.campaignId, at, payload.cursor))),
    { concurrency: 2 })
    yield* background.work(campaignSendJob, (payload) =>
      Effect.asVoid(Effect.flatMap(now, (at) => runSend(payload.accountId as AccountId, payload.campaignId, at, payload.cursor))).pipe(
        Effect.provideService(Quota, quota), Effect.provideService(Ids, ids)), { concurrency: 2 })

    // Unsubscribes through a campaign's links count in its figures.
    yield* background.consume({
      name: "campaign-unsubscribes",
      types: ["contact.unsubscribed"],
      handle: (events) => Effect.provideService(recordCampaignUnsubscribes(events), Store, store),
    })

    const load = (accountId: AccountId, id: string, forUpdate = false) =>
      Effect.flatMap(store.campaigns.findById(accountId, id, { forUpdate }), Option.match({
        onNone: () => Effect.fail(new ResourceNotFound({ resource: "campaign", id })),
        onSome: Effect.succeed,
      }))

    /** The lists, topic, design and sender a campaign names must be the account's. */
    const checkRefs = (account: Account, c: Campaign) => Effect.gen(function* () {
      const lists = yield* store.lists.findByIds(account.id, c.listIds)
      const missing = c.listIds.find((id) => !lists.some((l) => l.id === id))
      if (missing !== undefined) return yield* Effect.fail(new ListNotFound({ listId: missing }))
      if (c.topicId !== null && Option.isNone(yield* store.topics.findById(account.id, c.topicId))) {
        return yield* Effect.fail(new TopicNotFound({ topicId: c.topicId }))
      }
      if (c.templateId !== null && Option.isNone(yield* store.designs.findById(account.id, c.templateId))) {
        return yield* Effect.fail(new ValidationFailed({ field: "templateId", detail: `no design ${c.templateId} exists in this account` }))
      }
      if (c.brandId !== null && Option.isNone(yield* store.brands.findById(account.id, c.brandId))) {
        return yield* Effect.fail(new BrandNotFound({ id: c.brandId }))
      }
      yield* checkContent(c)
      return lists
    })

    const create = Effect.fn("Campaigns.create")(function* (account: Account, fields: unknown) {
      yield* checkPlan(account)
      const input = yield* decodeInput(CreateCampaignInput, fields)
      const at = yield* now
      const campaign: Campaign = {
        id: ids.make("campaign", at) as CampaignId, accountId: account.id, name: input.name, status: "draft",
        listIds: [...new Set(input.listIds)], topicId: input.topicId ?? null, templateId: input.templateId ?? null,
        brandId: input.brandId ?? null, subject: input.subject, html: input.html ?? null, text: input.text ?? null,
        from: input.from, replyTo: input.replyTo ?? null, variables: input.variables ?? {}, scheduledAt: null,
        startedAt: null, finishedAt: null, stopReason: null, audienceSize: null, cursor: null, queuedAt: null, sendCursor: null,
        createdAt: at, updatedAt: at,
      }
      yield* checkRefs(account, campaign)
      yield* store.campaigns.save(campaign)
      return campaign
    })

    const update = Effect.fn("Campaigns.update")(function* (account: Account, id: string, fields: unknown) {
      const input = yield* decodeInput(UpdateCampaignInput, fields)
      const current = yield* load(account.id, id, true)
      if (!canMove("edit", current.status)) return yield* Effect.fail(moveError("edit", current))
      const at = yield* now
      const next: Campaign = {
        ...current,
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.listIds === undefined ? {} : { listIds: [...new Set(input.listIds)] }),
        ...(input.topicId === undefined ? {} : { topicId: input.topicId }),
        ...(input.templateId === undefined ? {} : { templateId: input.templateId }),
        ...(input.brandId === undefined ? {} : { brandId: input.brandId }),
        ...(input.subject === undefined ? {} : { subject: input.subject }),
        ...(input.html === undefined ? {} : { html: input.html }),
        ...(input.text === undefined ? {} : { text: input.text }),
        ...(input.from === undefined ? {} : { from: input.from }),
        ...(input.replyTo === undefined ? {} : { replyTo: input.replyTo }),
        ...(input.variables === undefined ? {} : { variables: input.variables }),
        updatedAt: at,
      }
      yield* checkRefs(account, next)
      yield* store.campaigns.save(next)
      return next
    }, store.transaction)

    const get = (account: Account, id: string) => load(account.id, id)

    const list = (account: Account, query: { readonly status?: CampaignStatus | undefined; readonly page: number; readonly limit: number }) =>
      store.campaigns.page(account.id, { status: query.status, limit: query.limit, offset: (query.page - 1) * query.limit })

    const remove = Effect.fn("Campaigns.remove")(function* (account: Account, id: string) {
      const current = yield* load(account.id, id, true)
      if (!canMove("delete", current.status)) return yield* Effect.fail(moveError("delete", current))
      yield* store.campaigns.delete(account.id, id)
      return { id, deleted: true }
    }, store.transaction)

    /** POST /campaigns/{id}/send. The whole eligible audience must fit the quota left, or nothing starts (QUOTA_EXCEEDED,
     *  refused before starting). A scheduled campaign reserves chunk by chunk when it runs, and pauses with
     *  QUOTA_EXCEEDED when the quota runs out (campaign-sending.ts). */
    const send = Effect.fn("Campaigns.send")(function* (account: Account, id: string, fields: unknown) {
      yield* checkPlan(account)
      const input = yield* decodeInput(SendCampaignInput, fields ?? {})
      const at = yield* now
      const current = yield* load(account.id, id, true)
      if (!canMove("send", current.status)) return yield* Effect.fail(moveError("send", current))
      const lists = yield* checkRefs(account, current)
      // A design is sent from its live release: one never published, or retired, is refused as a send by templateId is.
      if (current.templateId !== null) {
        const design = yield* store.designs.findById(account.id, current.templateId)
        if (Option.isSome(design)) yield* sendableVersion(design.value)
      }
      yield* checkSender(store, account.id, current.from.email)
      const scheduledAt = input.scheduledAt ?? null
      if (scheduledAt !== null) {
        const ahead = scheduledAt.getTime() - at.getTime()
        if (ahead <= 0 || ahead > campaignLimits.scheduleAheadDays * 86_400_000) {
          return yield* Effect.fail(new ValidationFailed({ field: "scheduledAt", detail: "must be in the future and within a year" }))
        }
      }
      // The eligible count is needed only where the quota rule applies: a send at once on a plan with a quota.
      const limit = planLimits[account.plan].monthlySendQuota
      const quotaApplies = scheduledAt === null && limit !== null
      const counts = yield* store.campaigns.audienceCounts(account.id, resolveAudience(current.topicId, lists), at, { eligible: quotaApplies })
      if (limit !== null && counts.eligible !== null) yield* checkQuota(account, limit, counts.eligible, at)
      const next: Campaign = {
        ...current,
        status: scheduledAt === null ? "running" : "scheduled",
        scheduledAt,
        startedAt: scheduledAt === null ? at : null,
        audienceSize: counts.total,
        updatedAt: at,
      }
      yield* store.campaigns.save(next)
      yield* enqueue(campaignChunkJob, { accountId: account.id, campaignId: id, cursor: null }, scheduledAt ?? at, chunkKey(id, null))
      return next
    }, store.transaction)

    /** Refuses when the quota left under the plan's `limit` cannot hold `recipients`. */
    const checkQuota = (account: Account, limit: number, recipients: number, at: Date) => Effect.gen(function* () {
      const used = yield* store.quota.used(account.id, quotaPeriod(at))
      if (used + recipients > limit) {
        return yield* Effect.fail(new QuotaExceeded({ limit, used, requested: recipients, resetsAt: quotaResetsAt(at) }))
      }
    })

    const enqueue = <A, I>(job: JobDefinition<A, I>, payload: A, runAt: Date, dedupeKey: string) =>
      Effect.flatMap(Effect.serviceOption(JobQueue), Option.match({
        onNone: () => Effect.void,
        onSome: (queue) => Effect.asVoid(queue.enqueue(job, payload, { runAt, dedupeKey })),
      }))

    const control = (action: "pause" | "resume" | "cancel") =>
      Effect.fn(`Campaigns.${action}`)(function* (account: Account, id: string) {
        const current = yield* load(account.id, id, true)
        if (!canMove(action, current.status)) return yield* Effect.fail(moveError(action, current))
        const at = yield* now
        // A scheduled campaign resumes as scheduled when its time is still ahead; its chunk job is already waiting.
        const resumeTo: CampaignStatus = current.startedAt === null && current.scheduledAt !== null && current.scheduledAt > at ? "scheduled" : "running"
        const status: CampaignStatus = action === "pause" ? "paused" : action === "cancel" ? "cancelled" : resumeTo
        const next: Campaign = {
          ...current, status, updatedAt: at,
          stopReason: action === "resume" ? null : current.stopReason,
          startedAt: status === "running" ? (current.startedAt ?? at) : current.startedAt,
          finishedAt: action === "cancel" ? at : current.finishedAt,
        }
        if (action === "resume" && status === "running") yield* checkPlan(account)
        yield* store.campaigns.save(next)
        if (action === "resume") {
          // Queueing continues from its cursor, or else sending from its own. A job of the chain may still wait in the
          // queue (a pause and a resume before it ran): both then name the same cursor, and the second to run does nothing.
          const runAt = status === "scheduled" ? current.scheduledAt! : at
          const payload = { accountId: account.id, campaignId: id }
          const resumed = `:resume:${at.getTime()}`
          if (current.queuedAt === null) {
            yield* enqueue(campaignChunkJob, { ...payload, cursor: current.cursor }, runAt, chunkKey(id, current.cursor, resumed))
          } else {
            yield* enqueue(campaignSendJob, { ...payload, cursor: current.sendCursor }, runAt, sendKey(id, current.sendCursor, resumed))
          }
        }
        return next
      }, store.transaction)

    /** The campaign's figures. */
    const progress = Effect.fn("Campaigns.progress")(function* (account: Account, id: string) {
      const campaign = yield* load(account.id, id)
      const { waiting, ...figures } = yield* store.campaigns.progress(account.id, campaign.id, campaign.sendCursor)
      // Recipients whose messages are not written yet are queued, or never sent when the campaign was cancelled.
      const cancelled = campaign.status === "cancelled" ? waiting : 0
      return { ...figures, queued: figures.queued + waiting - cancelled, cancelled, audienceSize: campaign.audienceSize } satisfies CampaignProgress
    })

    /** POST /campaigns/{id}/test: the campaign's content to a few addresses, as a marketing send under its topic (the
     *  send-time filter and the quota apply as for any send). */
    const test = Effect.fn("Campaigns.test")(function* (account: Account, id: string, fields: unknown) {
      yield* checkPlan(account)
      const input = yield* decodeInput(TestCampaignInput, fields)
      const campaign = yield* load(account.id, id)
      const content = campaign.templateId !== null
        ? { templateId: campaign.templateId, subject: campaign.subject }
        : { subject: campaign.subject, ...(campaign.html === null ? {} : { html: campaign.html }), ...(campaign.text === null ? {} : { text: campaign.text }) }
      const body = {
        from: campaign.from, to: input.to.map((email) => ({ email })), content, variables: campaign.variables,
        stream: "marketing" as const,
        ...(campaign.replyTo === null ? {} : { replyTo: campaign.replyTo }),
        ...(campaign.topicId === null ? {} : { suppressionGroupId: campaign.topicId }),
      }
      return yield* sending.send(account, body)
    })

    const setRate = Effect.fn("Campaigns.setRate")(function* (account: Account, fields: unknown) {
      const input = yield* decodeInput(CampaignSettingsInput, fields)
      yield* store.settings.set(rateSettingKey(account.id), String(input.messagesPerSecond))
      return { messagesPerSecond: input.messagesPerSecond }
    })

    const settings = (account: Account) => Effect.map(campaignRate(account.id), (rate) => ({ messagesPerSecond: rate })).pipe(
      Effect.provideService(Store, store))

    /** Campaigns that use the design (GET /designs/{id}/usage). */
    const usingDesign = (account: Account, designId: string) => store.campaigns.using(account.id, { kind: "design", id: designId })

    return {
      create, update, get, list, remove, send, progress, test, setRate, settings, usingDesign,
      pause: control("pause"), resume: control("resume"), cancel: control("cancel"),
    } as const
  }),
}) {}
