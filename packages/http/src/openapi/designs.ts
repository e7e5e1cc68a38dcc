/** The template API (/v1/designs, /v1/capabilities) as the OpenAPI document describes it, with the schemas its routes
 *  decode with. Every design route but /capabilities first checks the plan has Studio templates
 *  (PLAN_UPGRADE_REQUIRED); another account's design answers TEMPLATE_NOT_FOUND. */
import {
  BindBrandInput, Block, CreateDesignInput, type DesignDraft, type Designs, DesignSendInput, DesignStatus, LifecycleInput, PreviewInput,
  PublishInput, ReplaceDraftInput, RollbackInput, SendResult,
} from "@mailroom/core"
import { type Effect, Schema } from "effect"
import { DeliveriesParams, DeliveryResponse, ListParams, VersionParam } from "../routes/designs.js"
import { Id, Ok, type RouteDescription } from "./describe.js"
import { AnyObject, DateString, Deleted } from "./response-schemas.js"

/** A campaign that uses a design or a brand, as the usage routes list it. */
export const CampaignUse = Schema.Struct({ id: Schema.String, name: Schema.String, status: Schema.String, createdAt: DateString })

const read = { apiKey: "templates:read" } as const
const write = { apiKey: "templates:write" } as const
const byId = { id: Id }
const NullableDate = Schema.NullOr(DateString)

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
/** Compiles only when `T` is true: the schemas below are checked against the types the routes answer. */
const same = <T extends true>(): T | undefined => undefined

/** A draft as stored (DesignDraft): its source as the team wrote it. `variables` is the declaration of each variable
 *  the template reads (docs/templates.md); its shape is left open here. */
export const DraftResponse = Schema.Struct({
  name: Schema.String,
  subject: Schema.String,
  format: Schema.Literal("html", "mjml"),
  html: Schema.String,
  text: Schema.NullOr(Schema.String),
  category: Schema.NullOr(Schema.String),
  variables: AnyObject,
  blocks: Schema.optional(Schema.Array(Block)),
  preheader: Schema.optional(Schema.String),
})
same<Same<keyof typeof DraftResponse.Type, keyof DesignDraft>>()
same<DesignDraft extends Omit<typeof DraftResponse.Type, "variables"> ? true : false>()

/** POST /designs/{id}/preview: the rendered subject, html and text, with the brand it rendered under. */
const PreviewResponse = Schema.Struct({
  subject: Schema.String,
  html: Schema.String,
  text: Schema.String,
  brandId: Schema.NullOr(Schema.String),
})
type PreviewAnswer = Designs["preview"] extends (...args: never) => Effect.Effect<infer A, infer _E, infer _R> ? A : never
same<Same<typeof PreviewResponse.Type, PreviewAnswer>>()

/** routes/designs.ts, designBody. */
export const DesignResponse = Schema.Struct({
  id: Schema.String,
  applicationKey: Schema.String,
  key: Schema.String,
  locale: Schema.String,
  status: DesignStatus,
  revision: Schema.Number,
  liveVersion: Schema.NullOr(Schema.Number),
  brandId: Schema.NullOr(Schema.String),
  replacementId: Schema.NullOr(Schema.String),
  draft: DraftResponse,
  createdAt: DateString,
  updatedAt: DateString,
  publishedAt: NullableDate,
  retiredAt: NullableDate,
  source: Schema.NullOr(Schema.Struct({ starter: Schema.String, version: Schema.Number })),
})

/** routes/designs.ts, releaseBody without the snapshot. */
const ReleaseResponse = Schema.Struct({
  version: Schema.Number,
  revision: Schema.Number,
  rolledBackFrom: Schema.NullOr(Schema.Number),
  engine: Schema.String,
  name: Schema.String,
  subject: Schema.String,
  brandId: Schema.NullOr(Schema.String),
  createdAt: DateString,
})

/** A release with its snapshot: source, compiled form and the brand it froze. */
const FullReleaseResponse = Schema.Struct({
  ...ReleaseResponse.fields,
  content: DraftResponse,
  compiled: AnyObject,
  brand: Schema.Unknown,
})

const Released = Schema.Struct({ ...DesignResponse.fields, release: ReleaseResponse })

const CapabilitiesResponse = Schema.Struct({
  permissions: Schema.Array(Schema.String),
  application: Schema.NullOr(Schema.String),
  allowedSenders: Schema.NullOr(Schema.Array(Schema.String)),
  plan: Schema.String,
  studio: Schema.Boolean,
  templates: Schema.Struct({ used: Schema.Number, allowed: Schema.NullOr(Schema.Number) }),
  brands: Schema.Struct({ allowed: Schema.NullOr(Schema.Number) }),
})

const DesignPage = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Array(DesignResponse),
  pagination: Schema.Struct({ limit: Schema.Number, nextCursor: Schema.NullOr(Schema.String), hasMore: Schema.Boolean }),
})

const DeliveryPage = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Array(DeliveryResponse),
  pagination: Schema.Struct({ limit: Schema.Number, nextCursor: Schema.NullOr(Schema.String), hasMore: Schema.Boolean }),
})

const draftExample = { name: "Welcome", subject: "Welcome, {{name}}", format: "html", html: "<p>Hello {{name}}</p>" }

const found = ["TEMPLATE_NOT_FOUND", "PLAN_UPGRADE_REQUIRED"] as const
const written = [...found, "REVISION_CONFLICT"] as const

