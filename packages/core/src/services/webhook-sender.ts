/** One attempt of one delivery: check the URL again (rules and DNS), sign the stored body, POST it to the checked
 *  address, record the attempt with what it did to the delivery, and move the endpoint's failure streak. Shared by
 *  POST /test, manual retries and the delivery job. Spec: "Delivery and retry", "Signature". */
import { Clock, Effect, Option } from "effect"
import type { Account } from "../domain/account.js"
import {
  afterAttempt, isSuccessStatus, previousSecretValid, signedHeaders, type StreakDecision, type WebhookAttempt,
  type WebhookDelivery, type WebhookEndpoint, webhookLimits,
} from "../domain/webhook.js"
import { deriveKey, seal, unseal } from "../internal/secret-box.js"
import { HttpTransport } from "../ports/http-transport.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import { checkWebhookTarget, WebhooksConfig } from "./webhook-target.js"

/** Attempts after which a delivery is failed: the first POST and five retries. */
export const maxAttempts = 6

export interface AttemptResult {
  readonly attempt: WebhookAttempt
  readonly delivery: WebhookDelivery
  /** The streak decision the attempt led to (notice to send, endpoint disabled). */
  readonly decision: StreakDecision
  readonly endpoint: WebhookEndpoint
}

/** The key that seals webhook secrets, derived from the account platform's MAILROOM_SECRET. */
export const secretKey = (masterSecret: string) => deriveKey(masterSecret, "webhook-secrets")

export const sealSecret = (masterSecret: string, secret: string) => seal(secretKey(masterSecret), secret)

/** The clear secret; a secret sealed under another MAILROOM_SECRET cannot sign and is reported as such. */
export const unsealSecret = (masterSecret: string, sealed: string): string | undefined => unseal(secretKey(masterSecret), sealed)

const describeStatus = (status: number) => `the receiver answered ${status}; only a 2xx is a success`

/** Makes one attempt of `delivery` to `endpoint` now, and records it. `final` marks the delivery failed when the attempt
 *  fails (no retry left); otherwise a failed delivery stays pending. Never fails for the receiver's sake: a refused
 *  URL, no answer or a non-2xx is a failed attempt. */
export const attemptDelivery = (
  account: Pick<Account, "id">,
  endpoint: WebhookEndpoint,
  delivery: WebhookDelivery,
  options: { readonly masterSecret: string; readonly final: boolean },
) =>
  Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const transport = yield* HttpTransport
    const config = yield* WebhooksConfig
    const startedAt = new Date(yield* Clock.currentTimeMillis)
    const attemptId = ids.make("webhookAttempt", startedAt)
    const secret = unsealSecret(options.masterSecret, endpoint.sealedSecret)
    const previous = previousSecretValid(endpoint, startedAt) && endpoint.sealedPreviousSecret !== null
      ? unsealSecret(options.masterSecret, endpoint.sealedPreviousSecret)
      : undefined

    const outcome = yield* Effect.gen(function* () {
      if (secret === undefined) {
        return { statusCode: null, durationMs: 0, snippet: null, error: "the endpoint's secret cannot be read with this MAILROOM_SECRET; rotate it" }
      }
      const target = yield* Effect.either(checkWebhookTarget(endpoint.url, config.urlRules))
      if (target._tag === "Left") return { statusCode: null, durationMs: 0, snippet: null, error: `refused: ${target.left}` }
      const headers = signedHeaders({ current: secret, previous }, {
        eventType: delivery.eventType,
        webhookId: delivery.id,
        attemptId,
        body: delivery.payload,
        at: startedAt,
      })
      const answer = yield* Effect.either(transport.post({
        url: target.right.url,
        address: target.right.address,
        headers,
        body: delivery.payload,
        timeoutMs: webhookLimits.deliveryTimeoutMs,
        maxResponseBytes: webhookLimits.responseSnippetLength,
      }))
      if (answer._tag === "Left") {
        return { statusCode: null, durationMs: answer.left.durationMs, snippet: null, error: answer.left.detail }
      }
      const { status, snippet, durationMs } = answer.right
      return { statusCode: status, durationMs, snippet, error: isSuccessStatus(status) ? null : describeStatus(status) }
    })

    const succeeded = outcome.error === null
    const finishedAt = new Date(yield* Clock.currentTimeMillis)
    const attempt: WebhookAttempt = {
      id: attemptId,
      accountId: account.id,
      deliveryId: delivery.id,
      endpointId: endpoint.id,
      attempt: delivery.attempts + 1,
      succeeded,
      statusCode: outcome.statusCode,
      durationMs: outcome.durationMs,
      responseSnippet: outcome.snippet,
      error: outcome.error,
      startedAt,
    }
    const status = succeeded ? "succeeded" : options.final ? "failed" : "pending"
    // The streak is read and written under the endpoint's lock, so that concurrent attempts count one after another.
    // The lock comes first: recording the attempt takes a key-share lock on the endpoint (its foreign key), and two
    // attempts that each held one while asking for the endpoint's lock would deadlock.
    const { decision, updated } = yield* store.transaction(Effect.gen(function* () {
      const current = Option.getOrElse(yield* store.webhooks.findEndpoint(account.id, endpoint.id, { forUpdate: true }), () => endpoint)
      yield* store.webhooks.recordAttempt(attempt, {
        status, lastStatusCode: outcome.statusCode, lastError: outcome.error, at: finishedAt,
      })
      const decision = afterAttempt(current.failureSettings, current.streak, succeeded)
      if (decision.disable && current.active) {
        const disabled: WebhookEndpoint = {
          ...current,
          active: false,
          streak: decision.streak,
          disabledReason: `disabled automatically after ${decision.streak.consecutiveFailures} consecutive failed deliveries`,
          disabledAt: finishedAt,
          updatedAt: finishedAt,
        }
        yield* store.webhooks.updateEndpoint(disabled)
        return { decision, updated: disabled }
      }
      yield* store.webhooks.setStreak(account.id, endpoint.id, decision.streak)
      return { decision, updated: { ...current, streak: decision.streak } }
    }))
    return {
      attempt,
      delivery: {
        ...delivery,
        status,
        attempts: attempt.attempt,
        lastStatusCode: outcome.statusCode,
        lastError: outcome.error,
        updatedAt: finishedAt,
        completedAt: status === "pending" ? null : finishedAt,
      },
      decision,
      endpoint: updated,
    } satisfies AttemptResult
  })

