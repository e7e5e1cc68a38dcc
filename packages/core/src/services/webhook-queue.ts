/** Webhook work on the JobQueue: fan-out of committed outbox events to deliveries, the delivery job (one attempt per
 *  run, retried by the queue after 30 s, 2 min, 15 min, 1 h and 4 h), failure notices, and the 90-day purge of
 *  attempts. Spec: "Delivery and retry". */
import { Clock, Duration, Effect, Option, Schedule, Schema } from "effect"
import type { AccountId } from "../domain/account.js"
import type { DomainEvent } from "../domain/event.js"
import {
  type WebhookDelivery, webhookEnvelope, type WebhookEndpoint, webhookLimits, webhookRetryPolicy,
} from "../domain/webhook.js"
import type { StoreError } from "../errors.js"
import { defineJob, JobQueue, type JobRun } from "../ports/job-queue.js"
import { Mailer } from "../ports/mailer.js"
import { Store } from "../ports/store.js"
import { Accounts } from "./accounts.js"
import { type AttemptResult, attemptDelivery, maxAttempts, type PendingRecord, type RecordedAttempt } from "./webhook-sender.js"
import { WebhooksConfig } from "./webhook-target.js"

/** One delivery to attempt. The queue retries a failed run on the spec's schedule and gives up after five retries.
 *  A run is one attempt (at most 10 seconds of HTTP, plus the URL check and the record), so it times out after a
 *  minute: a run whose process died is retried that soon (plus the engine's margin). */
export const webhookDeliveryJob = defineJob(
  "webhook.deliver",
  Schema.Struct({ accountId: Schema.String, deliveryId: Schema.String }),
  { retry: webhookRetryPolicy, timeout: Duration.minutes(1) },
)

/** Deletes attempts older than 90 days. Runs daily: `schedulePurge` queues today's run when the work starts, and each
 *  run queues the next day's. */
export const webhookPurgeJob = defineJob("webhook.purge", Schema.Struct({}), { retry: { delays: [Duration.minutes(5)] } })

const dayMs = 24 * 60 * 60 * 1000

/** Queues today's purge (to run now) or tomorrow's (at the start of the day, UTC). One run waits per day whatever the
 *  number of processes (the day is the dedupe key). */
export const schedulePurge = (which: "today" | "tomorrow") =>
  Effect.gen(function* () {
    const queue = yield* JobQueue
    const now = yield* Clock.currentTimeMillis
    const day = Math.floor(now / dayMs) + (which === "today" ? 0 : 1)
    yield* queue.enqueue(webhookPurgeJob, {}, {
      dedupeKey: `day-${day}`,
      ...(which === "today" ? {} : { runAt: new Date(day * dayMs) }),
    })
  })

/** Queues every pending delivery of an active endpoint again (those already queued are left alone: the job's dedupe
 *  key is the delivery's id). Run when the work starts, for deliveries whose job a previous process lost (the memory
 *  queue keeps nothing, say). A delivery queued again starts its engine's retry schedule over, but never makes more
 *  than the spec's six attempts. Answers how many were offered to the queue. */
export const requeuePendingDeliveries = Effect.gen(function* () {
  const store = yield* Store
  const page = 500
  let after: string | undefined
  let offered = 0
  while (true) {
    const pending = yield* store.webhooks.pendingDeliveries(after, page)
    yield* enqueueDeliveries(pending)
    offered += pending.length
    if (pending.length < page) return offered
    after = pending.at(-1)!.id
  }
})

/** A delivery attempt failed and the queue should run it again (or give up, on the last attempt). */
export class DeliveryAttemptFailed extends Schema.TaggedError<DeliveryAttemptFailed>()("DeliveryAttemptFailed", {
  deliveryId: Schema.String,
  detail: Schema.String,
}) {}

/** Enqueues the delivery when a JobQueue is configured (keyed by the delivery's id, so it is never queued twice at
 *  once); without one it stays pending until a worker starts and resumes pending deliveries. */
