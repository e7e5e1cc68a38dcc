/** Webhook endpoints and the pure rules of delivering to them: event subscriptions, URL and address rules, the retry
 *  schedule, failure streaks, the health badge and request signing. Spec: audience "Webhook endpoint", "Webhooks",
 *  "Events" (Signature, Delivery and retry), "Limits"; the Standard Webhooks headers come beside the spec's own. */
import { createHmac } from "node:crypto"
import { Duration, Either, Schema } from "effect"
import ipaddr from "ipaddr.js"
import { PlanUpgradeRequired, ValidationFailed, WebhookEventUnknown, WebhookLimitReached } from "../errors.js"
import type { RetryPolicy } from "../ports/job-queue.js"
import { type AccountId, Plan, planLimits } from "./account.js"
import { eventTypes, type EventType } from "./event.js"

export const WebhookId = Schema.String.pipe(Schema.brand("WebhookId"))
export type WebhookId = typeof WebhookId.Type
export const DeliveryId = Schema.String.pipe(Schema.brand("DeliveryId"))
export type DeliveryId = typeof DeliveryId.Type

export const webhookLimits = {
  descriptionLength: 500,
  urlLength: 2048,
  /** Success is a 2xx within this deadline (spec, Delivery and retry). */
  deliveryTimeoutMs: 10_000,
  /** The previous secret signs requests for this long after a rotation. */
  previousSecretValidityMs: 60 * 60 * 1000,
  /** Attempts are kept this long. */
  historyDays: 90,
  /** Addresses a failure notice may go to. */
  notifyEmails: 5,
  defaultFailureThreshold: 5,
  /** 0: never disable automatically. */
  defaultAutoDisableAfter: 0,
  /** Largest failureThreshold and autoDisableAfter accepted (not shown in the spec). */
  maxStreakSetting: 1000,
  /** Characters of a receiver's answer kept with an attempt. */
  responseSnippetLength: 1024,
  /** Page size of GET /webhooks/{id}/deliveries: default and maximum (sending spec, Pagination). */
  pageSize: 25,
  maxPageSize: 100,
} as const

/** The type a webhook receives after a manual retry. Every endpoint may receive it; none may subscribe to it. */
export const retryEventType = "webhook.retry"
/** What an endpoint can subscribe to: every event type of the spec's table. */
export const subscribableEventTypes: ReadonlyArray<EventType> = eventTypes
export type ReceivedEventType = EventType | typeof retryEventType
export const ReceivedEventType = Schema.Literal(...eventTypes, retryEventType)

/** The subscribed types of `events`, in the order given, without repeats. Spec: "Events" (field events). An unknown
 *  type fails with WEBHOOK_EVENT_UNKNOWN; `webhook.retry` with VALIDATION_ERROR (it is sent, never subscribed to). */
export const checkEventTypes = (
  events: ReadonlyArray<string>,
): Either.Either<ReadonlyArray<EventType>, WebhookEventUnknown | ValidationFailed> => {
  if (events.length === 0) {
    return Either.left(new ValidationFailed({ field: "events", detail: "must name at least one event type" }))
  }
  for (const event of events) {
    if (event === retryEventType) {
      return Either.left(new ValidationFailed({
        field: "events",
        detail: `${retryEventType} cannot be subscribed to: it is sent to an endpoint after a manual retry of its delivery`,
      }))
    }
    if (!(subscribableEventTypes as ReadonlyArray<string>).includes(event)) {
      return Either.left(new WebhookEventUnknown({ eventType: event }))
    }
  }
  return Either.right([...new Set(events)] as ReadonlyArray<EventType>)
}

// ---------------------------------------------------------------------------------------------------------------
// URL and address rules. Spec: audience "Webhooks", endpoint URL rules.

/** Whether the rules are relaxed for local development (MAILROOM_UNSAFE_ALLOW_PRIVATE_URLS): `http://`, any port, and
 *  loopback or private addresses are then accepted. Link-local, reserved and other special addresses stay refused. */
