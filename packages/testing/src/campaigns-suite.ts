/** Campaigns, run by every backend against its own Store: the plan rule, the audience filter row by row (rule 6 and
 *  the marketing row of the send-time filtering table), deduplication across lists, chunked queueing and paced send
 *  runs with pause, resume and cancel, a chunk or a run that dies and runs again, a job delivered twice, the quota
 *  rule, scheduling, personalisation, the List-Unsubscribe headers and an unsubscribe link recording the campaignId.
 *  docs/campaigns.md. */
import { describe, expect, it } from "@effect/vitest"
import {
  Brands, campaignIneligibility, contactDeletedReason, Contacts, Designs, resolveAudience, Campaigns, type EmailAddress, enqueueEach, IdsLive, JobQueue,
  type JobQueueService, Lists, LinkUnsubscribes, Quota, recordCampaignUnsubscribes, runChunk, runSend, servicesLayer, Store,
  Suppressions, TemplateEngine, Topics,
} from "@mailroom/core"
import { makeTemplateEngine } from "@mailroom/templates"
import { Effect, Layer, Option } from "effect"
import { makeCaptureMailer } from "./capture-mailer.js"
import {
  addMembers, campaignQueued, chunk, codeOf, contact, deliver, drain, draft, fresh, freshKey, messageOf, newAccount, now, progress,
  queueAll, sendAll, sendRun, sentToFive, small, staticList,
} from "./campaigns-steps.js"