export const enqueueDelivery = (delivery: Pick<WebhookDelivery, "id" | "accountId">, runAt?: Date) =>
  Effect.flatMap(Effect.serviceOption(JobQueue), Option.match({
    onNone: () => Effect.void,
    onSome: (queue) =>
      queue.enqueue(webhookDeliveryJob, { accountId: delivery.accountId, deliveryId: delivery.id }, {
        dedupeKey: delivery.id,
        ...(runAt === undefined ? {} : { runAt }),
      }).pipe(Effect.asVoid),
  }))

/** Enqueues the jobs of several deliveries in one write of the queue (see enqueueDelivery). */
export const enqueueDeliveries = (deliveries: ReadonlyArray<Pick<WebhookDelivery, "id" | "accountId">>) =>
  deliveries.length === 0 ? Effect.void : Effect.flatMap(Effect.serviceOption(JobQueue), Option.match({
    onNone: () => Effect.void,
    onSome: (queue) =>
      queue.enqueueAll(webhookDeliveryJob, deliveries.map((delivery) => ({
        payload: { accountId: delivery.accountId, deliveryId: delivery.id },
        options: { dedupeKey: delivery.id },
      }))).pipe(Effect.asVoid),
  }))

/** One delivery per (event, active endpoint subscribed to its type), without queueing them. Safe to run again with
 *  the same events (after a crash, say): no pair gets a second delivery. */
export const makeDeliveries = (events: ReadonlyArray<DomainEvent>) =>
  Effect.gen(function* () {
    if (events.length === 0) return []
    const store = yield* Store
    const at = new Date(yield* Clock.currentTimeMillis)
    return yield* store.webhooks.fanOut(events.map((event) => ({
      id: event.id,
      accountId: event.accountId,
      type: event.type,
      payload: JSON.stringify(webhookEnvelope(event)),
    })), at)
  })

/** Fan-out and one job per delivery made. The outbox consumer queues only once its transaction committed (see
 *  `webhookConsumer`): a job queued on pg-boss may run before an uncommitted delivery can be read. */
export const fanOutEvents = (events: ReadonlyArray<DomainEvent>) => Effect.tap(makeDeliveries(events), enqueueDeliveries)

/** The outbox consumer of webhooks: each batch makes its deliveries in the relay's transaction, and their jobs are
 *  queued once it committed (tried again for a while when the queue fails; a delivery left without a job is queued
 *  again when the work next starts). */
export const webhookConsumer = () => {
  let made: ReadonlyArray<Pick<WebhookDelivery, "id" | "accountId">> = []
  return {
    name: "webhooks",
    handle: (events: ReadonlyArray<DomainEvent>) =>
      Effect.map(makeDeliveries(events), (deliveries) => { made = deliveries }),
    // Takes the batch's deliveries when called (the relay may handle its next batch while the jobs are queued).
    committed: () => {
      const queued = made
      made = []
      return enqueueDeliveries(queued).pipe(
        Effect.retry(Schedule.exponential("250 millis").pipe(Schedule.intersect(Schedule.recurs(6)))),
        Effect.catchAll((error) => Effect.logError("webhooks: deliveries not queued; they are queued again at the next start", error)),
      )
    },
  }
}

/** The failure notice of a streak: one message to the endpoint's notify addresses, or the account owner. */
const sendNotice = (result: AttemptResult) =>
  Effect.gen(function* () {
    const store = yield* Store
    const mailer = yield* Mailer
    const config = yield* WebhooksConfig
    const { endpoint, attempt } = result
    const account = yield* store.accounts.findById(endpoint.accountId)
    const owner = Option.flatMap(account, (a) => Option.fromNullable(a.ownerEmail))
    const recipients = endpoint.failureSettings.notifyEmails.length > 0
      ? endpoint.failureSettings.notifyEmails.slice(0, webhookLimits.notifyEmails)
      : Option.toArray(owner)
    if (recipients.length === 0) return
    const streak = result.decision.streak.consecutiveFailures
    const lines = [
      `Deliveries to your webhook endpoint ${endpoint.url} (${endpoint.id}) have failed ${streak} times in a row.`,
      `Last error: ${attempt.error ?? "unknown"}.`,
      result.decision.disable || !endpoint.active
        ? `The endpoint has been disabled: ${endpoint.disabledReason ?? "too many failures"}. Enable it with PATCH /v1/webhooks/${endpoint.id} once the receiver works again.`
        : "Mailroom keeps retrying each delivery on its schedule. You get one notice per failure streak.",
    ]
    yield* mailer.send({
      envelopeFrom: config.notificationFrom ?? defaultNotificationFrom,
      envelopeTo: recipients,
      from: { email: config.notificationFrom ?? defaultNotificationFrom, name: "Mailroom webhooks" },
      to: recipients.map((email) => ({ email })),
      subject: `Webhook deliveries to ${new URL(endpoint.url).host} are failing`,
      text: lines.join("\n\n"),
    })
  }).pipe(
    // A notice that cannot be sent is logged, never retried with the delivery (which would POST again).
    Effect.catchAll((error) => Effect.logWarning("webhook failure notice not sent", error)),
  )

