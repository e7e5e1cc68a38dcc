/** The webhooks API: endpoints with their secrets and failure settings, test sends, health, delivery history and
 *  manual retry. Spec: audience "Webhook endpoint", "Webhooks", "Events" (Signature, Delivery and retry) and "Limits".
 *  Deliveries of outbox events are made by the delivery job (webhook-queue.ts). */
import { Clock, Effect, Either, Option } from "effect"
import type { Account } from "../domain/account.js"
import {
  checkEndpointRoom, checkEventTypes, checkWebhookPlan, type CreateWebhookInput, defaultFailureSettings, type DeliveryId, type DeliveryQuery,
  displaySecret, type FailureSettingsInput, healthBadge, makeSecret, type ReceivedEventType,
  retryEventType, successRate, type UpdateWebhookInput, webhookEnvelope, type WebhookEndpoint, type WebhookId,
  webhookLimits, type WebhookDelivery,
} from "../domain/webhook.js"
import { ValidationFailed, WebhookNotFound } from "../errors.js"
import { sentFields } from "../internal/patch.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import { orFailWith } from "../internal/found.js"
import { Accounts } from "./accounts.js"
import { serviceMethod } from "./tracing.js"
import { attemptDelivery, sealSecret } from "./webhook-sender.js"
import { checkWebhookTarget, defaultDeliveryConcurrency, WebhooksConfig } from "./webhook-target.js"
import { Background } from "./background.js"
import {
  enqueueDeliveries, purgeWebhookHistory, requeuePendingDeliveries, runDeliveryJob, schedulePurge, webhookConsumer,
  webhookDeliveryJob, webhookPurgeJob,
} from "./webhook-queue.js"
import { currentDate } from "../internal/time.js"

const day = 24 * 60 * 60 * 1000

export { defaultDeliveryConcurrency } from "./webhook-target.js"


export interface TestResult {
  readonly success: boolean
  /** The receiver's status; 0 when it was not reached. */
  readonly statusCode: number
  readonly responseTime: number
  readonly deliveryId: DeliveryId
  readonly message: string
  readonly errorMessage?: string | undefined
}

export interface EndpointHealth {
  readonly endpoint: WebhookEndpoint
  readonly badge: ReturnType<typeof healthBadge>
  readonly totalDeliveries: number
  readonly successfulDeliveries: number
  readonly successRate: number
}

