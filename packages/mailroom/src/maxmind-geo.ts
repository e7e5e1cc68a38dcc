/** The Geo port over a MaxMind-format database (.mmdb: GeoLite2 Country or City, DB-IP Country Lite, …) that the host
 *  supplies, read with the maxmind package: the country of a tracking hit by its address. docs/analytics.md,
 *  "GET /v1/analytics/geographic". The address is looked up at request time and never kept. */
import type { GeoService } from "@mailroom/core"
import maxmind, { type CountryResponse, Reader } from "maxmind"

const geoOf = (reader: Reader<CountryResponse>): GeoService => ({
  country: ({ address }) => {
    if (address === null || !maxmind.validate(address)) return null
    try {
      const found = reader.get(address)
      const code = found?.country?.iso_code ?? found?.registered_country?.iso_code
      return typeof code === "string" && /^[A-Za-z]{2}$/.test(code) ? code.toUpperCase() : null
    } catch {
      // An IPv6 address asked of an IPv4-only database, say: unknown.
      return null
    }
  },
})

/** A Geo port reading the database at `path` (opened once; the file is watched for nothing). */
export const maxmindGeo = async (path: string): Promise<GeoService> =>
  geoOf(await maxmind.open<CountryResponse>(path, { watchForUpdates: false }))

/** A Geo port over a database already in memory. */
export const maxmindGeoFromBuffer = (database: Buffer): GeoService => geoOf(new Reader<CountryResponse>(database))
