/** A brand's custom tracking domain: the hostname its mail's click, open, unsubscribe and preference links use once a
 *  CNAME from it to the host of TRACK_URL is verified. Spec: sending "Designs (template API)" (tracking-domain rows);
 *  CONTRACT.md "Tracking links"; docs/tracking.md "Tracking domain". */
import { Schema } from "effect"
import type { AccountId } from "./account.js"
import type { BrandId } from "./brand.js"

export const trackingDomainStatuses = ["pending", "verified", "failed"] as const
export const TrackingDomainStatus = Schema.Literal(...trackingDomainStatuses)
export type TrackingDomainStatus = typeof TrackingDomainStatus.Type

export interface TrackingDomain {
  readonly brandId: BrandId
  readonly accountId: AccountId
  /** Lower-case, IDN in punycode (parseHostname). */
  readonly hostname: string
  readonly status: TrackingDomainStatus
  /** Why the last verify failed; null while pending or once verified. */
  readonly reason: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly lastCheckedAt: Date | null
  readonly verifiedAt: Date | null
}

/** Body of PUT /designs/brands/{id}/tracking-domain. The hostname is checked by the service (parseHostname). */
export const PutTrackingDomainInput = Schema.Struct({
  hostname: Schema.String.pipe(Schema.maxLength(1_000, { message: () => "hostname is at most 253 characters" })),
})
export type PutTrackingDomainInput = typeof PutTrackingDomainInput.Type

/** The host a tracking domain's CNAME must point to: the host of TRACK_URL (APP_URL when unset). */
export const cnameTargetOf = (trackUrl: string): string => new URL(trackUrl).hostname.toLowerCase()

const bare = (name: string) => name.trim().toLowerCase().replace(/\.$/, "")

/** The decision of a verify from the CNAME targets found at the hostname (none when DNS says there is none). */
export const checkCname = (
  hostname: string,
  found: ReadonlyArray<string>,
  target: string,
): { readonly status: "verified" | "failed"; readonly reason: string | null } => {
  if (found.map(bare).includes(bare(target))) return { status: "verified", reason: null }
  if (found.length === 0) {
    return { status: "failed", reason: `no CNAME record at ${hostname}; publish ${hostname} CNAME ${target}` }
  }
  return {
    status: "failed",
    reason: `the CNAME record at ${hostname} points to ${found.map(bare).join(", ")}, not ${target}; change it to ${target}`,
  }
}

/** The origin that replaces TRACK_URL's (and APP_URL's, for preference links) in mail sent under the brand: only a
 *  verified domain has one. */
export const trackingOriginOf = (domain: TrackingDomain | undefined): string | undefined =>
  domain !== undefined && domain.status === "verified" ? `https://${domain.hostname}` : undefined

/** A new or changed hostname starts pending; PUT of the same hostname keeps the domain as it is. */
export const putTrackingDomain = (
  current: TrackingDomain | undefined,
  fields: { readonly brandId: BrandId; readonly accountId: AccountId; readonly hostname: string; readonly at: Date },
): TrackingDomain =>
  current !== undefined && current.hostname === fields.hostname
    ? current
    : {
      brandId: fields.brandId, accountId: fields.accountId, hostname: fields.hostname, status: "pending", reason: null,
      createdAt: current?.createdAt ?? fields.at, updatedAt: fields.at, lastCheckedAt: null, verifiedAt: null,
    }
