/** The Geo port: the country of the person behind a tracking hit, for the geographic analytics. The default reads the
 *  country header a CDN or load balancer adds (Cloudflare's CF-IPCountry, CloudFront-Viewer-Country, Vercel's
 *  X-Vercel-IP-Country, Fastly's and others' X-Country-Code), and only when the request came through a proxy the host
 *  trusts (TRUST_PROXY): from anyone else the header is the client's word. A host replaces it with a GeoIP database
 *  lookup of the address (docs/tracking.md, "Country"). The address is read here and never stored. */
import { Context } from "effect"

export interface GeoRequest {
  /** The client's address as far as it is known. */
  readonly address: string | null
  readonly headers: { readonly get: (name: string) => string | null }
  /** The connection came from a proxy the host trusts (its headers are believed). */
  readonly trustedProxy: boolean
}

export interface GeoService {
  /** ISO 3166-1 alpha-2 country code (upper case), or null when unknown. */
  readonly country: (request: GeoRequest) => string | null
}

/** Country headers of CDNs and load balancers, in the order they are read. */
export const countryHeaders = ["cf-ipcountry", "cloudfront-viewer-country", "x-vercel-ip-country", "x-country-code", "x-appengine-country"] as const

/** The country a trusted proxy's header names; codes for "unknown" and Tor (XX, T1) count as none. */
export const countryFromHeaders: GeoService["country"] = (request) => {
  if (!request.trustedProxy) return null
  for (const name of countryHeaders) {
    const value = request.headers.get(name)?.trim().toUpperCase()
    if (value !== undefined && /^[A-Z]{2}$/.test(value) && value !== "XX" && value !== "T1") return value
  }
  return null
}

export class Geo extends Context.Reference<Geo>()("@mailroom/core/Geo", {
  defaultValue: (): GeoService => ({ country: countryFromHeaders }),
}) {}
