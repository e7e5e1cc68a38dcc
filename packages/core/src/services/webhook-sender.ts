/** One attempt of one delivery: check the URL again (rules and DNS), sign the stored body, POST it to the checked
 *  address, record the attempt with what it did to the delivery, and move the endpoint's failure streak. Shared by
 *  POST /test, manual retries and the delivery job. Spec: "Delivery and retry", "Signature". */
import { Clock, Effect, Either } from "effect"
import type { Account } from "../domain/account.js"
import {
  afterAttempt, isSuccessStatus, previousSecretValid, signedHeaders, type SigningSecrets, type StreakDecision, type WebhookAttempt,
  type WebhookDelivery, type WebhookEndpoint, webhookLimits, webhookRetryPolicy,
} from "../domain/webhook.js"
import type { StoreError } from "../errors.js"
import { makeRecentCache } from "../internal/recent-cache.js"
import { deriveKey, seal, unseal } from "../internal/secret-box.js"
import { HttpTransport, type PinnedPost, type PostOutcome } from "../ports/http-transport.js"
import { Ids, type IdsService } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import { type CheckedTarget, checkWebhookTarget, WebhooksConfig } from "./webhook-target.js"

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

/** Records attempts in one transaction, set-based: the distinct endpoints locked in one statement, in the order of
 *  their ids (so that two groups cannot deadlock), the attempts inserted and their deliveries moved in one statement
 *  each, and one streak write per endpoint whose streak moved. The streaks are computed here, attempt after attempt
 *  (by endpoint, then in the order given) with afterAttempt, from the endpoint as locked: concurrent groups count one
 *  after another. The lock comes first: recording an attempt takes a key-share lock on the endpoint (its foreign key),
 *  and two groups that each held one while asking for the endpoint's lock would deadlock. Answers in the order given.
 *
 *  A group whose attempts all succeeded (each delivery once) needs none of that: a success leaves the streak where
 *  afterAttempt puts it whatever the streak was, so the endpoints are neither read nor locked, and one atomic write
 *  (one statement on Postgres) records the attempts, moves the deliveries and stores each endpoint's streak. A group
 *  recording failures at the same time still counts from the streak as it is when it takes its lock: the two come out
 *  as if one had run after the other. */
export const recordAttempts = (pending: ReadonlyArray<PendingRecord>) =>
  Effect.gen(function* () {
    const store = yield* Store
    if (pending.length === 0) return []
    if (allSucceededOnce(pending)) return yield* recordSuccesses(pending)
    const order = pending.map((_, i) => i).sort((a, b) => {
      const x = pending[a]!.endpoint.id
      const y = pending[b]!.endpoint.id
      return x < y ? -1 : x > y ? 1 : a - b
    })
    // A delivery recorded twice in one group is recorded in rounds, each naming a delivery once (in order): its n-th
    // record goes to the n-th round.
    const rounds: Array<Array<PendingRecord>> = []
    const seen = new Map<string, number>()
    for (const one of pending) {
      const n = seen.get(one.attempt.deliveryId) ?? 0
      seen.set(one.attempt.deliveryId, n + 1)
      if (n === rounds.length) rounds.push([one])
      else rounds[n]!.push(one)
    }
    return yield* store.transaction(Effect.gen(function* () {
      const refs = [...new Map(pending.map(({ endpoint }) => [endpoint.id, { accountId: endpoint.accountId, endpointId: endpoint.id }])).values()]
      const locked = new Map((yield* store.webhooks.lockEndpoints(refs)).map((endpoint) => [endpoint.id as string, endpoint]))
      const current = new Map(locked)
      const disabledHere = new Set<string>()
      const answers: Array<RecordedAttempt> = []
      for (const i of order) {
        const { endpoint, attempt, at } = pending[i]!
        const now = current.get(endpoint.id) ?? endpoint
        const decision = afterAttempt(now.failureSettings, now.streak, attempt.succeeded)
        const updated: WebhookEndpoint = decision.disable && now.active
          ? {
            ...now,
            active: false,
            streak: decision.streak,
            disabledReason: `disabled automatically after ${decision.streak.consecutiveFailures} consecutive failed deliveries`,
            disabledAt: at,
            updatedAt: at,
          }
          : { ...now, streak: decision.streak }
        if (!updated.active && now.active) disabledHere.add(endpoint.id)
        current.set(endpoint.id, updated)
        answers[i] = { decision, updated }
      }
      yield* Effect.forEach(rounds, (round) =>
        store.webhooks.recordAttempts(attemptRecords(round)), { discard: true })
      // One write per endpoint, in id order: the disabled endpoint whole, or the streak when it moved.
      for (const [id, before] of [...locked].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const after = current.get(id)!
        if (disabledHere.has(id)) yield* store.webhooks.updateEndpoint(after)
        else if (after.streak.consecutiveFailures !== before.streak.consecutiveFailures || after.streak.notified !== before.streak.notified) {
          yield* store.webhooks.setStreak(before.accountId, before.id, after.streak)
        }
      }
      return answers
    }))
  })

