/** /v1/designs and /v1/capabilities: the template API. Spec: sending "Designs (template API)". Answers are
 *  { success: true, data }; the list adds pagination { limit, nextCursor, hasMore }. Bodies and answers the spec does
 *  not show are described in docs/templates.md. */
import {
  BindBrandInput, CreateDesignInput, decodeCursor, type Design, type DesignCaller, DesignListFilters, designLimits,
  type DesignRelease, Designs, encodeCursor, LifecycleInput, limitParam, PreviewInput, PublishInput, ReplaceDraftInput,
  RollbackInput, scopes, ValidationFailed, DesignSendInput, type MessageDetails, Sending, SendResult,
} from "@mailroom/core"
import { Effect, Schema } from "effect"
import { type Context, Hono } from "hono"
import { requireScope } from "../auth.js"
import { MessageResponse, messageResponse } from "./emails.js"
import type { MailroomEnv } from "../env.js"
import { ok } from "../envelope.js"
import { decodeJson, decodeQuery, readJson } from "../validation.js"

/** The query of GET /designs. */
export const ListParams = Schema.extend(DesignListFilters, Schema.Struct({
  limit: Schema.optionalWith(limitParam(designLimits.maxPageSize), { default: () => designLimits.pageSize }),
  cursor: Schema.optional(Schema.String),
}))

/** The query of GET /designs/{id}/deliveries. */
export const DeliveriesParams = Schema.Struct({
  limit: Schema.optionalWith(limitParam(designLimits.maxPageSize), { default: () => designLimits.pageSize }),
  cursor: Schema.optional(Schema.String),
})

/** One message of GET /designs/{id}/deliveries: the message as GET /emails/{id} shows it, `template` naming the
 *  release version it was sent with. */
export const DeliveryResponse = MessageResponse
const deliveryBody = (details: MessageDetails): typeof DeliveryResponse.Type => messageResponse(details)

/** The query of GET /designs/{id}/releases: one release, with its snapshot. */
export const VersionParam = Schema.Struct({
  version: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1, { message: () => "version is 1 or more" }))),
})

const iso = (date: Date | null) => date === null ? null : date.toISOString()

/** A design as the API shows it: its draft, revision, status and live version. */
export const designBody = (design: Design) => ({
  id: design.id,
  applicationKey: design.applicationKey,
  key: design.key,
  locale: design.locale,
  status: design.status,
  revision: design.revision,
  liveVersion: design.liveVersion,
  brandId: design.brandId,
  replacementId: design.replacementId,
  draft: design.draft,
  createdAt: design.createdAt.toISOString(),
  updatedAt: design.updatedAt.toISOString(),
  publishedAt: iso(design.publishedAt),
  retiredAt: iso(design.retiredAt),
  source: design.source,
})

/** A release in the history; `full` adds the snapshot (source and compiled form). */
export const releaseBody = (release: DesignRelease, full: boolean) => ({
  version: release.version,
  revision: release.revision,
  rolledBackFrom: release.rolledBackFrom,
  engine: release.engine,
  name: release.content.name,
  subject: release.content.subject,
  brandId: release.brandId,
  createdAt: release.createdAt.toISOString(),
  ...(full ? { content: release.content, compiled: release.compiled, brand: release.brand } : {}),
})

/** The caller of a design route: the account's API key (every application), or an application credential (its
 *  application only, its allowed senders). */
const callerOf = (c: Context<MailroomEnv>): DesignCaller => ({ account: c.get("account"), application: c.get("application") ?? null })

/** `/designs/{id}` without capturing the brand routes beside it (routes/brands.ts), whatever order route files are
 *  registered in. */
const byId = "/designs/:id{(?!brands$)[^/]+}"

const read = requireScope("templates:read")
const write = requireScope("templates:write")

const cursorOf = (cursor: string | undefined) =>
  cursor === undefined ? Effect.succeed(undefined) : Effect.fromNullable(decodeCursor(cursor)).pipe(
    Effect.mapError(() => new ValidationFailed({ field: "cursor", detail: "is not a cursor this API answered; start again without it" })),
  )

