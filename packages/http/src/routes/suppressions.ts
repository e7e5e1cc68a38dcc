/** /v1/suppressions: account-level suppressions. Spec: audience "Suppressions". Answers { success, data } (pages add
 *  meta). Addresses in the path are URL-encoded once; one that does not decode to a valid address (double-encoded,
 *  say) is a VALIDATION_ERROR naming `email`. */
import {
  AddSuppressionInput, BulkSuppressionInput, EmailAddress, limitParam, PageParam, type Suppression, suppressionLimits,
  SuppressionReason, Suppressions,
} from "@mailroom/core"
import { Effect, Schema } from "effect"
import { Hono } from "hono"
import { requireScope } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { ok, pageEnvelope } from "../envelope.js"
import { decodeInput, decodeJson, decodeQuery } from "../validation.js"

/** GET /suppressions: page 1.., limit 1-100 (default 25), reason, search (part of the address). */
export const SuppressionsParams = Schema.Struct({
  page: Schema.optionalWith(PageParam, { default: () => 1 }),
  limit: Schema.optionalWith(limitParam(suppressionLimits.maxPageSize), { default: () => suppressionLimits.pageSize }),
  reason: Schema.optional(SuppressionReason),
  search: Schema.optional(Schema.String.pipe(Schema.maxLength(suppressionLimits.searchLength, {
    message: () => `must be at most ${suppressionLimits.searchLength} characters`,
  }))),
})

export const SuppressionResponse = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  reason: Schema.String,
  details: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  createdAt: Schema.Date,
})

export const encodeSuppression = (suppression: Suppression) =>
  Schema.encode(SuppressionResponse)(suppression).pipe(Effect.orDie)

/** The address of a path parameter, as the route received it (decoded once by the router). */
export const emailParam = (value: string) => decodeInput(Schema.Struct({ email: EmailAddress }), { email: value })

const read = requireScope("suppressions:read")
const write = requireScope("suppressions:write")

export const suppressionRoutes = new Hono<MailroomEnv>()
  .get("/suppressions", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const params = yield* decodeQuery(c, SuppressionsParams)
      const suppressions = yield* Suppressions
      const page = yield* suppressions.list(c.get("account"), params)
      return c.json(pageEnvelope(yield* Effect.forEach(page.suppressions, encodeSuppression), params, page.total))
    })))
  .post("/suppressions", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, AddSuppressionInput)
      const suppressions = yield* Suppressions
      const { suppression } = yield* suppressions.add(c.get("account"), body)
      return c.json(ok(yield* encodeSuppression(suppression)), 201)
    })))
  .post("/suppressions/bulk", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, BulkSuppressionInput)
      const suppressions = yield* Suppressions
      return c.json(ok(yield* suppressions.bulk(c.get("account"), body)))
    })))
  .get("/suppressions/:email", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const { email } = yield* emailParam(c.req.param("email"))
      const suppressions = yield* Suppressions
      return c.json(ok(yield* encodeSuppression(yield* suppressions.get(c.get("account"), email))))
    })))
  .delete("/suppressions/:email", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const { email } = yield* emailParam(c.req.param("email"))
      const suppressions = yield* Suppressions
      return c.json(ok(yield* suppressions.remove(c.get("account"), email)))
    })))