export const campaignsSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  describe(`campaigns (${backend})`, () => {
    const mailer = makeCaptureMailer()
    const enqueued: Array<{ readonly name: string; readonly payload: unknown; readonly runAt: Date | undefined }> = []
    const enqueue: JobQueueService["enqueue"] = (job, payload, options) =>
      Effect.sync(() => {
        enqueued.push({ name: job.name, payload, runAt: options?.runAt })
        return `job-${enqueued.length}`
      })
    const engineLayer = Layer.scoped(TemplateEngine, Effect.map(makeTemplateEngine(), (handle) => handle.service))
    const queue = Layer.succeed(JobQueue, { enqueue, enqueueAll: enqueueEach(enqueue), work: () => Effect.void })
    const layer = Layer.mergeAll(
      Layer.fresh(servicesLayer).pipe(Layer.provideMerge(Layer.mergeAll(storeLayer, IdsLive, engineLayer))),
      queue,
      mailer.layer,
    )


    it.layer(layer, { timeout: "120 seconds" })((it) => {
      it.effect("campaigns need the Micro plan or above", () =>
        Effect.gen(function* () {
          const free = yield* newAccount("free")
          const list = yield* staticList(free)
          expect(yield* codeOf(draft(free, [list.id]))).toBe("PLAN_UPGRADE_REQUIRED")
          const micro = yield* newAccount("micro")
          const microList = yield* staticList(micro)
          expect((yield* draft(micro, [microList.id])).status).toBe("draft")
        }))

      it.effect("the audience filter, row by row: PENDING and removed members are not in the audience; every marketing row drops with its reason", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const tag = (yield* (yield* Topics).create(account, { name: "Tagged" })).topic
          const own = (yield* (yield* Topics).create(account, { name: "Own" })).topic
          const list = yield* staticList(account, { suppressionGroupId: tag.id })
          const people: Record<string, string> = {}
          const make = function* (key: string, fields: Record<string, unknown> = {}) {
            const c = yield* contact(account, fields)
            people[key] = c.id
            return c
          }
          const ok = yield* make("ok", { firstName: "Ada" })
          yield* make("pending", { status: "PENDING" })
          yield* make("unsubscribed", { status: "UNSUBSCRIBED" })
          yield* make("bounced", { status: "BOUNCED" })
          yield* make("complained", { status: "COMPLAINED" })
          yield* make("cleaned", { status: "CLEANED" })
          const suppressed = yield* Effect.forEach(["Bounce", "Complaint", "Manual", "Unsubscribe"] as const, (reason) =>
            Effect.gen(function* () {
              const c = yield* make(`s-${reason}`)
              yield* (yield* Suppressions).add(account, { email: c.email, reason })
              return c
            }))
          const tagOut = yield* make("tagOut")
          const ownOut = yield* make("ownOut")
          const removed = yield* make("removed")
          yield* addMembers(account, list.id, Object.values(people))
          // Opted out of the list's topic tag and of the campaign's topic (the topic member routes leave lists alone).
          yield* (yield* Topics).addMember(account, tag.id, tagOut.email)
          yield* (yield* Topics).addMember(account, own.id, ownOut.email)
          yield* (yield* Lists).removeMembers(account, list.id, { contactIds: [removed.id] })
          const campaign = yield* draft(account, [list.id], { topicId: own.id })
          yield* (yield* Campaigns).send(account, campaign.id, {})
          expect(yield* drain(account, campaign.id)).toEqual(["complete", "sent", "finished"])
          const figures = yield* progress(account, campaign.id)
          expect(figures.dropped).toEqual({
            CONTACT_UNSUBSCRIBED: 1, CONTACT_BOUNCED: 1, CONTACT_COMPLAINED: 1, CONTACT_CLEANED: 1,
            BOUNCE_SUPPRESSION: 1, COMPLAINT_SUPPRESSION: 1, MANUAL_SUPPRESSION: 1, UNSUBSCRIBE_SUPPRESSION: 1,
            TOPIC_OPT_OUT: 2,
          })
          expect(figures.queued).toBe(1)
          expect(figures.audienceSize).toBe(11)
          expect(figures.resolved).toBe(11)
          expect(Option.isSome(yield* messageOf(account.id, campaign.id, ok.id))).toBe(true)
          for (const c of suppressed) expect(Option.isNone(yield* messageOf(account.id, campaign.id, c.id))).toBe(true)
          expect(Option.isNone(yield* messageOf(account.id, campaign.id, people["pending"]!))).toBe(true)
        }))

      it.effect("the backend drops exactly whom core's table drops, for every combination of status, suppression and opt-out", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const topics = yield* Topics
          const tag = (yield* topics.create(account, { name: "Tag" })).topic
          const own = (yield* topics.create(account, { name: "Own" })).topic
          const list = yield* staticList(account, { suppressionGroupId: tag.id })
          const statuses = ["ACTIVE", "UNSUBSCRIBED", "BOUNCED", "COMPLAINED", "CLEANED"] as const
          const reasons = [null, "Bounce", "Complaint", "Manual", "Unsubscribe"] as const
          const optOuts = [null, "own", "tag"] as const
          const expected = new Map<string, string | null>()
          const ids: Array<string> = []
          for (const status of statuses) for (const reason of reasons) for (const optOut of optOuts) {
            const c = yield* contact(account, { status })
            if (reason !== null) yield* (yield* Suppressions).add(account, { email: c.email, reason })
            if (optOut !== null) yield* topics.addMember(account, optOut === "own" ? own.id : tag.id, c.email)
            // Core's rule, from the contact as it now stands (a suppression may have moved its status).
            const stored = Option.getOrThrow(yield* (yield* Store).contacts.findById(account.id, c.id))
            expected.set(c.id, campaignIneligibility(resolveAudience(own.id, [list]), {
              contactStatus: stored.status, suppression: reason, optedOutOfAny: optOut !== null,
            }) ?? null)
            ids.push(c.id)
          }
          yield* addMembers(account, list.id, ids)
          const campaign = yield* draft(account, [list.id], { topicId: own.id })
          yield* (yield* Campaigns).send(account, campaign.id, {})
          yield* drain(account, campaign.id)
          for (const id of ids) {
            const message = yield* messageOf(account.id, campaign.id, id)
            expect([id, Option.isSome(message)]).toEqual([id, expected.get(id) === null])
          }
          const dropped: Record<string, number> = {}
          for (const reason of expected.values()) if (reason !== null) dropped[reason] = (dropped[reason] ?? 0) + 1
          expect((yield* progress(account, campaign.id)).dropped).toEqual(dropped)
        }))

      it.effect("members of several lists, static and dynamic, get the campaign once", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const a = yield* staticList(account)
          const b = yield* staticList(account, { name: "Others" })
          const both = yield* contact(account, { tags: ["vip"] })
          const onlyA = yield* contact(account)
          yield* addMembers(account, a.id, [both.id, onlyA.id])
          yield* addMembers(account, b.id, [both.id])
          const dynamic = yield* staticList(account, {
            name: "VIPs", type: "DYNAMIC",
            segmentRules: { all: [{ field: "tag", operator: "has", value: "vip" }] },
          })
          const campaign = yield* draft(account, [a.id, b.id, dynamic.id])
          const sent = yield* (yield* Campaigns).send(account, campaign.id, {})
          expect(sent.audienceSize).toBe(2)
          yield* drain(account, campaign.id)
          expect((yield* progress(account, campaign.id)).queued).toBe(2)
        }))

      it.effect("queued in chunks, sent in paced runs: pause stops both, resume continues where each stopped, nobody gets it twice; cancel ends it", () =>
        Effect.gen(function* () {
          const { account, list, campaign, ordered } = yield* sentToFive
          const campaigns = yield* Campaigns
          expect(yield* small(chunk(account, campaign.id))).toBe("queued")
          expect((yield* campaigns.pause(account, campaign.id)).status).toBe("paused")
          expect(yield* small(chunk(account, campaign.id))).toBe("idle")
          expect(yield* small(sendRun(account, campaign.id))).toBe("idle")
          expect((yield* progress(account, campaign.id)).queued).toBe(2)
          expect((yield* campaigns.resume(account, campaign.id)).status).toBe("running")
          expect(yield* small(queueAll(account, campaign.id))).toEqual(["queued", "complete"])
          expect((yield* campaigns.get(account, campaign.id)).queuedAt).not.toBeNull()
          expect(yield* small(sendRun(account, campaign.id))).toBe("sent")
          // Paused between two send runs: the first two messages are written, the other three wait.
          yield* campaigns.pause(account, campaign.id)
          expect(yield* small(sendRun(account, campaign.id))).toBe("idle")
          expect(yield* Effect.forEach(ordered, (m) => Effect.map(messageOf(account.id, campaign.id, m.id), Option.isSome)))
            .toEqual([true, true, false, false, false])
          expect((yield* progress(account, campaign.id)).queued).toBe(5)
          yield* campaigns.resume(account, campaign.id)
          expect(yield* small(sendAll(account, campaign.id))).toEqual(["sent", "sent", "finished"])
          expect((yield* progress(account, campaign.id)).queued).toBe(5)
          expect(yield* campaignQueued(account.id, campaign.id)).toBe(5)
          expect((yield* campaigns.get(account, campaign.id)).status).toBe("finished")
          expect(yield* codeOf(campaigns.pause(account, campaign.id))).toBe("VALIDATION_ERROR")

          const second = yield* draft(account, [list.id])
          yield* campaigns.send(account, second.id, {})
          yield* small(queueAll(account, second.id))
          expect(yield* small(sendRun(account, second.id))).toBe("sent")
          expect((yield* campaigns.cancel(account, second.id)).status).toBe("cancelled")
          expect(yield* small(sendRun(account, second.id))).toBe("idle")
          const cancelled = yield* progress(account, second.id)
          expect([cancelled.queued, cancelled.cancelled]).toEqual([2, 3])
          expect(yield* campaignQueued(account.id, second.id)).toBe(2)
          expect(yield* codeOf(campaigns.resume(account, second.id))).toBe("VALIDATION_ERROR")
        }))

      it.effect("a recipient whose contact is deleted after it was queued gets no message and is dropped as CONTACT_DELETED", () =>
        Effect.gen(function* () {
          const { account, campaign, ordered } = yield* sentToFive
          const contacts = yield* Contacts
          yield* small(queueAll(account, campaign.id))
          // One inside the first send run, and the last of the queue (no run reaches it with a recipient after it).
          yield* contacts.delete(account, ordered[1]!.id)
          yield* contacts.delete(account, ordered[4]!.id)
          expect(yield* small(sendAll(account, campaign.id))).toEqual(["sent", "sent", "finished"])
          expect(yield* Effect.forEach(ordered, (m) => Effect.map(messageOf(account.id, campaign.id, m.id), Option.isSome)))
            .toEqual([true, false, true, true, false])
          const figures = yield* progress(account, campaign.id)
          expect(figures.dropped).toEqual({ [contactDeletedReason]: 2 })
          expect([figures.resolved, figures.queued, figures.cancelled]).toEqual([5, 3, 0])
          expect(yield* campaignQueued(account.id, campaign.id)).toBe(3)
        }))

      it.effect("a chunk or a send run that dies half-way writes nothing and runs again; a job delivered twice does nothing the second time", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const list = yield* staticList(account)
          const members = yield* Effect.forEach([1, 2, 3], () => contact(account))
          yield* addMembers(account, list.id, members.map((m) => m.id))
          const campaign = yield* draft(account, [list.id])
          yield* (yield* Campaigns).send(account, campaign.id, {})
          const store = yield* Store
          // The process "dies" after the recipients were inserted, before the cursor moved: the transaction rolls back.
          const dying = { ...store, campaigns: { ...store.campaigns, save: () => Effect.dieMessage("process killed") } }
          const chunkDied = yield* Effect.exit(Effect.provideService(chunk(account, campaign.id), Store, dying))
          expect(chunkDied._tag).toBe("Failure")
          expect((yield* progress(account, campaign.id)).resolved).toBe(0)
          expect(yield* queueAll(account, campaign.id)).toEqual(["complete"])
          // The same chunk job delivered again (it names the cursor it started from) does nothing.
          expect(yield* Effect.flatMap(now, (at) => runChunk(account.id, campaign.id, at, null))).toBe("idle")
          expect((yield* progress(account, campaign.id)).resolved).toBe(3)

          // A send run dies after the messages were written, before they committed.
          const quota = yield* Quota
          const crashing = { ...quota, reserve: () => Effect.dieMessage("process killed") }
          const runDied = yield* Effect.exit(Effect.provideService(sendRun(account, campaign.id), Quota, crashing as never))
          expect(runDied._tag).toBe("Failure")
          for (const m of members) expect(Option.isNone(yield* messageOf(account.id, campaign.id, m.id))).toBe(true)
          expect(yield* Effect.flatMap(now, (at) => runSend(account.id, campaign.id, at, null))).toBe("sent")
          // The queue delivers the same run twice: its cursor is no longer the campaign's.
          expect(yield* Effect.flatMap(now, (at) => runSend(account.id, campaign.id, at, null))).toBe("idle")
          expect(yield* sendAll(account, campaign.id)).toEqual(["finished"])
          const figures = yield* progress(account, campaign.id)
          expect([figures.resolved, figures.queued]).toEqual([3, 3])
          expect(yield* campaignQueued(account.id, campaign.id)).toBe(3)
        }))

      it.effect("the quota: an audience larger than the quota left is refused before starting; a quota used up mid-way pauses the campaign", () =>
        Effect.gen(function* () {
          const account = yield* newAccount("micro")
          const list = yield* staticList(account)
          const members = yield* Effect.forEach([1, 2, 3, 4], () => contact(account))
          yield* addMembers(account, list.id, members.map((m) => m.id))
          const store = yield* Store
          const period = (yield* (yield* Quota).usage(account)).period
          yield* store.quota.reserve(account.id, period, 20_000 - 3, 20_000)
          const campaigns = yield* Campaigns
          const campaign = yield* draft(account, [list.id])
          expect(yield* codeOf(campaigns.send(account, campaign.id, {}))).toBe("QUOTA_EXCEEDED")
          expect((yield* campaigns.get(account, campaign.id)).status).toBe("draft")

          const other = yield* newAccount("micro")
          const otherList = yield* staticList(other)
          const readers = yield* Effect.forEach([1, 2, 3, 4], () => contact(other))
          yield* addMembers(other, otherList.id, readers.map((m) => m.id))
          const running = yield* draft(other, [otherList.id])
          yield* campaigns.send(other, running.id, {})
          yield* small(queueAll(other, running.id))
          expect(yield* small(sendRun(other, running.id))).toBe("sent")
          yield* store.quota.reserve(other.id, period, 20_000 - 2 - 1, 20_000)
          expect(yield* small(sendRun(other, running.id))).toBe("quota")
          const paused = yield* campaigns.get(other, running.id)
          expect(paused.status).toBe("paused")
          expect(paused.stopReason).toBe("QUOTA_EXCEEDED")
          expect(yield* campaignQueued(other.id, running.id)).toBe(2)
          expect((yield* progress(other, running.id)).queued).toBe(4)
        }))

      it.effect("scheduled within a year: nothing is queued before its time; drafts alone are edited and deleted; foreign ids are not found", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const list = yield* staticList(account)
          yield* addMembers(account, list.id, [(yield* contact(account)).id])
          const campaigns = yield* Campaigns
          const campaign = yield* draft(account, [list.id])
          const at = yield* now
          const late = new Date(at.getTime() + 400 * 86_400_000).toISOString()
          expect(yield* codeOf(campaigns.send(account, campaign.id, { scheduledAt: late }))).toBe("VALIDATION_ERROR")
          const soon = new Date(at.getTime() + 3_600_000)
          expect((yield* campaigns.update(account, campaign.id, { subject: "Edited" })).subject).toBe("Edited")
          const scheduled = yield* campaigns.send(account, campaign.id, { scheduledAt: soon.toISOString() })
          expect(scheduled.status).toBe("scheduled")
          expect(enqueued.some((j) => j.name === "campaign.chunk" && j.runAt?.getTime() === soon.getTime())).toBe(true)
          expect(yield* chunk(account, campaign.id)).toBe("idle")
          expect(yield* codeOf(campaigns.update(account, campaign.id, { subject: "Again" }))).toBe("VALIDATION_ERROR")
          expect(yield* codeOf(campaigns.remove(account, campaign.id))).toBe("VALIDATION_ERROR")
          expect(yield* runChunk(account.id, campaign.id, new Date(soon.getTime() + 1))).toBe("complete")
          expect((yield* campaigns.get(account, campaign.id)).status).toBe("running")
          expect(yield* sendAll(account, campaign.id)).toEqual(["sent", "finished"])
          expect((yield* campaigns.get(account, campaign.id)).status).toBe("finished")
          const stranger = yield* newAccount()
          expect(yield* codeOf(campaigns.get(stranger, campaign.id))).toBe("RESOURCE_NOT_FOUND")
          const other = yield* draft(account, [list.id])
          expect((yield* campaigns.remove(account, other.id)).deleted).toBe(true)
          expect(yield* codeOf(campaigns.get(account, other.id))).toBe("RESOURCE_NOT_FOUND")
        }))

      it.effect("campaign mail is personalised, carries List-Unsubscribe headers and campaignId, and its unsubscribe link records the campaignId", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const list = yield* staticList(account)
          const reader = yield* contact(account, { firstName: "Grace", customFields: { city: "Paris" } })
          yield* addMembers(account, list.id, [reader.id])
          const campaign = yield* draft(account, [list.id])
          yield* (yield* Campaigns).send(account, campaign.id, {})
          yield* drain(account, campaign.id)
          const message = Option.getOrThrow(yield* messageOf(account.id, campaign.id, reader.id))
          yield* deliver(account.id, message.id)
          const [mail] = mailer.sentTo(reader.email)
          expect(mail?.subject).toBe("News for Grace")
          expect(mail?.html).toContain("Hi Grace from Paris")
          expect(mail?.headers?.["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click")
          const url = /<(https?:[^>]+)>/.exec(mail?.headers?.["List-Unsubscribe"] ?? "")?.[1]
          expect(url).toBeDefined()
          const store = yield* Store
          const delivered = (yield* store.events.list(account.id, { type: "email.delivered" })).filter((e) => e.details["messageId"] === message.id)
          expect(delivered.map((e) => e.details["campaignId"])).toEqual([campaign.id])
          yield* (yield* LinkUnsubscribes).press(url!.split("/").at(-1)!)
          const [unsubscribed] = yield* store.events.list(account.id, { type: "contact.unsubscribed" })
          expect(unsubscribed?.details["campaignId"]).toBe(campaign.id)
          yield* recordCampaignUnsubscribes([unsubscribed!])
          const figures = yield* progress(account, campaign.id)
          expect(figures).toMatchObject({ sent: 1, delivered: 1, unsubscribed: 1, queued: 0 })
        }))

      it.effect("a campaign with a design renders its live release for each recipient, with {{contact.*}}; the design's usage lists it", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const caller = { account, application: null }
          const designs = yield* Designs
          const design = yield* designs.create(caller, {
            key: freshKey("news"), locale: "en",
            draft: { name: "News", subject: "Letter", html: "<p>Dear {{contact.firstName}} ({{edition}})</p><a href=\"{{unsubscribe_url}}\">x</a>" },
          })
          const list = yield* staticList(account)
          const reader = yield* contact(account, { firstName: "Ada" })
          yield* addMembers(account, list.id, [reader.id])
          const campaign = yield* draft(account, [list.id], { templateId: design.id, html: null, variables: { edition: "No. 7" } })
          // A design never published has no release to send: the campaign stays a draft, as a send by templateId is refused.
          expect(yield* codeOf((yield* Campaigns).send(account, campaign.id, {}))).toBe("TEMPLATE_NOT_PUBLISHED")
          expect((yield* (yield* Campaigns).get(account, campaign.id)).status).toBe("draft")
          yield* designs.publish(caller, design.id, 1)
          expect((yield* designs.usage(caller, design.id)).campaigns.map((c) => c.id)).toEqual([campaign.id])
          yield* (yield* Campaigns).send(account, campaign.id, {})
          yield* drain(account, campaign.id)
          const message = Option.getOrThrow(yield* messageOf(account.id, campaign.id, reader.id))
          yield* deliver(account.id, message.id)
          const [mail] = mailer.sentTo(reader.email)
          expect(mail?.html).toContain("Dear Ada (No. 7)")
          expect(mail?.subject).toBe("News for Ada")
          expect((yield* progress(account, campaign.id)).delivered).toBe(1)
          yield* designs.lifecycle(caller, design.id, { action: "retire" })
          const late = yield* draft(account, [list.id], { templateId: design.id, html: null })
          expect(yield* codeOf((yield* Campaigns).send(account, late.id, {}))).toBe("TEMPLATE_RETIRED")
        }))

      it.effect("a campaign's brand: an unknown one is not found; a design campaign renders the campaign's brand; the brand lists the campaign and is not deleted while it does", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const caller = { account, application: null }
          const brands = yield* Brands
          const bound = (yield* brands.create(caller, { name: "Bound", colors: { primary: "#123456" } })).brand
          const chosen = (yield* brands.create(caller, { name: "Chosen", colors: { primary: "#654321" } })).brand
          const designs = yield* Designs
          const design = yield* designs.create(caller, {
            key: freshKey("branded"), locale: "en", brandId: bound.id,
            draft: { name: "News", subject: "Letter", html: "<p style=\"color: {{theme.colors.primary}}\">{{theme.name}}</p><a href=\"{{unsubscribe_url}}\">x</a>" },
          })
          yield* designs.publish(caller, design.id, 1)
          const list = yield* staticList(account)
          const reader = yield* contact(account, { firstName: "Ada" })
          yield* addMembers(account, list.id, [reader.id])
          const fields = { templateId: design.id, html: null }
          expect(yield* codeOf(draft(account, [list.id], { ...fields, brandId: "brd_missing" }))).toBe("BRAND_NOT_FOUND")
          const campaign = yield* draft(account, [list.id], { ...fields, brandId: chosen.id })
          expect((yield* brands.usage(caller, chosen.id)).campaigns.map((c) => c.id)).toEqual([campaign.id])
          expect((yield* brands.usage(caller, bound.id)).campaigns).toEqual([])
          const refused = yield* Effect.flip(brands.remove(caller, chosen.id))
          expect(refused.code).toBe("BRAND_IN_USE")
          expect(refused.message).toContain("1 campaign")
          yield* (yield* Campaigns).send(account, campaign.id, {})
          yield* drain(account, campaign.id)
          const message = Option.getOrThrow(yield* messageOf(account.id, campaign.id, reader.id))
          yield* deliver(account.id, message.id)
          const [mail] = mailer.sentTo(reader.email)
          expect(mail?.html).toContain("Chosen")
          expect(mail?.html).toContain("#654321")
          expect(mail?.html).not.toContain("#123456")
        }))

      it.effect("a test send goes to the given addresses as marketing mail and counts against the quota", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const list = yield* staticList(account)
          const campaign = yield* draft(account, [list.id])
          const quota = yield* Quota
          const before = (yield* quota.usage(account)).used
          const to = fresh("me") as EmailAddress
          const sent = yield* (yield* Campaigns).test(account, campaign.id, { to: [to] })
          expect(sent.to).toEqual([to])
          expect((yield* quota.usage(account)).used).toBe(before + 1)
          expect(yield* codeOf((yield* Campaigns).test(account, campaign.id, { to: [] }))).toBe("VALIDATION_ERROR")
        }))
    })
  })