export const designRoutes = new Hono<MailroomEnv>()
  .get("/capabilities", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const capacity = yield* (yield* Designs).capacity(callerOf(c))
      const key = c.get("apiKey")
      const application = c.get("application") ?? null
      return c.json(ok({
        permissions: scopes.filter((scope) => key.scopes.includes(scope)),
        application: application?.key ?? null,
        allowedSenders: application === null ? null : application.allowedSenders,
        ...capacity,
      }))
    })))
  .get("/designs", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const { limit, cursor, ...filters } = yield* decodeQuery(c, ListParams)
      const page = yield* (yield* Designs).list(callerOf(c), filters, { limit, after: yield* cursorOf(cursor) })
      const nextCursor = page.nextAfter === null ? null : encodeCursor(page.nextAfter)
      return c.json({ ...ok(page.designs.map(designBody)), pagination: { limit, nextCursor, hasMore: nextCursor !== null } })
    })))
  .post("/designs", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, CreateDesignInput)
      return c.json(ok(designBody(yield* (yield* Designs).create(callerOf(c), body))), 201)
    })))
  .get(byId, read, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(designBody(yield* (yield* Designs).get(callerOf(c), c.req.param("id")))))
    })))
  .patch(byId, write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, ReplaceDraftInput)
      return c.json(ok(designBody(yield* (yield* Designs).replace(callerOf(c), c.req.param("id"), body))))
    })))
  .delete(byId, write, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(yield* (yield* Designs).remove(callerOf(c), c.req.param("id"))))
    })))
  .post("/designs/:id/publish", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, PublishInput)
      const { design, release } = yield* (yield* Designs).publish(callerOf(c), c.req.param("id"), body.expectedRevision)
      return c.json(ok({ ...designBody(design), release: releaseBody(release, false) }))
    })))
  .post("/designs/:id/rollback", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, RollbackInput)
      const { design, release } = yield* (yield* Designs).rollback(callerOf(c), c.req.param("id"), body.version)
      return c.json(ok({ ...designBody(design), release: releaseBody(release, false) }))
    })))
  .get("/designs/:id/releases", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const { version } = yield* decodeQuery(c, VersionParam)
      const designs = yield* Designs
      if (version !== undefined) {
        return c.json(ok(releaseBody(yield* designs.releaseAt(callerOf(c), c.req.param("id"), version), true)))
      }
      return c.json(ok((yield* designs.releases(callerOf(c), c.req.param("id"))).map((release) => releaseBody(release, false))))
    })))
  .patch("/designs/:id/lifecycle", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, LifecycleInput)
      return c.json(ok(designBody(yield* (yield* Designs).lifecycle(callerOf(c), c.req.param("id"), body))))
    })))
  .post("/designs/:id/brand", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, BindBrandInput)
      return c.json(ok(designBody(yield* (yield* Designs).bindBrand(callerOf(c), c.req.param("id"), body))))
    })))
  .post("/designs/:id/preview", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, PreviewInput)
      return c.json(ok(yield* (yield* Designs).preview(callerOf(c), c.req.param("id"), body)))
    })))
  .post("/designs/:id/send", requireScope("emails:send"), (c) =>
    c.get("run")(Effect.gen(function* () {
      const idempotencyKey = c.req.header("idempotency-key")
      if (idempotencyKey === undefined) {
        return yield* Effect.fail(new ValidationFailed({
          field: "Idempotency-Key",
          detail: "is required on POST /designs/{id}/send: send a unique key per message, and the same key to repeat it safely",
        }))
      }
      const body = yield* readJson<typeof DesignSendInput.Encoded>(c)
      const result = yield* (yield* Sending).sendTemplate(c.get("account"), c.req.param("id"), body, {
        idempotencyKey, application: c.get("application") ?? null,
      })
      return c.json(ok(yield* Effect.orDie(Schema.encode(SendResult)(result))))
    })))
  .get("/designs/:id/deliveries", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const { limit, cursor } = yield* decodeQuery(c, DeliveriesParams)
      const before = cursor === undefined ? undefined : yield* Effect.fromNullable(decodeCursor(cursor, "msg")).pipe(
        Effect.mapError(() => new ValidationFailed({ field: "cursor", detail: "is not a cursor this API answered; start again without it" })),
      )
      const page = yield* (yield* Designs).deliveries(callerOf(c), c.req.param("id"), { limit, before })
      const nextCursor = page.nextAfter === null ? null : encodeCursor(page.nextAfter)
      const data = yield* Effect.forEach(page.deliveries, (details) => Effect.orDie(Schema.encode(DeliveryResponse)(deliveryBody(details))))
      return c.json({ ...ok(data), pagination: { limit, nextCursor, hasMore: nextCursor !== null } })
    })))
  .get("/designs/:id/usage", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(yield* (yield* Designs).usage(callerOf(c), c.req.param("id"))))
    })))
