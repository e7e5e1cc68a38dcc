/** Rate limiters for tests that spend a whole limit: each key's window opens at its first request, as with
 *  rate-limiter-flexible's own limiters, but never closes by itself, so that a test may take as long as the machine
 *  needs to make its N requests and still see the next one refused. A refusal reports the wait of a window that has
 *  just opened: the limiter's whole duration. Counters are in memory, like the default store's. */
import { type IRateLimiterOptions, RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible"

/** What Mailroom's `rateLimits.store` factory is given (structurally @mailroom/http's RateLimiterSpec). */
export interface LimiterSpec {
  readonly keyPrefix: string
  readonly points: number
  readonly duration: number
}

class HeldWindowLimiter extends RateLimiterMemory {
  readonly #windowMs: number

  constructor(spec: LimiterSpec) {
    super({ ...spec, duration: 0 } satisfies IRateLimiterOptions)
    this.#windowMs = spec.duration * 1000
  }

  #openWindow(res: RateLimiterRes) {
    return new RateLimiterRes(res.remainingPoints, this.#windowMs, res.consumedPoints, res.isFirstInDuration)
  }

  override async consume(key: string | number, points?: number, options?: { [key: string]: unknown }) {
    try {
      return this.#openWindow(await super.consume(key, points, options))
    } catch (rejection) {
      throw rejection instanceof RateLimiterRes ? this.#openWindow(rejection) : rejection
    }
  }

  override async get(key: string | number, options?: { [key: string]: unknown }) {
    const res = await super.get(key, options)
    return res === null ? null : this.#openWindow(res)
  }
}

/** A `rateLimits.store` factory of held-window limiters, with the points and durations Mailroom asks for. */
export const heldWindowLimiters = (spec: LimiterSpec): RateLimiterMemory => new HeldWindowLimiter(spec)
