/** Request rates per API key, and failed authentications per client address, with rate-limiter-flexible. In memory by
 *  default; a host running several instances passes a factory for a shared store (Redis, Postgres, …). Spec: audience
 *  "Limits" (POST /contacts 60 per minute per client) and sending "Limits" (all other endpoints 200 per second). */
import { RateLimitExceeded } from "@mailroom/core"
import { Effect } from "effect"
import { createMiddleware } from "hono/factory"
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible"
import type { MailroomEnv } from "./env.js"
import { errorResponse } from "./errors.js"

/** What a limiter must enforce: `points` requests per `duration` seconds for each key, under `keyPrefix`. */
export interface RateLimiterSpec {
  readonly keyPrefix: string
  readonly points: number
  readonly duration: number
}

/** Builds one limiter; any RateLimiterAbstract (memory, Redis, Postgres, …) will do. */
export type RateLimiterFactory = (spec: RateLimiterSpec) => RateLimiterAbstract

export interface RateLimitOptions {
  /** POST /v1/contacts per API key per minute. Default 60. */
  readonly contactsCreatePerMinute?: number
  /** Every /v1 request per API key per second. Default 200. */
  readonly requestsPerSecond?: number
  /** Failed authentications (API key or admin token) per client address per minute. Past them, every request of the
   *  address whose key is not already known good answers 429 until the window is over, without a lookup. Default 30. */
  readonly failedAuthenticationsPerMinute?: number
  /** POST /v1/emails/send (and /emails/schedule) per API key per second. Default 100 (sending spec, "Limits"). */
  readonly emailsSendPerSecond?: number
  /** POST /v1/emails/batch per API key per second. Default 10. */
  readonly emailsBatchPerSecond?: number
  /** Signup-form submissions per client address (IP) per minute, over every form. Default 10. */
  readonly formSubmissionsPerIpPerMinute?: number
  /** Signup-form submissions per email address and account per hour. Default 5. */
  readonly formSubmissionsPerAddressPerHour?: number
  /** Where counters live. Default: RateLimiterMemory (one process). */
  readonly store?: RateLimiterFactory
}

export const defaultRateLimits = {
  contactsCreatePerMinute: 60, requestsPerSecond: 200, failedAuthenticationsPerMinute: 30, emailsSendPerSecond: 100,
  emailsBatchPerSecond: 10, formSubmissionsPerIpPerMinute: 10, formSubmissionsPerAddressPerHour: 5,
} as const

export interface Limiter {
  readonly limiter: RateLimiterAbstract
  readonly points: number
  readonly duration: number
}

export interface RateLimiters {
  /** Every /v1 request. */
  readonly requests: Limiter
  /** POST /v1/contacts. */
  readonly contactsCreate: Limiter
  /** Failed authentications per client address (see `authenticationGate`). */
  readonly failedAuthentications: Limiter
  /** POST /v1/emails/send and /v1/emails/schedule. */
  readonly emailsSend: Limiter
  /** POST /v1/emails/batch. */
  readonly emailsBatch: Limiter
  /** POST /v1/forms/{id}/submit per client address. */
  readonly formSubmissionsPerIp: Limiter
  /** POST /v1/forms/{id}/submit per account and email address. */
  readonly formSubmissionsPerAddress: Limiter
}

const memoryLimiter: RateLimiterFactory = (spec) => new RateLimiterMemory(spec)

export const makeRateLimiters = (options: RateLimitOptions = {}): RateLimiters => {
  const factory = options.store ?? memoryLimiter
  const make = (keyPrefix: string, points: number, duration: number): Limiter =>
    ({ limiter: factory({ keyPrefix, points, duration }), points, duration })
  return {
    requests: make("mailroom:requests", options.requestsPerSecond ?? defaultRateLimits.requestsPerSecond, 1),
    contactsCreate: make(
      "mailroom:contacts-create",
      options.contactsCreatePerMinute ?? defaultRateLimits.contactsCreatePerMinute,
      60,
    ),
    failedAuthentications: make(
      "mailroom:failed-authentications",
      options.failedAuthenticationsPerMinute ?? defaultRateLimits.failedAuthenticationsPerMinute,
      60,
    ),
    emailsSend: make("mailroom:emails-send", options.emailsSendPerSecond ?? defaultRateLimits.emailsSendPerSecond, 1),
    emailsBatch: make("mailroom:emails-batch", options.emailsBatchPerSecond ?? defaultRateLimits.emailsBatchPerSecond, 1),
    formSubmissionsPerIp: make(
      "mailroom:form-submissions-ip",
      options.formSubmissionsPerIpPerMinute ?? defaultRateLimits.formSubmissionsPerIpPerMinute,
      60,
    ),
    formSubmissionsPerAddress: make(
      "mailroom:form-submissions-address",
      options.formSubmissionsPerAddressPerHour ?? defaultRateLimits.formSubmissionsPerAddressPerHour,
      3600,
    ),
  }
}

/** RateLimitExceeded when the key has no point left, undefined when the request may proceed. Store failures throw. */
const consume = async ({ limiter, points, duration }: Limiter, key: string): Promise<RateLimitExceeded | undefined> => {
  try {
    await limiter.consume(key)
    return undefined
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection
    const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))
    return new RateLimitExceeded({ retryAfter, limit: points, windowSeconds: duration })
  }
}

/** Consumes one point of `limiter` for `key` as an Effect: RateLimitExceeded when none is left; a failing store is a
 *  defect (answered 500). For routes whose key is not the API key (signup forms: client address, email address). */
export const consumeLimit = (limiter: Limiter, key: string): Effect.Effect<void, RateLimitExceeded> =>
  Effect.flatMap(Effect.promise(() => consume(limiter, key)), (exceeded) =>
    exceeded === undefined ? Effect.void : Effect.fail(exceeded))

/** Consumes one request of the named limit for the caller's API key (the "client"); 429 RATE_LIMIT_EXCEEDED with
 *  Retry-After when none is left. Runs after the API-key middleware. */
export const rateLimit = (name: keyof RateLimiters) =>
  createMiddleware<MailroomEnv>(async (c, next) => {
    let exceeded: RateLimitExceeded | undefined
    try {
      exceeded = await consume(c.get("limiters")[name], c.get("apiKey").id)
    } catch (cause) {
      return c.get("run")(Effect.die(cause))
    }
    if (exceeded !== undefined) return errorResponse(exceeded)
    await next()
  })

/** The failed-authentication key of a client: its address, or one shared key for every client whose address the
 *  transport does not tell (a host calling `fetch` without one), so that such clients are still limited together. */
const clientKey = (address: string | null) => address ?? "unknown"

/**
 * The failed-authentication gate of a client, checked before anything is looked up: `exceeded` (RateLimitExceeded)
 * once the address has failed the limit's number of times in the current window, so that a flood of invalid keys or
 * tokens costs the database at most that many lookups per address and window (plus those already in flight).
 * Call `failed` when the attempt does not authenticate. Successes are not counted: a burst of requests with a good key
 * whose cached lookup has just expired must not lock its owner out. Store failures throw.
 */
export const authenticationGate = async (limiters: RateLimiters, address: string | null) => {
  const key = clientKey(address)
  const { limiter, points, duration } = limiters.failedAuthentications
  const state = await limiter.get(key)
  const exceeded = state !== null && state.consumedPoints >= points
    ? new RateLimitExceeded({ retryAfter: Math.max(1, Math.ceil(state.msBeforeNext / 1000)), limit: points, windowSeconds: duration })
    : undefined
  return { exceeded, failed: () => consume(limiters.failedAuthentications, key).then(() => undefined) }
}