export interface UrlRules {
  readonly allowPrivate: boolean
}
export const strictUrlRules: UrlRules = { allowPrivate: false }

/** A URL that passed the rules that need no DNS: where to connect and what to send. */
export interface WebhookTarget {
  readonly url: URL
  /** Host name (or IP literal, without brackets) to resolve and to present as SNI and Host. */
  readonly hostname: string
  readonly port: number
  /** The address itself when the host is an IP literal. */
  readonly literal: string | undefined
}

const relaxedRanges = new Set(["unicast", "loopback", "private", "uniqueLocal"])

/** Why `address` may not be connected to, or undefined when it may. Public means ipaddr.js calls it unicast; an
 *  IPv4-mapped IPv6 address is refused as such in strict mode (it would reach an IPv4 host by the back door), and
 *  judged by its IPv4 address when the rules are relaxed. */
export const addressProblem = (address: string, rules: UrlRules = strictUrlRules): string | undefined => {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`
  let parsed = ipaddr.parse(address)
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    if (!rules.allowPrivate) return `${address} is an IPv4-mapped IPv6 address`
    parsed = (parsed as ipaddr.IPv6).toIPv4Address()
  }
  const range = parsed.range()
  if (range === "unicast") return undefined
  if (rules.allowPrivate && relaxedRanges.has(range)) return undefined
  return `${address} is a ${range} address, not a public one`
}

/** Checks every address a host resolved to: all must be allowed (a mix of public and private is refused, since the
 *  connection could reach either), and there must be at least one. */
export const checkAddresses = (
  hostname: string,
  addresses: ReadonlyArray<string>,
  rules: UrlRules = strictUrlRules,
): Either.Either<ReadonlyArray<string>, string> => {
  if (addresses.length === 0) return Either.left(`${hostname} does not resolve to any address`)
  for (const address of addresses) {
    const problem = addressProblem(address, rules)
    if (problem !== undefined) return Either.left(`${hostname} resolves to ${problem}`)
  }
  return Either.right(addresses)
}

/** The rules a URL must meet before any lookup: parseable, https on port 443 (relaxed: http too, any port), no
 *  credentials, no fragment-only tricks, and an IP literal only when its address is allowed. */
export const parseWebhookUrl = (text: string, rules: UrlRules = strictUrlRules): Either.Either<WebhookTarget, string> => {
  if (text.length > webhookLimits.urlLength) return Either.left(`must be at most ${webhookLimits.urlLength} characters`)
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return Either.left("is not a valid URL")
  }
  const schemes = rules.allowPrivate ? ["https:", "http:"] : ["https:"]
  if (!schemes.includes(url.protocol)) return Either.left("must use https")
  if (url.username !== "" || url.password !== "") return Either.left("must not carry credentials")
  if (url.hostname === "") return Either.left("must name a host")
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port)
  if (!rules.allowPrivate && port !== 443) return Either.left("must use port 443")
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
  const literal = ipaddr.isValid(hostname) ? hostname : undefined
  if (literal !== undefined) {
    const problem = addressProblem(literal, rules)
    if (problem !== undefined) return Either.left(`must reach a public address: ${problem}`)
  }
  return Either.right({ url, hostname, port, literal })
}

// ---------------------------------------------------------------------------------------------------------------
// Retries, streaks and health. Spec: "Delivery and retry" and the health badge rule under "States and transitions".

/** Delays before the five retries; a failure of the sixth attempt marks the delivery failed. */
export const webhookRetryDelays: ReadonlyArray<Duration.Duration> = [
  Duration.seconds(30), Duration.minutes(2), Duration.minutes(15), Duration.hours(1), Duration.hours(4),
]
export const webhookRetryPolicy: RetryPolicy = { delays: webhookRetryDelays }

/** Success is any 2xx (within the deadline, which the transport enforces). */
export const isSuccessStatus = (status: number): boolean => status >= 200 && status <= 299

export interface FailureSettings {
  /** Whether failure notices are sent. */
  readonly enabled: boolean
  /** Up to five addresses; empty means the account owner. */
  readonly notifyEmails: ReadonlyArray<string>
  readonly failureThreshold: number
  /** 0 means never. */
  readonly autoDisableAfter: number
}

export const defaultFailureSettings: FailureSettings = {
  enabled: true,
  notifyEmails: [],
  failureThreshold: webhookLimits.defaultFailureThreshold,
  autoDisableAfter: webhookLimits.defaultAutoDisableAfter,
}

/** An endpoint's failure streak: consecutive failed attempts, and whether this streak has had its notice. */
export interface FailureStreak {
  readonly consecutiveFailures: number
  readonly notified: boolean
}

export interface StreakDecision {
  readonly streak: FailureStreak
  /** Send the one failure notice of this streak now. */
  readonly notify: boolean
  /** Disable the endpoint now. */
  readonly disable: boolean
}

/** What one more attempt does to the streak. A success ends it; a failure extends it, sends the streak's one notice
 *  when it reaches failureThreshold (notices enabled), and disables the endpoint when it reaches autoDisableAfter
 *  (above 0). */
export const afterAttempt = (settings: FailureSettings, streak: FailureStreak, succeeded: boolean): StreakDecision => {
  if (succeeded) return { streak: { consecutiveFailures: 0, notified: false }, notify: false, disable: false }
  const consecutiveFailures = streak.consecutiveFailures + 1
  const notify = settings.enabled && !streak.notified && consecutiveFailures >= settings.failureThreshold
  const disable = settings.autoDisableAfter > 0 && consecutiveFailures >= settings.autoDisableAfter
  return { streak: { consecutiveFailures, notified: streak.notified || notify }, notify, disable }
}

export const healthBadges = ["healthy", "degraded", "failing"] as const
export type HealthBadge = (typeof healthBadges)[number]

/** A streak this long makes an endpoint failing whatever its success rate. */
export const failingStreak = 10

export interface DeliveryStats {
  readonly totalDeliveries: number
  readonly successfulDeliveries: number
}

/** Successful over total, in percent rounded to two decimals; 100 when nothing was delivered. */
export const successRate = (stats: DeliveryStats): number =>
  stats.totalDeliveries === 0 ? 100 : Math.round((stats.successfulDeliveries / stats.totalDeliveries) * 10_000) / 100

/** Healthy at 95% success or better, degraded at 80% or better, failing below that or after 10 consecutive failures. */
export const healthBadge = (stats: DeliveryStats, consecutiveFailures: number): HealthBadge => {
  if (consecutiveFailures >= failingStreak) return "failing"
  const rate = stats.totalDeliveries === 0 ? 1 : stats.successfulDeliveries / stats.totalDeliveries
  return rate >= 0.95 ? "healthy" : rate >= 0.8 ? "degraded" : "failing"
}

// ---------------------------------------------------------------------------------------------------------------
// Plans. Spec: audience "What the service does" (webhooks need the Starter plan or above), "Limits" (endpoints per
// plan), and the sending spec's "Errors" (an insufficient tier answers 403).

/** The lowest plan that includes webhooks: the first whose endpoint limit is not 0. */
export const webhookPlan: Plan = Plan.literals.find((plan) => planLimits[plan].webhookEndpoints !== 0)!

/** Whether the plan includes webhooks at all. */
export const checkWebhookPlan = (plan: Plan): Either.Either<void, PlanUpgradeRequired> =>
  planLimits[plan].webhookEndpoints === 0
    ? Either.left(new PlanUpgradeRequired({ plan, feature: "webhooks", requiredPlan: webhookPlan }))
    : Either.void

/** Whether an account of the plan holding `count` endpoints may add one more. */
export const checkEndpointRoom = (plan: Plan, count: number): Either.Either<void, PlanUpgradeRequired | WebhookLimitReached> => {
  const limit = planLimits[plan].webhookEndpoints
  return Either.flatMap(checkWebhookPlan(plan), () =>
    limit !== null && count >= limit ? Either.left(new WebhookLimitReached({ plan, limit })) : Either.void)
}

// ---------------------------------------------------------------------------------------------------------------
// Signing. Spec: "Signature"; Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature).

export const secretPrefix = "whsec_"

/** A new secret from random bytes: `whsec_` + base64, the form Standard Webhooks libraries accept as it is. */
export const makeSecret = (randomHex: string): string => `${secretPrefix}${Buffer.from(randomHex, "hex").toString("base64")}`

/** How many characters of a secret listings show as `secretPrefix`: `whsec_` and the first six after it. */
export const secretPrefixLength = 12

/** What listings show of a secret (`secretPrefix`): its first characters, literally, so that it is a prefix of it. */
export const displaySecret = (secret: string): string => secret.slice(0, secretPrefixLength)

/** X-Service-Signature: the hex HMAC-SHA256 of the raw body keyed with the secret as written (its UTF-8 bytes). */
export const signBody = (secret: string, body: string | Uint8Array): string =>
  createHmac("sha256", secret).update(body).digest("hex")

/** The key Standard Webhooks derives from a `whsec_` secret: the base64 after the prefix. */
const standardKey = (secret: string): Buffer =>
  Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, "base64")

/** One `v1,<base64>` signature of `id.timestamp.body`. */
export const standardSignature = (secret: string, id: string, timestampSeconds: number, body: string): string =>
  `v1,${createHmac("sha256", standardKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`

export interface SigningSecrets {
  readonly current: string
  /** The secret before the last rotation, while it is still valid. */
  readonly previous: string | undefined
}

export interface SignedRequest {
  readonly eventType: ReceivedEventType
  /** The Standard Webhooks message id: the delivery's id, the same on each of its attempts. */
  readonly webhookId: string
  /** X-Service-Delivery: unique per attempt. */
  readonly attemptId: string
  readonly body: string
  readonly at: Date
}

/** The headers of one delivery attempt: the spec's four and the three of Standard Webhooks (both secrets sign during a
 *  rotation; signatures are space-separated, newest first). */
export const signedHeaders = (secrets: SigningSecrets, request: SignedRequest): Record<string, string> => {
  const timestamp = Math.floor(request.at.getTime() / 1000)
  const all = secrets.previous === undefined ? [secrets.current] : [secrets.current, secrets.previous]
  return {
    "content-type": "application/json",
    "user-agent": "Mailroom-Webhooks/1",
    "x-service-event": request.eventType,
    "x-service-delivery": request.attemptId,
    "x-service-signature": signBody(secrets.current, request.body),
    ...(secrets.previous === undefined ? {} : { "x-service-signature-previous": signBody(secrets.previous, request.body) }),
    "webhook-id": request.webhookId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": all.map((secret) => standardSignature(secret, request.webhookId, timestamp, request.body)).join(" "),
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The endpoint resource and its inputs.

export interface WebhookEndpoint {
  readonly id: WebhookId
  readonly accountId: AccountId
  readonly url: string
  readonly events: ReadonlyArray<EventType>
  readonly description: string | null
  readonly active: boolean
  /** What listings show of the secret (displaySecret). */
  readonly secretPrefix: string
  /** The secret, sealed with the key derived from MAILROOM_SECRET: stores never see it in clear. */
  readonly sealedSecret: string
  /** The secret before the last rotation, sealed, and when it stops signing. */
  readonly sealedPreviousSecret: string | null
  readonly previousSecretExpiresAt: Date | null
  readonly failureSettings: FailureSettings
  readonly streak: FailureStreak
  /** Why the endpoint was disabled automatically; null while active or when disabled by hand. */
  readonly disabledReason: string | null
  readonly disabledAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** An endpoint as listed: with its number of deliveries over all time. */
export interface WebhookEndpointWithCount {
  readonly endpoint: WebhookEndpoint
  readonly totalDeliveries: number
}

/** Whether the previous secret still signs at `at`. */
export const previousSecretValid = (endpoint: WebhookEndpoint, at: Date): boolean =>
  endpoint.sealedPreviousSecret !== null && endpoint.previousSecretExpiresAt !== null &&
  endpoint.previousSecretExpiresAt.getTime() > at.getTime()

export const deliveryStatuses = ["pending", "succeeded", "failed"] as const
export const DeliveryStatus = Schema.Literal(...deliveryStatuses)
export type DeliveryStatus = typeof DeliveryStatus.Type

/** What made a delivery: an event of the outbox, POST /test, or a manual retry (webhook.retry). */
export const deliveryKinds = ["event", "test", "retry"] as const
export type DeliveryKind = (typeof deliveryKinds)[number]

/** One event (or test, or retry notice) for one endpoint. Unique per (event, endpoint): fan-out is idempotent. */
export interface WebhookDelivery {
  readonly id: DeliveryId
  readonly accountId: AccountId
  readonly endpointId: WebhookId
  /** The outbox event; null for tests and retry notices. */
  readonly eventId: string | null
  readonly eventType: ReceivedEventType
  readonly kind: DeliveryKind
  /** The request body exactly as sent on every attempt, so that each attempt signs the same bytes. */
  readonly payload: string
  readonly status: DeliveryStatus
  readonly attempts: number
  readonly lastStatusCode: number | null
  readonly lastError: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly completedAt: Date | null
}

/** One POST of a delivery: every attempt, tests and retries included, is kept 90 days. */
export interface WebhookAttempt {
  readonly id: string
  readonly accountId: AccountId
  readonly deliveryId: DeliveryId
  readonly endpointId: WebhookId
  /** 1 for the first POST of the delivery. */
  readonly attempt: number
  readonly succeeded: boolean
  /** The receiver's status; null when it did not answer. */
  readonly statusCode: number | null
  readonly durationMs: number
  /** The start of the receiver's answer. */
  readonly responseSnippet: string | null
  /** What went wrong: no answer, a refused URL, a non-2xx status. */
  readonly error: string | null
  readonly startedAt: Date
}

/** GET /webhooks/{id}/deliveries: a page, optionally of one status and one event type, newest first. */
export interface DeliveryQuery {
  readonly page: number
  readonly limit: number
  readonly status?: DeliveryStatus | undefined
  readonly eventType?: ReceivedEventType | undefined
}

/** The delivery id of an event for an endpoint: derived from the pair, so that fan-out of the same event twice makes
 *  the same id (and the SQL stores compute the same id in their INSERT … SELECT). */
export const deliveryIdFor = (eventId: string, endpointId: string): DeliveryId => `whd_${eventId}_${endpointId}` as DeliveryId

/** The delivery that fan-out makes of an event for an endpoint at `at`: pending, not yet attempted, with the event's
 *  request body. The SQL stores insert the same values in their INSERT … SELECT and answer this. */
export const fannedOutDelivery = (
  event: { readonly id: string; readonly accountId: AccountId; readonly type: EventType; readonly payload: string },
  endpointId: WebhookId,
  at: Date,
): WebhookDelivery => ({
  id: deliveryIdFor(event.id, endpointId),
  accountId: event.accountId,
  endpointId,
  eventId: event.id,
  eventType: event.type,
  kind: "event",
  payload: event.payload,
  status: "pending",
  attempts: 0,
  lastStatusCode: null,
  lastError: null,
  createdAt: at,
  updatedAt: at,
  completedAt: null,
})

/** Whether fan-out gives `endpoint` a delivery of an event of `type`: active and subscribed to it. */
export const subscribes = (endpoint: Pick<WebhookEndpoint, "active" | "events">, type: string): boolean =>
  endpoint.active && (endpoint.events as ReadonlyArray<string>).includes(type)

export const WebhookDescription = Schema.String.pipe(Schema.maxLength(webhookLimits.descriptionLength, {
  message: () => `description is at most ${webhookLimits.descriptionLength} characters`,
}))
const WebhookUrlText = Schema.String.pipe(Schema.minLength(1, { message: () => "url is required" }))
const EventNames = Schema.Array(Schema.String)

/** Body of POST /webhooks. Event names are checked by checkEventTypes (for its own error code). */
export const CreateWebhookInput = Schema.Struct({
  url: WebhookUrlText,
  events: EventNames,
  description: Schema.optional(Schema.NullOr(WebhookDescription)),
})
export type CreateWebhookInput = typeof CreateWebhookInput.Type

/** Body of PATCH /webhooks/{id}: any of the fields. */
export const UpdateWebhookInput = Schema.Struct({
  url: Schema.optional(WebhookUrlText),
  events: Schema.optional(EventNames),
  description: Schema.optional(Schema.NullOr(WebhookDescription)),
  active: Schema.optional(Schema.Boolean),
})
export type UpdateWebhookInput = typeof UpdateWebhookInput.Type

const StreakSetting = (name: string, min: number) =>
  Schema.Number.pipe(
    Schema.int({ message: () => `${name} must be an integer` }),
    Schema.between(min, webhookLimits.maxStreakSetting, {
      message: () => `${name} must be between ${min} and ${webhookLimits.maxStreakSetting}`,
    }),
  )

const NotifyEmail = Schema.String.pipe(Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, {
  message: () => "must be an email address",
}), Schema.maxLength(254, { message: () => "must be at most 254 characters" }))

/** Body of PATCH /webhooks/{id}/failure-settings: any of the fields. */
export const FailureSettingsInput = Schema.Struct({
  enabled: Schema.optional(Schema.Boolean),
  notifyEmails: Schema.optional(Schema.Array(NotifyEmail).pipe(Schema.maxItems(webhookLimits.notifyEmails, {
    message: () => `notifyEmails holds at most ${webhookLimits.notifyEmails} addresses`,
  }))),
  failureThreshold: Schema.optional(StreakSetting("failureThreshold", 1)),
  autoDisableAfter: Schema.optional(StreakSetting("autoDisableAfter", 0)),
})
export type FailureSettingsInput = typeof FailureSettingsInput.Type

/** Body of POST /webhooks/{id}/test. */
export const TestWebhookInput = Schema.Struct({
  eventType: Schema.optional(Schema.String),
})
export type TestWebhookInput = typeof TestWebhookInput.Type

// ---------------------------------------------------------------------------------------------------------------
// The request envelope. Spec: "Request envelope".

/** Email events about one message's delivery: their messageId is the message's, and their envelope fields (sender,
 *  subject, status, smtpResponse, bounceReason, bounceType) are written by the sending work into the event's details,
 *  from which they are lifted to the top level. Other events (contact, list, engagement) carry their own id. */
export const deliveryEventTypes: ReadonlyArray<EventType> = [
  "email.queued", "email.delivered", "email.bounced", "email.deferred", "email.dropped", "email.received",
]
/** The details fields of a delivery event lifted to the envelope's top level, in their order there, after messageId
 *  (taken from the details as well). */
export const liftedEnvelopeFields = ["sender", "subject", "status", "smtpResponse", "bounceReason", "bounceType"] as const

export interface EnvelopeSource {
  readonly id: string
  readonly type: ReceivedEventType
  readonly recipient: string | null
  readonly details: Readonly<Record<string, unknown>>
  readonly occurredAt: Date
}

/** The JSON body of a delivery, with fields that do not apply omitted. */
export const webhookEnvelope = (event: EnvelopeSource): Record<string, unknown> => {
  const isDelivery = (deliveryEventTypes as ReadonlyArray<string>).includes(event.type)
  const details: Record<string, unknown> = { ...event.details }
  const top: Record<string, unknown> = {}
  if (isDelivery) {
    for (const field of ["messageId", ...liftedEnvelopeFields]) {
      const value = details[field]
      delete details[field]
      if (typeof value === "string" && value !== "") top[field] = value
    }
  }
  return {
    eventType: event.type,
    messageId: typeof top.messageId === "string" ? top.messageId : event.id,
    timestamp: event.occurredAt.toISOString(),
    ...(event.recipient === null ? {} : { recipient: event.recipient }),
    ...Object.fromEntries(liftedEnvelopeFields.flatMap((field) => top[field] === undefined ? [] : [[field, top[field]]])),
    details,
  }
}
