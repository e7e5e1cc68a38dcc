/** One attempt of one delivery: check the URL again (rules and DNS), sign the stored body, POST it to the checked
 *  address, record the attempt with what it did to the delivery, and move the endpoint's failure streak. Shared by
 *  POST /test, manual retries and the delivery job. Spec: "Delivery and retry", "Signature". */
import { type Clock, Effect, Either } from "effect"
import type { Account } from "../domain/account.js"
import {
  afterAttempt, isSuccessStatus, previousSecretValid, signedHeaders, type StreakDecision, type UrlRules, type WebhookAttempt,
  type WebhookDelivery, type WebhookEndpoint, webhookLimits, webhookRetryPolicy,
} from "../domain/webhook.js"
import { makeRecentCache } from "../internal/recent-cache.js"
import { deriveKey, seal, unseal } from "../internal/secret-box.js"
import { HttpTransport, type HttpTransportService, type PinnedPost, type PostOutcome } from "../ports/http-transport.js"
import { Ids, type IdsService } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import { checkWebhookTarget, WebhooksConfig } from "./webhook-target.js"

/** Attempts after which a delivery is failed: the first POST and one per delay of the retry schedule. */
export const maxAttempts = webhookRetryPolicy.delays.length + 1

export interface AttemptResult {
  readonly attempt: WebhookAttempt
  readonly delivery: WebhookDelivery
  /** The streak decision the attempt led to (notice to send, endpoint disabled). */
  readonly decision: StreakDecision
  readonly endpoint: WebhookEndpoint
}

/** The key that seals webhook secrets under a MAILROOM_SECRET, derived once rather than on every attempt, with the
 *  clear secrets of the last endpoints delivered to (every run and attempt signs with its endpoint's): they go with
 *  the key they were unsealed with. */
const sealing = (masterSecret: string) => {
  if (derived?.masterSecret !== masterSecret) {
    derived = { masterSecret, key: deriveKey(masterSecret, "webhook-secrets"), unsealed: makeRecentCache(256) }
  }
  return derived
}
let derived: {
  readonly masterSecret: string
  readonly key: Buffer
  readonly unsealed: ReturnType<typeof makeRecentCache<string, string | undefined>>
} | undefined

/** The key that seals webhook secrets, derived from the account platform's MAILROOM_SECRET. */
export const secretKey = (masterSecret: string) => sealing(masterSecret).key

export const sealSecret = (masterSecret: string, secret: string) => seal(secretKey(masterSecret), secret)

/** The clear secret; a secret sealed under another MAILROOM_SECRET cannot sign and is reported as such (and is tried
 *  again each time). */
export const unsealSecret = (masterSecret: string, sealed: string): string | undefined => {
  const { key, unsealed } = sealing(masterSecret)
  return unsealed.get(sealed, () => unseal(key, sealed))
}

/** An attempt made, to record with what it does to its delivery and its endpoint's streak. */
export interface PendingRecord {
  readonly endpoint: WebhookEndpoint
  readonly attempt: WebhookAttempt
  readonly status: WebhookDelivery["status"]
  readonly at: Date
}

export interface RecordedAttempt {
  readonly decision: StreakDecision
  /** The endpoint after the attempt (its streak moved, or disabled). */
  readonly updated: WebhookEndpoint
}

/** Records one attempt with what it did to its delivery and its endpoint's failure streak, and answers the streak
 *  decision. A success leaves the streak where afterAttempt puts it whatever the streak was, so the endpoint is neither
 *  read nor locked: one atomic write (one statement on Postgres) records the attempt, moves the delivery and stores
 *  the streak. A failure counts from the streak as it is once the endpoint is locked, in one transaction, so that
 *  attempts of one endpoint recorded at once count one after another (and the one reaching autoDisableAfter disables
 *  the endpoint). The lock comes first: recording an attempt takes a key-share lock on the endpoint (its foreign key),
 *  and two records that each held one while asking for the endpoint's lock would deadlock. */
