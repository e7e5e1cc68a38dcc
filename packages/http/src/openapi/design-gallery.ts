/** The starter gallery (/v1/designs/catalog, /adopt, /v1/designs/{id}/sync) and image assets (/v1/designs/assets) as
 *  the OpenAPI document describes them, with the schemas their routes decode with (docs/templates.md). */
import {
  AdoptStarterInput, Block, CatalogFilters, InspectStarterInput, SyncInput, UploadAssetInput,
} from "@mailroom/core"
import { Schema } from "effect"
import { AssetListParams } from "../routes/design-gallery.js"
import { DesignResponse } from "./designs.js"
import { Id, Ok, type RouteDescription } from "./describe.js"
import { AnyObject, DateString } from "./response-schemas.js"

const read = { apiKey: "templates:read" } as const
const write = { apiKey: "templates:write" } as const
const byId = { id: Id }

/** services/gallery.ts, catalogEntry. */
const CatalogEntry = Schema.Struct({
  key: Schema.String,
  name: Schema.String,
  description: Schema.String,
  category: Schema.Literal("authentication", "notifications", "billing", "marketing"),
  version: Schema.Number,
  locale: Schema.String,
  subject: Schema.String,
  variables: AnyObject,
  sampleData: AnyObject,
})

const Inspected = Schema.Struct({
  ...CatalogEntry.fields,
  preheader: Schema.String,
  mjml: Schema.String,
  text: Schema.NullOr(Schema.String),
  blocks: Schema.Array(Block),
  preview: Schema.Struct({ subject: Schema.String, html: Schema.String, text: Schema.String }),
})

const SyncResponse = Schema.Struct({
  starter: Schema.String,
  adoptedVersion: Schema.Number,
  currentVersion: Schema.Number,
  behind: Schema.Boolean,
  changed: Schema.Array(Schema.String),
  applied: Schema.Boolean,
  design: DesignResponse,
})

/** routes/design-gallery.ts, assetBody. */
const AssetResponse = Schema.Struct({
  id: Schema.String,
  applicationKey: Schema.String,
  name: Schema.NullOr(Schema.String),
  url: Schema.String,
  contentType: Schema.Literal("image/png", "image/jpeg"),
  width: Schema.Number,
  height: Schema.Number,
  size: Schema.Number,
  hash: Schema.String,
  createdAt: DateString,
})

const AssetPage = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Array(AssetResponse),
  pagination: Schema.Struct({ limit: Schema.Number, nextCursor: Schema.NullOr(Schema.String), hasMore: Schema.Boolean }),
})

export const designGalleryRoutes: ReadonlyArray<RouteDescription> = [
  {
    method: "get", path: "/v1/designs/catalog", tag: "Designs", summary: "Browse the starter gallery", access: read,
    query: CatalogFilters, success: { status: 200, description: "The starters", schema: Ok(Schema.Array(CatalogEntry)) },
    errors: ["PLAN_UPGRADE_REQUIRED"],
  },
  {
    method: "post", path: "/v1/designs/catalog", tag: "Designs", summary: "Inspect one starter, with a preview",
    access: read, body: { schema: InspectStarterInput, example: { key: "welcome", variables: { first_name: "Ada" } } },
    success: { status: 200, description: "The starter's source, blocks and a preview in the default theme", schema: Ok(Inspected) },
    errors: ["PLAN_UPGRADE_REQUIRED", "RESOURCE_NOT_FOUND"],
  },
  {
    method: "post", path: "/v1/designs/catalog/adopt", tag: "Designs", summary: "Adopt a starter as a new draft",
    access: write, body: { schema: AdoptStarterInput, example: { starter: "welcome", key: "welcome", asBlocks: true } },
    success: { status: 201, description: "The template created from the starter", schema: Ok(DesignResponse) },
    errors: ["PLAN_UPGRADE_REQUIRED", "API_KEY_LIMIT_REACHED", "DESIGN_ALREADY_EXISTS"],
  },
  {
    method: "post", path: "/v1/designs/{id}/sync", tag: "Designs",
    summary: "Compare an adopted template with its starter, or apply the starter as a new draft revision",
    access: write, params: byId, body: { schema: SyncInput, example: { apply: true, expectedRevision: 2 } },
    success: { status: 200, description: "The comparison, and the template (with its new revision when applied)", schema: Ok(SyncResponse) },
    errors: ["TEMPLATE_NOT_FOUND", "PLAN_UPGRADE_REQUIRED", "REVISION_CONFLICT"],
  },
  {
    method: "get", path: "/v1/designs/assets", tag: "Designs", summary: "List image assets", access: read,
    query: AssetListParams, success: { status: 200, description: "A page of assets, newest first", schema: AssetPage },
    errors: ["PLAN_UPGRADE_REQUIRED"],
  },
  {
    method: "post", path: "/v1/designs/assets", tag: "Designs",
    summary: "Upload an image (PNG, JPEG or WebP, up to 700 KiB, base64)", access: write,
    body: { schema: UploadAssetInput, example: { name: "logo.webp", contentType: "image/webp", data: "<base64>" } },
    success: {
      status: 201, description: "The asset, resized for email, with its immutable URL",
      schema: Ok(Schema.Struct({ ...AssetResponse.fields, converted: Schema.Boolean })),
    },
    errors: ["PLAN_UPGRADE_REQUIRED"],
  },
  {
    method: "get", path: "/v1/designs/assets/{id}", tag: "Designs", summary: "Read an image asset", access: read,
    params: byId, success: { status: 200, description: "The asset", schema: Ok(AssetResponse) },
    errors: ["PLAN_UPGRADE_REQUIRED", "RESOURCE_NOT_FOUND"],
  },
  {
    method: "delete", path: "/v1/designs/assets/{id}", tag: "Designs",
    summary: "Delete an image asset from the list (its URL keeps serving)", access: write, params: byId,
    success: { status: 200, description: "Deleted", schema: Ok(Schema.Struct({ id: Schema.String, deleted: Schema.Literal(true) })) },
    errors: ["PLAN_UPGRADE_REQUIRED", "RESOURCE_NOT_FOUND"],
  },
]
