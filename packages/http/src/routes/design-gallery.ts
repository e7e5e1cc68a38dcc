/** /v1/designs/catalog, /v1/designs/catalog/adopt, /v1/designs/{id}/sync and /v1/designs/assets: the starter gallery
 *  and image assets (docs/templates.md). Registered before routes/designs.ts, whose /designs/{id} would otherwise take
 *  "catalog" and "assets" for ids. Same scopes as the designs routes: templates:read for reads and previews,
 *  templates:write for changes. */
import {
  AdoptStarterInput, type Asset, Assets, CatalogFilters, decodeCursor, type DesignCaller, encodeCursor, Gallery,
  InspectStarterInput, limitParam, assetLimits, SyncInput, UploadAssetInput, ValidationFailed,
} from "@mailroom/core"
import { Effect, Schema } from "effect"
import { type Context, Hono } from "hono"
import { requireScope } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { ok } from "../envelope.js"
import { decodeJson, decodeQuery } from "../validation.js"
import { designBody } from "./designs.js"

const callerOf = (c: Context<MailroomEnv>): DesignCaller => ({ account: c.get("account"), application: c.get("application") ?? null })
const read = requireScope("templates:read")
const write = requireScope("templates:write")

/** The query of GET /designs/assets. */
export const AssetListParams = Schema.Struct({
  limit: Schema.optionalWith(limitParam(assetLimits.maxPageSize), { default: () => assetLimits.pageSize }),
  cursor: Schema.optional(Schema.String),
})

/** An asset as the API shows it, with its immutable URL. */
export const assetBody = ({ asset, url }: { readonly asset: Asset; readonly url: string }) => ({
  id: asset.id,
  applicationKey: asset.applicationKey,
  name: asset.name,
  url,
  contentType: asset.format === "png" ? "image/png" : "image/jpeg",
  width: asset.width,
  height: asset.height,
  size: asset.size,
  hash: asset.hash,
  createdAt: asset.createdAt.toISOString(),
})

export const designGalleryRoutes = new Hono<MailroomEnv>()
  .get("/designs/catalog", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const filters = yield* decodeQuery(c, CatalogFilters)
      return c.json(ok(yield* (yield* Gallery).catalog(callerOf(c), filters)))
    })))
  .post("/designs/catalog", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, InspectStarterInput)
      return c.json(ok(yield* (yield* Gallery).inspect(callerOf(c), body)))
    })))
  .post("/designs/catalog/adopt", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, AdoptStarterInput)
      return c.json(ok(designBody(yield* (yield* Gallery).adopt(callerOf(c), body))), 201)
    })))
  .post("/designs/:id/sync", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, SyncInput)
      const { design, ...comparison } = yield* (yield* Gallery).sync(callerOf(c), c.req.param("id"), body)
      return c.json(ok({ ...comparison, design: designBody(design) }))
    })))
  .get("/designs/assets", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const { limit, cursor } = yield* decodeQuery(c, AssetListParams)
      const before = cursor === undefined ? undefined : yield* Effect.fromNullable(decodeCursor(cursor, "img")).pipe(
        Effect.mapError(() => new ValidationFailed({ field: "cursor", detail: "is not a cursor this API answered; start again without it" })),
      )
      const page = yield* (yield* Assets).list(callerOf(c), { limit, before })
      const nextCursor = page.nextBefore === null ? null : encodeCursor(page.nextBefore)
      return c.json({ ...ok(page.assets.map(assetBody)), pagination: { limit, nextCursor, hasMore: nextCursor !== null } })
    })))
  .post("/designs/assets", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, UploadAssetInput)
      const uploaded = yield* (yield* Assets).upload(callerOf(c), body)
      return c.json(ok({ ...assetBody(uploaded), converted: uploaded.input === "webp" }), 201)
    })))
  .get("/designs/assets/:id", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(assetBody(yield* (yield* Assets).get(callerOf(c), c.req.param("id")))))
    })))
  .delete("/designs/assets/:id", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(yield* (yield* Assets).remove(callerOf(c), c.req.param("id"))))
    })))