export const recordAttempt = (pending: PendingRecord) =>
  Effect.gen(function* () {
    const store = yield* Store
    const { endpoint, attempt, status, at } = pending
    const record = { attempt, outcome: { status, lastStatusCode: attempt.statusCode, lastError: attempt.error, at } }
    const ref = { accountId: endpoint.accountId, endpointId: endpoint.id }
    if (attempt.succeeded) {
      const decision = afterAttempt(endpoint.failureSettings, endpoint.streak, true)
      yield* store.webhooks.recordAttempts([record], [{ ...ref, streak: decision.streak }])
      return { decision, updated: { ...endpoint, streak: decision.streak } } satisfies RecordedAttempt
    }
    return yield* store.transaction(Effect.gen(function* () {
      const now = (yield* store.webhooks.lockEndpoints([ref]))[0] ?? endpoint
      const decision = afterAttempt(now.failureSettings, now.streak, false)
      yield* store.webhooks.recordAttempts([record])
      if (decision.disable && now.active) {
        const updated: WebhookEndpoint = {
          ...now,
          active: false,
          streak: decision.streak,
          disabledReason: `disabled automatically after ${decision.streak.consecutiveFailures} consecutive failed deliveries`,
          disabledAt: at,
          updatedAt: at,
        }
        yield* store.webhooks.updateEndpoint(updated)
        return { decision, updated } satisfies RecordedAttempt
      }
      const moved = decision.streak.consecutiveFailures !== now.streak.consecutiveFailures || decision.streak.notified !== now.streak.notified
      if (moved) yield* store.webhooks.setStreak(now.accountId, now.id, decision.streak)
      return { decision, updated: { ...now, streak: decision.streak } } satisfies RecordedAttempt
    }))
  })

const describeStatus = (status: number) => `the receiver answered ${status}; only a 2xx is a success`

/** An attempt made and not yet recorded. */
export interface MadeAttempt {
  readonly attempt: WebhookAttempt
  readonly finishedAt: Date
}

/** What an attempt signs with: the MAILROOM_SECRET that unseals the endpoint's secrets. */
export interface AttemptOptions {
  readonly masterSecret: string
}

/** What every attempt of a delivery run uses alike, resolved once per run rather than once per attempt: the ids, the
 *  transport, the clock and the URL rules. A run makes up to webhookJobBatch attempts, and each service looked up again
 *  is a step of Effect's runtime per attempt. */
export interface AttemptTools {
  readonly ids: IdsService
  readonly transport: HttpTransportService
  readonly clock: Clock.Clock
  readonly urlRules: UrlRules
  /** The MAILROOM_SECRET that unseals the endpoints' secrets. */
  readonly masterSecret: string
}

/** The AttemptTools of the running fiber, signing with `options.masterSecret`. */
export const attemptTools = (options: AttemptOptions): Effect.Effect<AttemptTools, never, Ids> =>
  Effect.map(
    Effect.all([Ids, HttpTransport, Effect.clock, WebhooksConfig]),
    ([ids, transport, clock, config]) => ({ ids, transport, clock, urlRules: config.urlRules, masterSecret: options.masterSecret }),
  )

/** Why an attempt to `endpoint` makes no POST (a secret that cannot be read, a refused URL), or the signed POST to make:
 *  the endpoint's secrets unsealed (the current one, and the previous one during a rotation), its URL checked again
 *  (rules and DNS), the stored body signed for the checked address. */
const signedPost = (tools: AttemptTools, endpoint: WebhookEndpoint, delivery: WebhookDelivery, attemptId: string, at: Date): Effect.Effect<PinnedPost | string, never> => {
  const current = unsealSecret(tools.masterSecret, endpoint.sealedSecret)
  if (current === undefined) return Effect.succeed("the endpoint's secret cannot be read with this MAILROOM_SECRET; rotate it")
  const previous = previousSecretValid(endpoint, at) && endpoint.sealedPreviousSecret !== null
    ? unsealSecret(tools.masterSecret, endpoint.sealedPreviousSecret)
    : undefined
  return Effect.match(checkWebhookTarget(endpoint.url, tools.urlRules), {
    onFailure: (reason) => `refused: ${reason}`,
    onSuccess: (target): PinnedPost => ({
      url: target.url,
      address: target.address,
      headers: signedHeaders({ current, previous }, {
        eventType: delivery.eventType,
        webhookId: delivery.id,
        attemptId,
        body: delivery.payload,
        at,
      }),
      body: delivery.payload,
      timeoutMs: webhookLimits.deliveryTimeoutMs,
      maxResponseBytes: webhookLimits.responseSnippetLength,
    }),
  })
}

/** What an attempt came to, given the transport's outcome or the reason it made no POST: a 2xx succeeds; a refused
 *  URL, no answer or another status fails. */
