/** Request rates per API key, requests to the public routes and failed authentications per client address, with
 *  rate-limiter-flexible. In memory by default; a host running several instances passes a factory for a shared store
 *  (createMailroom passes @mailroom/postgres/rate-limits on Postgres; Redis, …). Spec: audience "Limits" (POST /contacts 60 per minute per client) and sending "Limits" (POST
 *  /emails/send 100 per second, POST /emails/batch 10, POST /emails/validate 50, all other endpoints 200). */
import { RateLimitExceeded } from "@mailroom/core"
import { Effect } from "effect"
import type { Context } from "hono"
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

/** What Mailroom asks of a limiter: to count (`consume`) and to read a key's count (`get`). Any RateLimiterAbstract
 *  (memory, Redis, Postgres, …) is one. */
export type RateLimiterStore = Pick<RateLimiterAbstract, "consume" | "get">

/** Builds one limiter. */
export type RateLimiterFactory = (spec: RateLimiterSpec) => RateLimiterStore

export interface RateLimitOptions {
  /** POST /v1/contacts per API key per minute. Default 60. */
  readonly contactsCreatePerMinute?: number
  /** Every other /v1 request per API key per second (POST /emails/send and /emails/batch have their own). Default 200. */
  readonly requestsPerSecond?: number
  /** Requests to the routes that take no API key (unsubscribe, one-click, the /u, /c and /p pages, GET /f/{id} and the
   *  signup form's preflight) per client address per second. Default 200. Form submissions have their own limits. */
  readonly publicRequestsPerSecond?: number
  /** Failed authentications (API key or admin token) per client address per minute. Past them, every request of the
   *  address whose key is not already known good answers 429 until the window is over, without a lookup. Default 30. */
  readonly failedAuthenticationsPerMinute?: number
  /** POST /v1/emails/send per API key per second. Default 100 (sending spec, "Limits"). */
  readonly emailsSendPerSecond?: number
  /** POST /v1/emails/batch per API key per second. Default 10. */
  readonly emailsBatchPerSecond?: number
  /** POST /v1/emails/validate per API key per second. Default 50. */
  readonly emailsValidatePerSecond?: number
  /** Signup-form submissions per client address (IP) per minute, over every form. Default 10. */
  readonly formSubmissionsPerIpPerMinute?: number
  /** Signup-form submissions per email address and account per hour. Default 5. */
  readonly formSubmissionsPerAddressPerHour?: number
  /** Where counters live. Default: RateLimiterMemory (one process). */
  readonly store?: RateLimiterFactory
}

export const defaultRateLimits = {
  contactsCreatePerMinute: 60, requestsPerSecond: 200, publicRequestsPerSecond: 200, failedAuthenticationsPerMinute: 30,
  emailsSendPerSecond: 100, emailsBatchPerSecond: 10, emailsValidatePerSecond: 50, formSubmissionsPerIpPerMinute: 10, formSubmissionsPerAddressPerHour: 5,
} as const

export interface Limiter {
  readonly limiter: RateLimiterStore
  readonly points: number
  readonly duration: number
}

export interface RateLimiters {
  /** Every /v1 request but those with a limit of their own (see `perSecondRateLimit`). */
  readonly requests: Limiter
  /** Every request to a public route (no API key) per client address. */
  readonly publicRequests: Limiter
  /** POST /v1/contacts. */
  readonly contactsCreate: Limiter
  /** Failed authentications per client address (see `authenticationGate`). */
  readonly failedAuthentications: Limiter
  /** POST /v1/emails/send. */
  readonly emailsSend: Limiter
  /** POST /v1/emails/batch. */
  readonly emailsBatch: Limiter
  /** POST /v1/emails/validate. */
  readonly emailsValidate: Limiter
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
    publicRequests: make(
      "mailroom:public-requests",
      options.publicRequestsPerSecond ?? defaultRateLimits.publicRequestsPerSecond,
      1,
    ),
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
    emailsValidate: make(
      "mailroom:emails-validate",
      options.emailsValidatePerSecond ?? defaultRateLimits.emailsValidatePerSecond,
      1,
    ),
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

/** Consumes one request of the limit `pick` names for the request, under `keyOf` the request; when none is left,
 *  answers `refuse` (by default 429 RATE_LIMIT_EXCEEDED with Retry-After). A failing store is a defect (500). */
const limitBy = (
  pick: (c: Context<MailroomEnv>) => keyof RateLimiters,
  keyOf: (c: Context<MailroomEnv>) => string,
  refuse: (exceeded: RateLimitExceeded) => Response = (exceeded) => errorResponse(exceeded),
) =>
  createMiddleware<MailroomEnv>(async (c, next) => {
    let exceeded: RateLimitExceeded | undefined
    try {
      exceeded = await consume(c.get("limiters")[pick(c)], keyOf(c))
    } catch (cause) {
      return c.get("run")(Effect.die(cause))
    }
    if (exceeded !== undefined) return refuse(exceeded)
    await next()
  })

/** The caller's API key (the "client"): the key of the per-key limits, which run after the API-key middleware. */
const apiKeyOf = (c: Context<MailroomEnv>) => c.get("apiKey").id

/** One request of the named limit for the caller's API key, beside the per-second one (POST /contacts: 60 per
 *  minute); 429 RATE_LIMIT_EXCEEDED with Retry-After when none is left. */
export const rateLimit = (name: keyof RateLimiters) => limitBy(() => name, apiKeyOf)

/** Routes with a per-second rate of their own (sending "Limits": POST /emails/send 100, POST /emails/batch 10, POST
 *  /emails/validate 50);
 *  they do not count against the 200 per second of "all other endpoints". */
const ownPerSecondLimits: Readonly<Record<string, keyof RateLimiters>> = {
  "POST /v1/emails/send": "emailsSend",
  "POST /v1/emails/batch": "emailsBatch",
  "POST /v1/emails/validate": "emailsValidate",
}

/** The per-second rate of every /v1 request, per API key: its route's own, else `requests`. */
export const perSecondRateLimit = limitBy(
  (c) => ownPerSecondLimits[`${c.req.method} ${c.req.path}`] ?? "requests",
  apiKeyOf,
)

/** The key of a client that has no API key: its address (client-address.ts: the peer, or what trusted proxies
 *  report), or one shared key for every client whose address the transport does not tell (a host calling `fetch`
 *  without one), so that such clients are still limited together. */
const clientKey = (address: string | null) => address ?? "unknown"

/** Consumes one request of the named limit for the request's client address, for the routes that run before any API
 *  key. `refuse` answers a client past the limit (by default the JSON 429 RATE_LIMIT_EXCEEDED with Retry-After). */
export const rateLimitByAddress = (name: keyof RateLimiters, refuse?: (exceeded: RateLimitExceeded) => Response) =>
  limitBy(() => name, (c) => clientKey(c.get("clientAddress")), refuse)

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
