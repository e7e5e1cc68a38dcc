/** A brand's tracking domain (/v1/designs/brands/{id}/tracking-domain) as the OpenAPI document describes it. */
import { PutTrackingDomainInput, trackingDomainStatuses } from "@mailroom/core"
import { Schema } from "effect"
import type { trackingDomainBody } from "../routes/tracking-domains.js"
import { Id, Ok, type RouteDescription } from "./describe.js"
import { DateString } from "./response-schemas.js"

const read = { apiKey: "templates:read" } as const
const write = { apiKey: "templates:write" } as const
const byId = { id: Id }

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const same = <T extends true>(): T | undefined => undefined

/** routes/tracking-domains.ts, trackingDomainBody. */
const TrackingDomainResponse = Schema.Struct({
  brandId: Schema.String,
  hostname: Schema.String,
  status: Schema.Literal(...trackingDomainStatuses),
  reason: Schema.NullOr(Schema.String),
  record: Schema.Struct({ type: Schema.Literal("CNAME"), host: Schema.String, value: Schema.String }),
  createdAt: DateString,
  updatedAt: DateString,
  lastCheckedAt: Schema.NullOr(DateString),
  verifiedAt: Schema.NullOr(DateString),
})
same<Same<keyof typeof TrackingDomainResponse.Type, keyof ReturnType<typeof trackingDomainBody>>>()

const found = ["BRAND_NOT_FOUND", "PLAN_UPGRADE_REQUIRED"] as const
const description = "Once verified (a CNAME from the hostname to the host of TRACK_URL), mail sent under the brand carries its " +
  "click, open, unsubscribe and preference links on https://<hostname>, and Mailroom answers them there. See docs/tracking.md."

export const trackingDomainRoutes: ReadonlyArray<RouteDescription> = [
  {
    method: "get", path: "/v1/designs/brands/{id}/tracking-domain", tag: "Brands", summary: "Read a brand's tracking domain",
    description, access: read, params: byId,
    success: { status: 200, description: "The tracking domain, its CNAME record and state", schema: Ok(TrackingDomainResponse) },
    errors: [...found, "RESOURCE_NOT_FOUND"],
  },
  {
    method: "put", path: "/v1/designs/brands/{id}/tracking-domain", tag: "Brands", summary: "Set a brand's tracking domain",
    description: `${description} A new hostname starts pending; the same hostname again changes nothing.`,
    access: write, params: byId, body: { schema: PutTrackingDomainInput, example: { hostname: "links.example.com" } },
    success: { status: 200, description: "The tracking domain, its CNAME record and state", schema: Ok(TrackingDomainResponse) },
    errors: [...found, "VALIDATION_ERROR", "TRACKING_DOMAIN_IN_USE"],
  },
  {
    method: "delete", path: "/v1/designs/brands/{id}/tracking-domain", tag: "Brands", summary: "Remove a brand's tracking domain",
    description: "Mail sent afterwards carries its links on TRACK_URL (and APP_URL) again.", access: write, params: byId,
    success: { status: 200, description: "Deleted", schema: Ok(Schema.Struct({ brandId: Schema.String, deleted: Schema.Literal(true) })) },
    errors: [...found, "RESOURCE_NOT_FOUND"],
  },
  {
    method: "post", path: "/v1/designs/brands/{id}/tracking-domain/verify", tag: "Brands", summary: "Check a tracking domain's CNAME",
    description: "Reads the CNAME at the hostname now: verified when it points to the host of TRACK_URL, failed with the reason otherwise. " +
      "A lookup that fails changes nothing (DNS_LOOKUP_ERROR).",
    access: write, params: byId,
    success: { status: 200, description: "The tracking domain after the check", schema: Ok(TrackingDomainResponse) },
    errors: [...found, "RESOURCE_NOT_FOUND", "DNS_LOOKUP_ERROR"],
  },
]