const attemptOutcome = (outcome: PostOutcome | string) =>
  typeof outcome === "string"
    ? { statusCode: null, durationMs: 0, snippet: null, error: outcome }
    : Either.isLeft(outcome)
    ? { statusCode: null, durationMs: outcome.left.durationMs, snippet: null, error: outcome.left.detail }
    : {
      statusCode: outcome.right.status,
      durationMs: outcome.right.durationMs,
      snippet: outcome.right.snippet,
      error: isSuccessStatus(outcome.right.status) ? null : describeStatus(outcome.right.status),
    }

/** makeAttempt with its tools resolved: the attempt of a run (runDeliveryJob resolves them once for all its attempts).
 *  Plain steps between the few that need the runtime (the URL check, the POST), since a run makes hundreds. */
export const makeAttemptWith = (tools: AttemptTools, account: Pick<Account, "id">, endpoint: WebhookEndpoint, delivery: WebhookDelivery): Effect.Effect<MadeAttempt, never> =>
  Effect.suspend(() => {
    const startedAt = new Date(tools.clock.unsafeCurrentTimeMillis())
    const id = tools.ids.make("webhookAttempt", startedAt)
    const made = (outcome: PostOutcome | string): MadeAttempt => {
      const result = attemptOutcome(outcome)
      const attempt: WebhookAttempt = {
        id,
        accountId: account.id,
        deliveryId: delivery.id,
        endpointId: endpoint.id,
        attempt: delivery.attempts + 1,
        succeeded: result.error === null,
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        responseSnippet: result.snippet,
        error: result.error,
        startedAt,
      }
      return { attempt, finishedAt: new Date(tools.clock.unsafeCurrentTimeMillis()) }
    }
    return Effect.flatMap(signedPost(tools, endpoint, delivery, id, startedAt), (post) =>
      typeof post === "string"
        ? Effect.succeed(made(post))
        : Effect.match(tools.transport.post(post), {
          onFailure: (error) => made(Either.left(error)),
          onSuccess: (answer) => made(Either.right(answer)),
        }))
  })

/** Makes one attempt of `delivery` to `endpoint` now, without recording it: check the URL again (rules and DNS), sign
 *  the stored body, POST it to the checked address. Never fails for the receiver's sake: a refused URL, no answer or
 *  a non-2xx is a failed attempt. */
export const makeAttempt = (account: Pick<Account, "id">, endpoint: WebhookEndpoint, delivery: WebhookDelivery, options: AttemptOptions) =>
  Effect.flatMap(attemptTools(options), (tools) => makeAttemptWith(tools, account, endpoint, delivery))

/** What to record of a made attempt: `final` marks the delivery failed when the attempt failed (no retry left);
 *  otherwise a failed delivery stays pending. */
export const pendingRecord = (endpoint: WebhookEndpoint, made: MadeAttempt, final: boolean): PendingRecord => ({
  endpoint,
  attempt: made.attempt,
  status: made.attempt.succeeded ? "succeeded" : final ? "failed" : "pending",
  at: made.finishedAt,
})

/** The attempt's result once recorded: the delivery as the record left it, the streak decision and the endpoint. */
export const attemptResult = (delivery: WebhookDelivery, pending: PendingRecord, recorded: RecordedAttempt): AttemptResult => ({
  attempt: pending.attempt,
  delivery: {
    ...delivery,
    status: pending.status,
    attempts: pending.attempt.attempt,
    lastStatusCode: pending.attempt.statusCode,
    lastError: pending.attempt.error,
    updatedAt: pending.at,
    completedAt: pending.status === "pending" ? null : pending.at,
  },
  decision: recorded.decision,
  endpoint: recorded.updated,
})

/** Makes one attempt of `delivery` to `endpoint` now (makeAttempt), and records it (recordAttempt). `final` marks the
 *  delivery failed when the attempt fails (no retry left); otherwise a failed delivery stays pending. */
export const attemptDelivery = (
  account: Pick<Account, "id">,
  endpoint: WebhookEndpoint,
  delivery: WebhookDelivery,
  options: AttemptOptions & { readonly final: boolean },
) =>
  Effect.gen(function* () {
    const made = yield* makeAttempt(account, endpoint, delivery, options)
    const pending = pendingRecord(endpoint, made, options.final)
    return attemptResult(delivery, pending, yield* recordAttempt(pending))
  })