export const defaultNotificationFrom = "webhooks@mailroom.localhost"

/** A delivery with its endpoint, as the delivery job reads them. */
export type DeliveryPair = readonly [WebhookDelivery, WebhookEndpoint]

/** Reads the deliveries named, each with its endpoint, in one query; answers in the order given (none for a delivery
 *  that is gone). Runs that start together share one read through a group loader (see `Webhooks`). */
export const loadDeliveryPairs = (refs: ReadonlyArray<{ readonly accountId: string; readonly deliveryId: string }>) =>
  Effect.gen(function* () {
    const store = yield* Store
    const found = yield* store.webhooks.findDeliveriesWithEndpoints(refs.map((ref) => ({ accountId: ref.accountId as AccountId, deliveryId: ref.deliveryId })))
    const byId = new Map(found.map(({ delivery, endpoint }) => [delivery.id as string, [delivery, endpoint] as const]))
    return refs.map((ref) => Option.fromNullable(byId.get(ref.deliveryId)))
  })

const loadOne = (ref: { readonly accountId: string; readonly deliveryId: string }) =>
  Effect.map(loadDeliveryPairs([ref]), (pairs) => pairs[0]!)

/** The handler of webhookDeliveryJob: one attempt. A delivery that is gone (endpoint deleted), no longer pending, or
 *  whose endpoint was disabled is left alone. A failed attempt fails the run, so that the queue retries it, unless it
 *  was the last one, which marks the delivery failed. */
export const runDeliveryJob = (
  payload: { readonly accountId: string; readonly deliveryId: string },
  run: JobRun,
  grouped: {
    /** How the attempt is recorded (see recordAttempts); alone by default. */
    readonly record?: (pending: PendingRecord) => Effect.Effect<RecordedAttempt, StoreError, Store>
    /** How the delivery and its endpoint are read (see loadDeliveryPairs); alone by default. */
    readonly load?: (ref: { readonly accountId: string; readonly deliveryId: string }) => Effect.Effect<Option.Option<DeliveryPair>, StoreError, Store>
  } = {},
) =>
  Effect.gen(function* () {
    const accountId = payload.accountId as AccountId
    const { record } = grouped
    const pair = yield* (grouped.load ?? loadOne)(payload)
    if (Option.isNone(pair)) return
    const [delivery, endpoint] = pair.value
    if (delivery.status !== "pending") return
    if (!endpoint.active) return
    const accounts = yield* Accounts
    const final = run.lastAttempt || delivery.attempts + 1 >= maxAttempts
    const result = yield* attemptDelivery({ id: accountId }, endpoint, delivery, {
      masterSecret: yield* accounts.secret,
      final,
      ...(record === undefined ? {} : { record }),
    })
    if (result.decision.notify) yield* sendNotice(result)
    if (!result.attempt.succeeded && !final) {
      return yield* Effect.fail(new DeliveryAttemptFailed({ deliveryId: delivery.id, detail: result.attempt.error ?? "failed" }))
    }
  })

/** Deletes attempts older than the 90 days of history. */
export const purgeWebhookHistory = Effect.gen(function* () {
  const store = yield* Store
  const now = yield* Clock.currentTimeMillis
  return yield* store.webhooks.purgeAttempts(new Date(now - webhookLimits.historyDays * 24 * 60 * 60 * 1000))
})