/** What the Store records of each attempt: the attempt, and its delivery's new state. */
const attemptRecords = (pending: ReadonlyArray<PendingRecord>) =>
  pending.map(({ attempt, status, at }) => ({
    attempt,
    outcome: { status, lastStatusCode: attempt.statusCode, lastError: attempt.error, at },
  }))

/** Whether every attempt of the group succeeded, each of a delivery of its own. */
const allSucceededOnce = (pending: ReadonlyArray<PendingRecord>) =>
  pending.every(({ attempt }) => attempt.succeeded) && new Set(pending.map(({ attempt }) => attempt.deliveryId)).size === pending.length

/** recordAttempts of a group of successes: each endpoint's streak as the success leaves it (afterAttempt, which does
 *  not look at the streak before), stored with the attempts in one atomic write. */
const recordSuccesses = (pending: ReadonlyArray<PendingRecord>) =>
  Effect.gen(function* () {
    const store = yield* Store
    const answers = pending.map(({ endpoint, attempt }): RecordedAttempt => {
      const decision = afterAttempt(endpoint.failureSettings, endpoint.streak, attempt.succeeded)
      return { decision, updated: { ...endpoint, streak: decision.streak } }
    })
    const streaks = new Map(answers.map(({ updated }) => [updated.id, { accountId: updated.accountId, endpointId: updated.id, streak: updated.streak }]))
    yield* store.webhooks.recordAttempts(attemptRecords(pending), [...streaks.values()])
    return answers
  })

const recordOne = (pending: PendingRecord) => Effect.map(recordAttempts([pending]), (answers) => answers[0]!)

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

/** Where attempts to an endpoint go and what they sign with (the checked target and the clear secrets), or why they
 *  go nowhere: a secret that cannot be read, a refused URL. */
export type AttemptTarget = Either.Either<{ readonly target: CheckedTarget; readonly secrets: SigningSecrets }, string>

/** The target of attempts to `endpoint` at `at`: its secrets unsealed (the current one, and the previous one during a
 *  rotation), then its URL checked again (rules and DNS). */
export const attemptTarget = (masterSecret: string, endpoint: WebhookEndpoint, at: Date): Effect.Effect<AttemptTarget> =>
  Effect.gen(function* () {
    const current = unsealSecret(masterSecret, endpoint.sealedSecret)
    if (current === undefined) return Either.left("the endpoint's secret cannot be read with this MAILROOM_SECRET; rotate it")
    const previous = previousSecretValid(endpoint, at) && endpoint.sealedPreviousSecret !== null
      ? unsealSecret(masterSecret, endpoint.sealedPreviousSecret)
      : undefined
    const config = yield* WebhooksConfig
    return Either.map(
      Either.mapLeft(yield* Effect.either(checkWebhookTarget(endpoint.url, config.urlRules)), (reason) => `refused: ${reason}`),
      (target) => ({ target, secrets: { current, previous } }),
    )
  })

/** One attempt about to be made: its id and start, and the signed POST to make, or why it fails without one. */
export interface StartedAttempt {
  readonly id: string
  readonly startedAt: Date
  readonly post: Either.Either<PinnedPost, string>
}

