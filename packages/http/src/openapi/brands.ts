/** Brands (/v1/designs/brands) and the deprecated /v1/brand-theme as the OpenAPI document describes them, with the
 *  schemas their routes decode with. Brand routes need the Micro plan (PLAN_UPGRADE_REQUIRED); another account's brand
 *  answers BRAND_NOT_FOUND. */
import { colorNames, CreateBrandInput, legacyTemplateHeaders, UpdateBrandInput } from "@mailroom/core"
import { Schema } from "effect"
import { BrandListParams, type brandBody, LegacyBrandThemeInput } from "../routes/brands.js"
import { CampaignUse, DesignResponse } from "./designs.js"
import { Id, Ok, type RouteDescription } from "./describe.js"
import { DateString, Deleted } from "./response-schemas.js"

const read = { apiKey: "templates:read" } as const
const write = { apiKey: "templates:write" } as const
const byId = { id: Id }

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const same = <T extends true>(): T | undefined => undefined

const Colors = Schema.Struct(Object.fromEntries(colorNames.map((name) => [name, Schema.String])) as Record<(typeof colorNames)[number], typeof Schema.String>)

/** routes/brands.ts, brandBody. */
const BrandResponse = Schema.Struct({
  id: Schema.String,
  applicationKey: Schema.String,
  name: Schema.String,
  isDefault: Schema.Boolean,
  colors: Colors,
  logo: Schema.NullOr(Schema.Struct({ url: Schema.String, alt: Schema.String, width: Schema.Number })),
  fonts: Schema.Struct({ heading: Schema.String, body: Schema.String }),
  sender: Schema.NullOr(Schema.Struct({ name: Schema.String, email: Schema.String })),
  compliance: Schema.NullOr(Schema.Struct({ company: Schema.String, address: Schema.String, email: Schema.NullOr(Schema.String) })),
  footer: Schema.NullOr(Schema.String),
  social: Schema.Array(Schema.Struct({ network: Schema.String, url: Schema.String })),
  custom: Schema.Record({ key: Schema.String, value: Schema.String }),
  unsubscribePage: Schema.Struct({ message: Schema.NullOr(Schema.String) }),
  createdAt: DateString,
  updatedAt: DateString,
})
same<Same<keyof typeof BrandResponse.Type, keyof ReturnType<typeof brandBody>>>()

const Warning = Schema.Struct({
  code: Schema.Literal("LOW_CONTRAST"),
  foreground: Schema.String,
  background: Schema.String,
  ratio: Schema.Number,
  minimum: Schema.Number,
  message: Schema.String,
})

/** A brand with the contrast warnings of its colours (an empty list when every pair meets WCAG AA). */
const Saved = Schema.Struct({ success: Schema.Literal(true), data: BrandResponse, warnings: Schema.Array(Warning) })

const BrandPage = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Array(BrandResponse),
  pagination: Schema.Struct({ limit: Schema.Number, nextCursor: Schema.NullOr(Schema.String), hasMore: Schema.Boolean }),
})

const Usage = Schema.Struct({
  brandId: Schema.String,
  isDefault: Schema.Boolean,
  templates: Schema.Array(DesignResponse),
  campaigns: Schema.Array(CampaignUse),
})

const example = {
  name: "Acme",
  colors: { primary: "#0b5cad", primaryText: "#ffffff", text: "#1f2328", surface: "#ffffff" },
  logo: { url: "https://acme.example/logo.png", alt: "Acme", width: 160 },
  sender: { name: "Acme", email: "hello@acme.example" },
  compliance: { company: "Acme Ltd", address: "1 Main Street\nSpringfield" },
}

const found = ["BRAND_NOT_FOUND", "PLAN_UPGRADE_REQUIRED"] as const
const description = "Colours are #rrggbb; pairs below WCAG AA contrast (text/surface, mutedText/surface, primaryText/primary, link/surface) " +
  "are reported in `warnings`, never refused."

const headers = {
  Deprecation: `\`${legacyTemplateHeaders.Deprecation}\`: the route is deprecated; use /v1/designs/brands`,
  Sunset: `\`${legacyTemplateHeaders.Sunset}\`: the route keeps working until then`,
  Link: `\`${legacyTemplateHeaders.Link}\``,
}

export const brandRoutes: ReadonlyArray<RouteDescription> = [
  {
    method: "get", path: "/v1/designs/brands", tag: "Brands", summary: "List brands", access: read, query: BrandListParams,
    success: { status: 200, description: "A page of brands, newest first, with the cursor of the next", schema: BrandPage },
    errors: ["PLAN_UPGRADE_REQUIRED"],
  },
  {
    method: "post", path: "/v1/designs/brands", tag: "Brands", summary: "Create a brand", description, access: write,
    body: { schema: CreateBrandInput, example },
    success: { status: 201, description: "The brand, with contrast warnings", schema: Saved },
    errors: ["PLAN_UPGRADE_REQUIRED", "API_KEY_LIMIT_REACHED"],
  },
  {
    method: "get", path: "/v1/designs/brands/{id}", tag: "Brands", summary: "Read a brand", access: read, params: byId,
    success: { status: 200, description: "The brand, with contrast warnings", schema: Saved }, errors: found,
  },
  {
    method: "patch", path: "/v1/designs/brands/{id}", tag: "Brands", summary: "Change a brand's fields", description,
    access: write, params: byId,
    body: { schema: UpdateBrandInput, example: { expectedUpdatedAt: "2026-11-29T16:00:00.000Z", colors: { primary: "#7a1fa2" } } },
    success: { status: 200, description: "The brand, with contrast warnings", schema: Saved },
    errors: [...found, "REVISION_CONFLICT"],
  },
  {
    method: "delete", path: "/v1/designs/brands/{id}", tag: "Brands", summary: "Delete a brand no template uses",
    access: write, params: byId, success: { status: 200, description: "Deleted", schema: Ok(Deleted) },
    errors: [...found, "BRAND_IN_USE"],
  },
  {
    method: "get", path: "/v1/designs/brands/{id}/usage", tag: "Brands", summary: "List the templates using a brand",
    access: read, params: byId,
    success: { status: 200, description: "The templates bound to it, whether it is the default, and its campaigns", schema: Ok(Usage) },
    errors: found,
  },
  {
    method: "post", path: "/v1/designs/brands/{id}/default", tag: "Brands", summary: "Make a brand the account's default",
    access: write, params: byId,
    success: { status: 200, description: "The brand, now the default", schema: Saved }, errors: found,
  },
  {
    method: "get", path: "/v1/brand-theme", tag: "Legacy templates", deprecated: true,
    summary: "Read the brand theme (deprecated)", access: read,
    description: "Deprecated: the account's default brand (GET /v1/designs/brands/{id}); without one, the default theme with id null.",
    success: { status: 200, description: "The default brand", schema: Ok(Schema.Struct({
      ...BrandResponse.fields, id: Schema.NullOr(Schema.String), createdAt: Schema.NullOr(DateString), updatedAt: Schema.NullOr(DateString),
    })), headers },
    errors: [],
  },
  {
    method: "put", path: "/v1/brand-theme", tag: "Legacy templates", deprecated: true,
    summary: "Change the brand theme (deprecated)", access: write,
    description: "Deprecated: changes the account's default brand (made when there is none). Brands need the Micro plan.",
    body: { schema: LegacyBrandThemeInput, example: { colors: { primary: "#0b5cad" } } },
    success: { status: 200, description: "The default brand, with contrast warnings (201 when it was made)", schema: Saved, headers },
    errors: ["PLAN_UPGRADE_REQUIRED"],
  },
]
