/** /v1/campaigns: campaigns to lists, in the contacts envelope style ({ success, data }; the list adds meta). Reads
 *  need contacts:read, everything else emails:send. An unknown or foreign id answers 404 RESOURCE_NOT_FOUND.
 *  docs/campaigns.md describes bodies and answers. */
import {
  type Campaign, CampaignListFilters, campaignLimits, type CampaignProgress, Campaigns, limitParam, PageParam,
} from "@mailroom/core"
import { Effect, Schema } from "effect"
import { Hono } from "hono"
import { requireScope } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { ok, pageEnvelope } from "../envelope.js"
import { decodeQuery, readJson } from "../validation.js"

/** GET /campaigns: page, limit 1-100 (default 20), status. */
export const CampaignsParams = Schema.extend(CampaignListFilters, Schema.Struct({
  page: Schema.optionalWith(PageParam, { default: () => 1 }),
  limit: Schema.optionalWith(limitParam(campaignLimits.maxPageSize), { default: () => campaignLimits.pageSize }),
}))

const iso = (date: Date | null) => date === null ? null : date.toISOString()

/** A campaign as the API shows it; `progress` on reads of one campaign. */
export const campaignBody = (c: Campaign, progress?: CampaignProgress) => ({
  id: c.id,
  name: c.name,
  status: c.status,
  listIds: c.listIds,
  topicId: c.topicId,
  templateId: c.templateId,
  brandId: c.brandId,
  subject: c.subject,
  html: c.html,
  text: c.text,
  from: c.from,
  replyTo: c.replyTo,
  variables: c.variables,
  scheduledAt: iso(c.scheduledAt),
  startedAt: iso(c.startedAt),
  queuedAt: iso(c.queuedAt),
  finishedAt: iso(c.finishedAt),
  stopReason: c.stopReason,
  createdAt: c.createdAt.toISOString(),
  updatedAt: c.updatedAt.toISOString(),
  ...(progress === undefined ? {} : { progress }),
})

const read = requireScope("contacts:read")
const write = requireScope("emails:send")

/** A body that may be empty (POST …/send without a schedule). */
const optionalJson = (c: Parameters<typeof readJson>[0]) =>
  Effect.catchIf(
    readJson<unknown>(c),
    (error) => error._tag === "ValidationFailed" && error.detail.startsWith("the request body is empty"),
    () => Effect.succeed({}),
  )

export const campaignRoutes = new Hono<MailroomEnv>()
  .get("/campaigns", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const params = yield* decodeQuery(c, CampaignsParams)
      const page = yield* (yield* Campaigns).list(c.get("account"), params)
      return c.json(pageEnvelope(page.campaigns.map((x) => campaignBody(x)), params, page.total))
    })))
  .post("/campaigns", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* readJson(c)
      return c.json(ok(campaignBody(yield* (yield* Campaigns).create(c.get("account"), body))), 201)
    })))
  .get("/campaigns/settings", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(yield* (yield* Campaigns).settings(c.get("account"))))
    })))
  .put("/campaigns/settings", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* readJson(c)
      return c.json(ok(yield* (yield* Campaigns).setRate(c.get("account"), body)))
    })))
  .get("/campaigns/:id", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const campaigns = yield* Campaigns
      const campaign = yield* campaigns.get(c.get("account"), c.req.param("id"))
      return c.json(ok(campaignBody(campaign, yield* campaigns.progress(c.get("account"), campaign.id))))
    })))
  .patch("/campaigns/:id", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* readJson(c)
      return c.json(ok(campaignBody(yield* (yield* Campaigns).update(c.get("account"), c.req.param("id"), body))))
    })))
  .delete("/campaigns/:id", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(yield* (yield* Campaigns).remove(c.get("account"), c.req.param("id"))))
    })))
  .post("/campaigns/:id/send", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* optionalJson(c)
      return c.json(ok(campaignBody(yield* (yield* Campaigns).send(c.get("account"), c.req.param("id"), body))))
    })))
  .post("/campaigns/:id/test", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* readJson(c)
      return c.json(ok(yield* (yield* Campaigns).test(c.get("account"), c.req.param("id"), body)))
    })))
  .post("/campaigns/:id/pause", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(campaignBody(yield* (yield* Campaigns).pause(c.get("account"), c.req.param("id")))))
    })))
  .post("/campaigns/:id/resume", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(campaignBody(yield* (yield* Campaigns).resume(c.get("account"), c.req.param("id")))))
    })))
  .post("/campaigns/:id/cancel", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(campaignBody(yield* (yield* Campaigns).cancel(c.get("account"), c.req.param("id")))))
    })))