/** Starts an attempt of `delivery` at `startedAt`: the stored body signed with the target's secrets. */
export const startAttempt = (ids: IdsService, delivery: WebhookDelivery, to: AttemptTarget, startedAt: Date): StartedAttempt => {
  const id = ids.make("webhookAttempt", startedAt)
  return {
    id,
    startedAt,
    post: Either.map(to, ({ target, secrets }) => ({
      url: target.url,
      address: target.address,
      headers: signedHeaders(secrets, {
        eventType: delivery.eventType,
        webhookId: delivery.id,
        attemptId: id,
        body: delivery.payload,
        at: startedAt,
      }),
      body: delivery.payload,
      timeoutMs: webhookLimits.deliveryTimeoutMs,
      maxResponseBytes: webhookLimits.responseSnippetLength,
    })),
  }
}

/** The attempt that `started` made, given the transport's outcome, or the reason it made no POST: a 2xx succeeds; a
 *  refused URL, no answer or another status fails. */
export const finishAttempt = (
  account: Pick<Account, "id">,
  endpoint: WebhookEndpoint,
  delivery: WebhookDelivery,
  started: StartedAttempt,
  outcome: PostOutcome | string,
  finishedAt: Date,
): MadeAttempt => {
  const result = typeof outcome === "string"
    ? { statusCode: null, durationMs: 0, snippet: null, error: outcome }
    : Either.isLeft(outcome)
    ? { statusCode: null, durationMs: outcome.left.durationMs, snippet: null, error: outcome.left.detail }
    : {
      statusCode: outcome.right.status,
      durationMs: outcome.right.durationMs,
      snippet: outcome.right.snippet,
      error: isSuccessStatus(outcome.right.status) ? null : describeStatus(outcome.right.status),
    }
  const attempt: WebhookAttempt = {
    id: started.id,
    accountId: account.id,
    deliveryId: delivery.id,
    endpointId: endpoint.id,
    attempt: delivery.attempts + 1,
    succeeded: result.error === null,
    statusCode: result.statusCode,
    durationMs: result.durationMs,
    responseSnippet: result.snippet,
    error: result.error,
    startedAt: started.startedAt,
  }
  return { attempt, finishedAt }
}

/** Makes one attempt of `delivery` to `endpoint` now, without recording it: check the URL again (rules and DNS), sign
 *  the stored body, POST it to the checked address. Never fails for the receiver's sake: a refused URL, no answer or
 *  a non-2xx is a failed attempt. */
export const makeAttempt = (account: Pick<Account, "id">, endpoint: WebhookEndpoint, delivery: WebhookDelivery, options: AttemptOptions) =>
  Effect.gen(function* () {
    const ids = yield* Ids
    const transport = yield* HttpTransport
    const startedAt = new Date(yield* Clock.currentTimeMillis)
    const started = startAttempt(ids, delivery, yield* attemptTarget(options.masterSecret, endpoint, startedAt), startedAt)
    const outcome = Either.isRight(started.post) ? yield* Effect.either(transport.post(started.post.right)) : started.post.left
    return finishAttempt(account, endpoint, delivery, started, outcome, new Date(yield* Clock.currentTimeMillis))
  })

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

/** Makes one attempt of `delivery` to `endpoint` now (makeAttempt), and records it. `final` marks the delivery failed
 *  when the attempt fails (no retry left); otherwise a failed delivery stays pending. */
export const attemptDelivery = (
  account: Pick<Account, "id">,
  endpoint: WebhookEndpoint,
  delivery: WebhookDelivery,
  options: AttemptOptions & {
    readonly final: boolean
    /** How the attempt is recorded: alone by default, or grouped with others (see recordAttempts). */
    readonly record?: (pending: PendingRecord) => Effect.Effect<RecordedAttempt, StoreError, Store>
  },
) =>
  Effect.gen(function* () {
    const made = yield* makeAttempt(account, endpoint, delivery, options)
    const pending = pendingRecord(endpoint, made, options.final)
    const recorded = yield* (options.record ?? recordOne)(pending)
    return attemptResult(delivery, pending, recorded)
  })