export const designRoutes: ReadonlyArray<RouteDescription> = [
  {
    method: "get", path: "/v1/capabilities", tag: "Designs", summary: "Read the key's permissions and the plan's Studio capacity",
    access: read, success: { status: 200, description: "What this key and plan allow", schema: Ok(CapabilitiesResponse) },
    errors: [],
  },
  {
    method: "get", path: "/v1/designs", tag: "Designs", summary: "List templates", access: read, query: ListParams,
    success: { status: 200, description: "A page of templates, with the cursor of the next", schema: DesignPage },
    errors: ["PLAN_UPGRADE_REQUIRED"],
  },
  {
    method: "post", path: "/v1/designs", tag: "Designs", summary: "Create a template with its first draft", access: write,
    body: { schema: CreateDesignInput, example: { key: "welcome", locale: "en", draft: draftExample } },
    success: { status: 201, description: "The template created", schema: Ok(DesignResponse) },
    errors: ["PLAN_UPGRADE_REQUIRED", "API_KEY_LIMIT_REACHED", "DESIGN_ALREADY_EXISTS", "BRAND_NOT_FOUND"],
  },
  {
    method: "get", path: "/v1/designs/{id}", tag: "Designs", summary: "Read a template and its draft", access: read,
    params: byId, success: { status: 200, description: "The template", schema: Ok(DesignResponse) }, errors: found,
  },
  {
    method: "patch", path: "/v1/designs/{id}", tag: "Designs", summary: "Replace a template's draft", access: write,
    params: byId, body: { schema: ReplaceDraftInput, example: { expectedRevision: 1, draft: draftExample } },
    success: { status: 200, description: "The template with its new draft and revision", schema: Ok(DesignResponse) },
    errors: written,
  },
  {
    method: "delete", path: "/v1/designs/{id}", tag: "Designs", summary: "Delete a template that never sent",
    access: write, params: byId, success: { status: 200, description: "Deleted", schema: Ok(Deleted) },
    errors: [...found, "TEMPLATE_IN_USE"],
  },
  {
    method: "post", path: "/v1/designs/{id}/publish", tag: "Designs", summary: "Publish the draft as the next release",
    access: write, params: byId, body: { schema: PublishInput, example: { expectedRevision: 1 } },
    success: { status: 200, description: "The template and its new release", schema: Ok(Released) }, errors: written,
  },
  {
    method: "post", path: "/v1/designs/{id}/rollback", tag: "Designs",
    summary: "Release an earlier version's content again", access: write, params: byId,
    body: { schema: RollbackInput, example: { version: 1 } },
    success: { status: 200, description: "The template and its new release", schema: Ok(Released) }, errors: written,
  },
  {
    method: "get", path: "/v1/designs/{id}/releases", tag: "Designs", summary: "List a template's releases, or read one",
    access: read, params: byId, query: VersionParam,
    success: { status: 200, description: "Every release", schema: Ok(Schema.Array(ReleaseResponse)) },
    alternatives: [{ status: 200, description: "One release with its snapshot (version=N)", schema: Ok(FullReleaseResponse) }],
    errors: found,
  },
  {
    method: "patch", path: "/v1/designs/{id}/lifecycle", tag: "Designs", summary: "Retire or restore a template",
    access: write, params: byId, body: { schema: LifecycleInput, example: { action: "retire", replacementId: null } },
    success: { status: 200, description: "The template", schema: Ok(DesignResponse) }, errors: written,
  },
  {
    method: "post", path: "/v1/designs/{id}/brand", tag: "Designs", summary: "Bind a brand to a template, or unbind it",
    access: write, params: byId, body: { schema: BindBrandInput, example: { brandId: null } },
    success: { status: 200, description: "The template", schema: Ok(DesignResponse) }, errors: [...written, "BRAND_NOT_FOUND"],
  },
  {
    method: "post", path: "/v1/designs/{id}/preview", tag: "Designs",
    summary: "Render the draft, the live release or a version", access: read, params: byId,
    body: { schema: PreviewInput, example: { source: "draft", variables: { name: "Ada" } } },
    success: { status: 200, description: "The rendered subject, HTML and text", schema: Ok(PreviewResponse) },
    errors: [...found, "MISSING_TEMPLATE_VARIABLES", "BRAND_NOT_FOUND"],
  },
  {
    method: "post", path: "/v1/designs/{id}/send", tag: "Designs", summary: "Send a template's live release",
    access: { apiKey: "emails:send" }, params: byId,
    headers: { "Idempotency-Key": "Required. Repeat a request with the same key and body to get the first answer again, for 24 hours" },
    body: {
      schema: DesignSendInput,
      example: { from: { email: "hello@example.com" }, to: [{ email: "ada@example.com" }], variables: { name: "Ada" } },
    },
    success: { status: 200, description: "Accepted for delivery", schema: Ok(SendResult) },
    errors: [
      "TEMPLATE_NOT_FOUND", "TEMPLATE_NOT_PUBLISHED", "TEMPLATE_RETIRED", "MISSING_TEMPLATE_VARIABLES", "SENDER_NOT_ALLOWED",
      "SENDER_DOMAIN_NOT_VERIFIED", "QUOTA_EXCEEDED", "IDEMPOTENCY_KEY_REUSED", "TOPIC_NOT_FOUND",
    ],
  },
  {
    method: "get", path: "/v1/designs/{id}/deliveries", tag: "Designs",
    summary: "Page the messages sent through a template, with their events", access: read, params: byId,
    query: DeliveriesParams,
    success: { status: 200, description: "A page of messages, newest first, with the cursor of the next", schema: DeliveryPage },
    errors: found,
  },
  {
    method: "get", path: "/v1/designs/{id}/usage", tag: "Designs", summary: "Count the messages a template sent and list the campaigns using it",
    access: read, params: byId,
    success: {
      status: 200, description: "Its sends and campaigns",
      schema: Ok(Schema.Struct({
        sends: Schema.Number,
        campaigns: Schema.Array(CampaignUse),
      })),
    },
    errors: found,
  },
]
