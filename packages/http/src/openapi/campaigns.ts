/** The campaigns API (/v1/campaigns) as the OpenAPI document describes it (docs/campaigns.md). Every write first
 *  checks the plan has campaigns (Micro or above: PLAN_UPGRADE_REQUIRED). */
import {
  CampaignSettingsInput, CampaignStatus, CreateCampaignInput, SendCampaignInput, SendResult, TestCampaignInput, UpdateCampaignInput,
} from "@mailroom/core"
import { Schema } from "effect"
import { CampaignsParams } from "../routes/campaigns.js"
import { Id, Ok, Page, type RouteDescription } from "./describe.js"
import { DateString, Deleted } from "./response-schemas.js"

const read = { apiKey: "contacts:read" } as const
const write = { apiKey: "emails:send" } as const
const byId = { id: Id }
const NullableDate = Schema.NullOr(DateString)
const Address = Schema.Struct({ email: Schema.String, name: Schema.optional(Schema.String) })

/** routes/campaigns.ts, campaignBody. */
const CampaignResponse = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  status: CampaignStatus,
  listIds: Schema.Array(Schema.String),
  topicId: Schema.NullOr(Schema.String),
  templateId: Schema.NullOr(Schema.String),
  brandId: Schema.NullOr(Schema.String),
  subject: Schema.String,
  html: Schema.NullOr(Schema.String),
  text: Schema.NullOr(Schema.String),
  from: Address,
  replyTo: Schema.NullOr(Address),
  variables: Schema.Record({ key: Schema.String, value: Schema.String }),
  scheduledAt: NullableDate,
  startedAt: NullableDate,
  queuedAt: NullableDate,
  finishedAt: NullableDate,
  stopReason: Schema.NullOr(Schema.String),
  createdAt: DateString,
  updatedAt: DateString,
})

const ProgressResponse = Schema.Struct({
  audienceSize: Schema.NullOr(Schema.Number),
  resolved: Schema.Number,
  dropped: Schema.Record({ key: Schema.String, value: Schema.Number }),
  queued: Schema.Number,
  cancelled: Schema.Number,
  sent: Schema.Number,
  delivered: Schema.Number,
  bounced: Schema.Number,
  opened: Schema.Number,
  clicked: Schema.Number,
  unsubscribed: Schema.Number,
})

const WithProgress = Schema.extend(CampaignResponse, Schema.Struct({ progress: ProgressResponse }))
const Settings = Schema.Struct({ messagesPerSecond: Schema.Number })
const found = ["RESOURCE_NOT_FOUND"] as const
const control = (action: string, summary: string): RouteDescription => ({
  method: "post", path: `/v1/campaigns/{id}/${action}`, tag: "Campaigns", summary, access: write, params: byId,
  success: { status: 200, description: "The campaign", schema: Ok(CampaignResponse) },
  errors: [...found, "VALIDATION_ERROR", "PLAN_UPGRADE_REQUIRED"],
})

const example = {
  name: "March newsletter", listIds: ["lst_01"], subject: "News for {{contact.firstName}}",
  html: "<p>Hello {{contact.firstName}}</p><p><a href=\"{{unsubscribe_url}}\">Unsubscribe</a></p>",
  from: { email: "news@example.com", name: "Example" },
}

export const campaignRoutes: ReadonlyArray<RouteDescription> = [
  {
    method: "get", path: "/v1/campaigns", tag: "Campaigns", summary: "List campaigns", access: read, query: CampaignsParams,
    success: { status: 200, description: "A page of campaigns, newest first", schema: Page(CampaignResponse) }, errors: [],
  },
  {
    method: "post", path: "/v1/campaigns", tag: "Campaigns", summary: "Create a draft campaign", access: write,
    body: { schema: CreateCampaignInput, example },
    success: { status: 201, description: "The draft", schema: Ok(CampaignResponse) },
    errors: ["PLAN_UPGRADE_REQUIRED", "LIST_NOT_FOUND", "TOPIC_NOT_FOUND"],
  },
  {
    method: "get", path: "/v1/campaigns/settings", tag: "Campaigns", summary: "Read the campaign rate", access: read,
    success: { status: 200, description: "Messages per second", schema: Ok(Settings) }, errors: [],
  },
  {
    method: "put", path: "/v1/campaigns/settings", tag: "Campaigns", summary: "Set the campaign rate", access: write,
    body: { schema: CampaignSettingsInput, example: { messagesPerSecond: 20 } },
    success: { status: 200, description: "Messages per second", schema: Ok(Settings) }, errors: [],
  },
  {
    method: "get", path: "/v1/campaigns/{id}", tag: "Campaigns", summary: "Read a campaign with its progress", access: read,
    params: byId, success: { status: 200, description: "The campaign and its figures", schema: Ok(WithProgress) }, errors: [...found],
  },
  {
    method: "patch", path: "/v1/campaigns/{id}", tag: "Campaigns", summary: "Edit a draft", access: write, params: byId,
    body: { schema: UpdateCampaignInput, example: { subject: "New subject" } },
    success: { status: 200, description: "The draft", schema: Ok(CampaignResponse) },
    errors: [...found, "LIST_NOT_FOUND", "TOPIC_NOT_FOUND"],
  },
  {
    method: "delete", path: "/v1/campaigns/{id}", tag: "Campaigns", summary: "Delete a draft", access: write, params: byId,
    success: { status: 200, description: "Deleted", schema: Ok(Deleted) }, errors: [...found],
  },
  {
    method: "post", path: "/v1/campaigns/{id}/send", tag: "Campaigns", summary: "Send a draft now or at scheduledAt",
    access: write, params: byId, body: { schema: SendCampaignInput, required: false, example: { scheduledAt: "2026-12-01T09:00:00Z" } },
    success: { status: 200, description: "The campaign, running or scheduled", schema: Ok(CampaignResponse) },
    errors: [...found, "PLAN_UPGRADE_REQUIRED", "QUOTA_EXCEEDED", "LIST_NOT_FOUND", "TOPIC_NOT_FOUND", "SENDER_DOMAIN_NOT_VERIFIED", "TEMPLATE_NOT_PUBLISHED", "TEMPLATE_RETIRED"],
  },
  {
    method: "post", path: "/v1/campaigns/{id}/test", tag: "Campaigns", summary: "Send the campaign to a few addresses",
    access: write, params: byId, body: { schema: TestCampaignInput, example: { to: ["me@example.com"] } },
    success: { status: 200, description: "The test message, queued", schema: Ok(SendResult) },
    errors: [...found, "PLAN_UPGRADE_REQUIRED", "QUOTA_EXCEEDED", "TEMPLATE_NOT_PUBLISHED", "TEMPLATE_RETIRED"],
  },
  control("pause", "Pause a running or scheduled campaign"),
  control("resume", "Resume a paused campaign where it stopped"),
  control("cancel", "Cancel a campaign for good"),
]
