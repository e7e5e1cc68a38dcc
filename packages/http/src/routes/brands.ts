/** /v1/designs/brands: brands of the template API, and the deprecated /v1/brand-theme routes mapped to the account's
 *  default brand. Spec: sending "Designs (template API)" (brand rows), "Legacy templates (deprecated)" and
 *  "Versioning" 4. Answers are { success: true, data } with, on brand writes and reads, `warnings` (contrast below
 *  WCAG AA, never a refusal); the list adds pagination { limit, nextCursor, hasMore }. Shapes follow docs/brands.md. */
import {
  brandContentOf, type BrandRecord, Brands, CreateBrandInput, decodeCursor, type DesignCaller, brandLimits,
  defaultTheme, encodeCursor, legacyTemplateHeaders, limitParam, type SavedBrand, TemplateKey, UpdateBrandInput,
  ValidationFailed,
} from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { type Context, Hono } from "hono"
import { createMiddleware } from "hono/factory"
import { requireScope } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { ok } from "../envelope.js"
import { decodeJson, decodeQuery } from "../validation.js"
import { designBody } from "./designs.js"

/** The query of GET /designs/brands. */
export const BrandListParams = Schema.Struct({
  applicationKey: Schema.optional(TemplateKey),
  limit: Schema.optionalWith(limitParam(brandLimits.maxPageSize), { default: () => brandLimits.pageSize }),
  cursor: Schema.optional(Schema.String),
})

/** A brand as the API shows it. */
export const brandBody = (brand: BrandRecord) => ({
  id: brand.id,
  applicationKey: brand.applicationKey,
  name: brand.name,
  isDefault: brand.isDefault,
  ...brandContentOf(brand),
  createdAt: brand.createdAt.toISOString(),
  updatedAt: brand.updatedAt.toISOString(),
})

/** { success: true, data: brand, warnings }. */
export const savedBody = (saved: SavedBrand) => ({ ...ok(brandBody(saved.brand)), warnings: saved.warnings })

const callerOf = (c: Context<MailroomEnv>, surface: DesignCaller["surface"] = "studio"): DesignCaller =>
  ({ account: c.get("account"), application: c.get("application") ?? null, surface })

const read = requireScope("templates:read")
const write = requireScope("templates:write")

const cursorOf = (cursor: string | undefined) =>
  cursor === undefined ? Effect.succeed(undefined) : Effect.fromNullable(decodeCursor(cursor, "brd")).pipe(
    Effect.mapError(() => new ValidationFailed({ field: "cursor", detail: "is not a cursor this API answered; start again without it" })),
  )

export const brandRoutes = new Hono<MailroomEnv>()
  .get("/designs/brands", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const { limit, cursor, applicationKey } = yield* decodeQuery(c, BrandListParams)
      const page = yield* (yield* Brands).list(callerOf(c), { applicationKey }, { limit, after: yield* cursorOf(cursor) })
      const nextCursor = page.nextAfter === null ? null : encodeCursor(page.nextAfter)
      return c.json({ ...ok(page.brands.map(brandBody)), pagination: { limit, nextCursor, hasMore: nextCursor !== null } })
    })))
  .post("/designs/brands", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, CreateBrandInput)
      return c.json(savedBody(yield* (yield* Brands).create(callerOf(c), body)), 201)
    })))
  .get("/designs/brands/:id", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(savedBody(yield* (yield* Brands).get(callerOf(c), c.req.param("id"))))
    })))
  .patch("/designs/brands/:id", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, UpdateBrandInput)
      return c.json(savedBody(yield* (yield* Brands).update(callerOf(c), c.req.param("id"), body)))
    })))
  .delete("/designs/brands/:id", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(yield* (yield* Brands).remove(callerOf(c), c.req.param("id"))))
    })))
  .get("/designs/brands/:id/usage", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const usage = yield* (yield* Brands).usage(callerOf(c), c.req.param("id"))
      return c.json(ok({
        ...usage,
        templates: usage.templates.map(designBody),
        campaigns: usage.campaigns.map((campaign) => ({
          id: campaign.id, name: campaign.name, status: campaign.status, createdAt: campaign.createdAt.toISOString(),
        })),
      }))
    })))
  .post("/designs/brands/:id/default", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(savedBody(yield* (yield* Brands).makeDefault(callerOf(c), c.req.param("id"))))
    })))

// ---- Legacy /brand-theme (deprecated): the account's default brand. ----

/** The paths of the legacy brand theme, for the app to mount legacyBrandThemeGroup on ahead of authentication. */
export const legacyBrandThemePaths = ["/v1/brand-theme", "/v1/brand-theme/*"] as const

/** The Deprecation, Sunset and Link headers of the legacy template routes, on whatever answers. */
export const legacyBrandThemeGroup = createMiddleware<MailroomEnv>(async (c, next) => {
  await next()
  for (const [name, value] of Object.entries(legacyTemplateHeaders)) c.header(name, value)
})

/** PUT /brand-theme: the fields of a brand to set on the default brand (made, named `name`, when there is none). */
export const LegacyBrandThemeInput = Schema.Struct({
  ...CreateBrandInput.fields,
  name: Schema.optional(CreateBrandInput.fields.name),
}).pipe(Schema.omit("applicationKey"))

/** GET /brand-theme answers the default brand, or without one the default theme (id null). */
const defaultThemeBody = {
  id: null, applicationKey: "account", name: defaultTheme.name, isDefault: true, colors: defaultTheme.colors,
  logo: defaultTheme.logo, fonts: defaultTheme.fonts, sender: defaultTheme.sender, compliance: defaultTheme.compliance,
  footer: defaultTheme.footer, social: defaultTheme.social, custom: defaultTheme.custom, unsubscribePage: { message: null },
  createdAt: null, updatedAt: null,
}

export const legacyBrandThemeRoutes = new Hono<MailroomEnv>()
  .get("/brand-theme", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const brand = yield* (yield* Brands).defaultBrand(c.get("account").id)
      return c.json(Option.match(brand, { onNone: () => ok(defaultThemeBody), onSome: (found) => ok(brandBody(found)) }))
    })))
  .put("/brand-theme", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, LegacyBrandThemeInput)
      const brands = yield* Brands
      const caller = callerOf(c, "legacy")
      const current = yield* brands.defaultBrand(caller.account.id)
      const saved = Option.isNone(current)
        ? yield* brands.create(caller, { ...body, name: body.name ?? defaultTheme.name })
        : yield* brands.update(caller, current.value.id, { ...body, expectedUpdatedAt: current.value.updatedAt.toISOString() })
      return c.json(savedBody(saved), Option.isNone(current) ? 201 : 200)
    })))