export class Webhooks extends Effect.Service<Webhooks>()("@mailroom/core/Webhooks", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const accounts = yield* Accounts
    const method = yield* serviceMethod
    const now = currentDate

    // Automatic delivery, for every host that builds the services (the host starts it with Background.start):
    // committed events fan out to deliveries, the queue makes each delivery's attempts, deliveries left pending
    // without a job are queued again at start, and the purge runs daily.
    const background = yield* Background
    const withServices = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(Effect.provideService(Accounts, accounts), Effect.provideService(Ids, ids))
    yield* background.consume(webhookConsumer)
    // Each run of the delivery job POSTs its deliveries (one endpoint's), deliveryConcurrency at a time; the worker runs
    // deliveryConcurrency runs at once, times deliveryRunsPerPost (on Postgres, where each statement is a round trip, the
    // facade sets 4), so that the reads and records of some runs overlap the POSTs of others, and a slow endpoint's
    // run does not hold back the others'. The transport bounds the POSTs under way in the process (@mailroom/net: 16
    // by default).
    const webhooksConfig = yield* WebhooksConfig
    const posts = Math.max(1, Math.floor(webhooksConfig.deliveryConcurrency ?? defaultDeliveryConcurrency))
    const runsPerPost = Math.max(1, Math.floor(webhooksConfig.deliveryRunsPerPost ?? 1))
    yield* background.work(webhookDeliveryJob, (payload) => withServices(runDeliveryJob(payload)), {
      concurrency: posts * runsPerPost,
    })
    yield* background.work(webhookPurgeJob, () => Effect.zipRight(purgeWebhookHistory, schedulePurge("tomorrow")))
    yield* background.atStart("webhook delivery", Effect.zipRight(
      Effect.flatMap(requeuePendingDeliveries, (offered) =>
        offered > 0 ? Effect.logInfo(`webhooks: ${offered} pending deliveries queued again`) : Effect.void),
      schedulePurge("today"),
    ))

    const find = (account: Account, id: string) =>
      store.webhooks.findEndpoint(account.id, id).pipe(orFailWith(() => new WebhookNotFound({ resource: "webhook", id })))

    /** The URL rules, checked on create and update as on every delivery. */
    const checkUrl = (url: string) =>
      Effect.flatMap(WebhooksConfig, (config) => checkWebhookTarget(url, config.urlRules)).pipe(
        Effect.mapError((reason) => new ValidationFailed({ field: "url", detail: reason.replace(/^url /, "") })),
        Effect.asVoid,
      )

    const checkEvents = (events: ReadonlyArray<string>) => {
      const checked = checkEventTypes(events)
      return Either.isLeft(checked) ? Effect.fail(checked.left) : Effect.succeed(checked.right)
    }

    const totalOf = (account: Account, id: string) =>
      Effect.map(store.webhooks.listEndpoints(account.id), (all) => all.find((e) => e.endpoint.id === id)?.totalDeliveries ?? 0)

    const list = method("Webhooks.list")(function* (account: Account) {
      return yield* store.webhooks.listEndpoints(account.id)
    })

    const create = method("Webhooks.create")(function* (account: Account, input: CreateWebhookInput) {
      yield* checkWebhookPlan(account.plan)
      const events = yield* checkEvents(input.events)
      yield* checkUrl(input.url)
      const at = yield* now
      const secret = makeSecret(ids.token(24))
      const masterSecret = yield* accounts.secret
      const endpoint: WebhookEndpoint = {
        id: ids.make("webhook", at) as WebhookId,
        accountId: account.id,
        url: input.url,
        events,
        description: input.description ?? null,
        active: true,
        secretPrefix: displaySecret(secret),
        sealedSecret: sealSecret(masterSecret, secret),
        sealedPreviousSecret: null,
        previousSecretExpiresAt: null,
        failureSettings: defaultFailureSettings,
        streak: { consecutiveFailures: 0, notified: false },
        disabledReason: null,
        disabledAt: null,
        createdAt: at,
        updatedAt: at,
      }
      yield* store.transaction(Effect.gen(function* () {
        yield* store.accounts.lock(account.id)
        yield* checkEndpointRoom(account.plan, yield* store.webhooks.countEndpoints(account.id))
        yield* store.webhooks.insertEndpoint(endpoint)
      }))
      return { endpoint, secret }
    })

    const get = method("Webhooks.get")(function* (account: Account, id: string) {
      const endpoint = yield* find(account, id)
      const since = new Date((yield* Clock.currentTimeMillis) - day)
      const stats = yield* store.webhooks.attemptStats(account.id, endpoint.id, since)
      return { endpoint, totalDeliveries: yield* totalOf(account, id), stats: { ...stats, successRate: successRate(stats) } }
    })

    const update = method("Webhooks.update")(function* (account: Account, id: string, input: UpdateWebhookInput) {
      const current = yield* find(account, id)
      const events = input.events === undefined ? current.events : yield* checkEvents(input.events)
      if (input.url !== undefined) yield* checkUrl(input.url)
      const at = yield* now
      const reactivated = input.active === true && !current.active
      const next: WebhookEndpoint = {
        ...current,
        ...sentFields(input, ["url", "description", "active"]),
        events,
        // Enabling by hand starts a new streak and forgets why the endpoint was disabled.
        ...(reactivated ? { streak: { consecutiveFailures: 0, notified: false }, disabledReason: null, disabledAt: null } : {}),
        ...(input.active === false ? { disabledReason: null, disabledAt: at } : {}),
        updatedAt: at,
      }
      yield* store.webhooks.updateEndpoint(next)
      return { endpoint: next, totalDeliveries: yield* totalOf(account, id) }
    })

    const remove = method("Webhooks.remove")(function* (account: Account, id: string) {
      if (!(yield* store.webhooks.deleteEndpoint(account.id, id))) {
        return yield* Effect.fail(new WebhookNotFound({ resource: "webhook", id }))
      }
    })

    /** A new secret; the previous one keeps signing (X-Service-Signature-Previous) for one hour. */
    const rotate = method("Webhooks.rotate")(function* (account: Account, id: string) {
      const current = yield* find(account, id)
      const at = yield* now
      const secret = makeSecret(ids.token(24))
      const validUntil = new Date(at.getTime() + webhookLimits.previousSecretValidityMs)
      const masterSecret = yield* accounts.secret
      yield* store.webhooks.updateEndpoint({
        ...current,
        secretPrefix: displaySecret(secret),
        sealedSecret: sealSecret(masterSecret, secret),
        sealedPreviousSecret: current.sealedSecret,
        previousSecretExpiresAt: validUntil,
        updatedAt: at,
      })
      return { id: current.id, secret, previousSecretValidUntil: validUntil }
    })

    const newDelivery = (endpoint: WebhookEndpoint, kind: "test" | "retry", eventType: ReceivedEventType, details: Record<string, unknown>, at: Date) => {
      const id = ids.make("webhookDelivery", at) as DeliveryId
      const payload = JSON.stringify(webhookEnvelope({ id, type: eventType, recipient: null, details, occurredAt: at }))
      const delivery: WebhookDelivery = {
        id, accountId: endpoint.accountId, endpointId: endpoint.id, eventId: null, eventType, kind, payload,
        status: "pending", attempts: 0, lastStatusCode: null, lastError: null, createdAt: at, updatedAt: at, completedAt: null,
      }
      return delivery
    }

    /** Sends a sample event of `eventType` now, once, and records the attempt. Only for an active endpoint. */
    const test = method("Webhooks.test")(function* (account: Account, id: string, eventType: string | undefined) {
      const type = (yield* checkEvents([eventType ?? "email.delivered"]))[0]!
      const endpoint = yield* find(account, id)
      if (!endpoint.active) {
        return yield* Effect.fail(new ValidationFailed({ detail: `webhook ${id} is disabled; enable it before sending a test` }))
      }
      const at = yield* now
      const delivery = newDelivery(endpoint, "test", type, { test: true, description: `A test ${type} event from Mailroom` }, at)
      yield* store.webhooks.insertDelivery(delivery)
      const result = yield* attemptDelivery(account, endpoint, delivery, { masterSecret: yield* accounts.secret, final: true })
      const { attempt } = result
      return {
        success: attempt.succeeded,
        statusCode: attempt.statusCode ?? 0,
        responseTime: attempt.durationMs,
        deliveryId: delivery.id,
        message: attempt.succeeded
          ? `the endpoint answered ${attempt.statusCode}`
          : attempt.statusCode === null ? "the endpoint could not be reached" : `the endpoint answered ${attempt.statusCode}`,
        ...(attempt.succeeded ? {} : { errorMessage: attempt.error ?? "delivery failed" }),
      } satisfies TestResult
    })

    const updateFailureSettings = method("Webhooks.updateFailureSettings")(
      function* (account: Account, id: string, input: FailureSettingsInput) {
        const current = yield* find(account, id)
        const failureSettings = { ...current.failureSettings, ...sentFields(input, ["enabled", "notifyEmails", "failureThreshold", "autoDisableAfter"]) }
        const next = { ...current, failureSettings, updatedAt: yield* now }
        yield* store.webhooks.updateEndpoint(next)
        return next
      },
    )

    /** The badge of the spec's rule over the last 24 hours of attempts and the current streak. */
    const health = method("Webhooks.health")(function* (account: Account, id: string) {
      const endpoint = yield* find(account, id)
      const since = new Date((yield* Clock.currentTimeMillis) - day)
      const stats = yield* store.webhooks.attemptStats(account.id, endpoint.id, since)
      return {
        endpoint,
        badge: healthBadge(stats, endpoint.streak.consecutiveFailures),
        ...stats,
        successRate: successRate(stats),
      } satisfies EndpointHealth
    })

    const deliveries = method("Webhooks.deliveries")(function* (account: Account, id: string, query: DeliveryQuery) {
      const endpoint = yield* find(account, id)
      return yield* store.webhooks.listDeliveries(account.id, endpoint.id, query)
    })

    const findDelivery = (account: Account, endpoint: WebhookEndpoint, deliveryId: string) =>
      store.webhooks.findDelivery(account.id, deliveryId).pipe(Effect.flatMap((found) =>
        Option.isSome(found) && found.value.endpointId === endpoint.id
          ? Effect.succeed(found.value)
          : Effect.fail(new WebhookNotFound({ resource: "delivery", id: deliveryId }))))

    const delivery = method("Webhooks.delivery")(function* (account: Account, id: string, deliveryId: string) {
      const endpoint = yield* find(account, id)
      const found = yield* findDelivery(account, endpoint, deliveryId)
      return { delivery: found, attempts: yield* store.webhooks.listAttempts(account.id, found.id) }
    })

    /** A manual retry of a failed delivery: the endpoint receives a webhook.retry event whose details name the original
     *  delivery and carry its body. The retry is a delivery of its own, with its own retries. */
    const retryDelivery = method("Webhooks.retryDelivery")(function* (account: Account, id: string, deliveryId: string) {
      const endpoint = yield* find(account, id)
      const original = yield* findDelivery(account, endpoint, deliveryId)
      if (original.status !== "failed") {
        return yield* Effect.fail(new ValidationFailed({
          detail: `delivery ${deliveryId} is ${original.status}; only a failed delivery can be retried`,
        }))
      }
      const at = yield* now
      const retry = newDelivery(endpoint, "retry", retryEventType, {
        originalDeliveryId: original.id,
        originalEventId: original.eventId,
        originalEventType: original.eventType,
        original: JSON.parse(original.payload) as unknown,
      }, at)
      yield* store.webhooks.insertDelivery(retry)
      yield* enqueueDeliveries([retry])
      return retry
    })

    return {
      list, create, get, update, remove, rotate, test, updateFailureSettings, health, deliveries, delivery, retryDelivery,
    } as const
  }),
}) {}

