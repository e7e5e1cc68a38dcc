/** The request rates of a Postgres Mailroom, counted in the database its instances share (@mailroom/postgres's
 *  rate-limits entry). createMailroom is synchronous and @mailroom/postgres an optional peer loaded on first use, so
 *  each limiter hands its counts on once the store has loaded; a missing package fails the counts, which the HTTP
 *  layer answers as an internal error, after ready() has already named the package. */
import type { RateLimiterFactory, RateLimiterStore } from "@mailroom/http"
import { importOptionalPeer, postgresNeededFor, postgresRateLimitsPeer } from "./optional-peer.js"

export interface SharedRates {
  readonly limiter: RateLimiterFactory
  readonly close: () => Promise<void>
}

export const postgresSharedRates = (url: string): SharedRates => {
  let store: ReturnType<typeof load> | undefined
  const load = () => importOptionalPeer(postgresRateLimitsPeer, postgresNeededFor).then((m) => m.postgresRateLimitStore({ url }))
  const opened = () => (store ??= load())
  return {
    limiter: (spec): RateLimiterStore => {
      const limiter = opened().then((shared) => shared.limiter(spec))
      // Awaited by each count; marked handled so that a failed load before the first count does not end the process.
      limiter.catch(() => undefined)
      return {
        consume: async (key, points, options) => (await limiter).consume(key, points, options),
        get: async (key, options) => (await limiter).get(key, options),
      }
    },
    // A store never opened has nothing to close; one that failed to load has nothing either.
    close: async () => {
      const shared = await store?.catch(() => undefined)
      await shared?.close()
    },
  }
}
