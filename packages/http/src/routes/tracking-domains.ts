/** /v1/designs/brands/{id}/tracking-domain: a brand's custom tracking domain (GET, PUT, DELETE) and POST .../verify,
 *  which checks the CNAME. Same credentials, scopes and plan as the brand routes. Spec: sending "Designs (template
 *  API)" (tracking-domain rows); docs/brands.md and docs/tracking.md, "Tracking domain". */
import { type DesignCaller, PutTrackingDomainInput, TrackingDomains, type TrackingDomainView } from "@mailroom/core"
import { Effect } from "effect"
import { type Context, Hono } from "hono"
import { requireScope } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { ok } from "../envelope.js"
import { decodeJson } from "../validation.js"

/** A tracking domain as the API shows it, with the CNAME record to publish. */
export const trackingDomainBody = ({ domain, target }: TrackingDomainView) => ({
  brandId: domain.brandId,
  hostname: domain.hostname,
  status: domain.status,
  reason: domain.reason,
  record: { type: "CNAME" as const, host: domain.hostname, value: target },
  createdAt: domain.createdAt.toISOString(),
  updatedAt: domain.updatedAt.toISOString(),
  lastCheckedAt: domain.lastCheckedAt?.toISOString() ?? null,
  verifiedAt: domain.verifiedAt?.toISOString() ?? null,
})

const callerOf = (c: Context<MailroomEnv>): DesignCaller =>
  ({ account: c.get("account"), application: c.get("application") ?? null, surface: "studio" })

const read = requireScope("templates:read")
const write = requireScope("templates:write")
const path = "/designs/brands/:id/tracking-domain"

export const trackingDomainRoutes = new Hono<MailroomEnv>()
  .get(path, read, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(trackingDomainBody(yield* (yield* TrackingDomains).get(callerOf(c), c.req.param("id")))))
    })))
  .put(path, write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, PutTrackingDomainInput)
      return c.json(ok(trackingDomainBody(yield* (yield* TrackingDomains).put(callerOf(c), c.req.param("id"), body))))
    })))
  .delete(path, write, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(yield* (yield* TrackingDomains).remove(callerOf(c), c.req.param("id"))))
    })))
  .post(`${path}/verify`, write, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(trackingDomainBody(yield* (yield* TrackingDomains).verify(callerOf(c), c.req.param("id")))))
    })))
