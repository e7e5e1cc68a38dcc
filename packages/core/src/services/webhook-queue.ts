/** Webhook work on the JobQueue, one lane with one port call per step: the relay hands committed outbox events to the
 *  webhooks consumer, which fans them out to deliveries (Store) and enqueues one `webhook.deliver` job per delivery
 *  (JobQueue), in the relay's transaction; each run of that job makes one attempt of its delivery (HttpTransport) and
 *  records it (Store). A failed run is retried by the queue on the spec's schedule (30 s, 2 min, 15 min, 1 h, 4 h);
 *  the sixth failure marks the delivery failed. Plus failure notices and the daily 90-day purge of attempts. Spec:
 *  "Delivery and retry". */
import { Clock, Duration, Effect, Option, Schema } from "effect"
import type { AccountId } from "../domain/account.js"
import type { DomainEvent } from "../domain/event.js"
import { type WebhookDelivery, webhookEnvelope, webhookLimits, webhookRetryPolicy } from "../domain/webhook.js"
import { defineJob, JobQueue, type JobRun } from "../ports/job-queue.js"
import { Mailer } from "../ports/mailer.js"
import { Store } from "../ports/store.js"
import type { EventConsumer } from "./background.js"
import { Accounts } from "./accounts.js"
import { type AttemptResult, attemptDelivery, maxAttempts } from "./webhook-sender.js"
import { WebhooksConfig } from "./webhook-target.js"

/** The attempts of one delivery: one attempt per run, retried by the queue after each delay of the spec's schedule; a
 *  failure of the last run marks the delivery failed. A run is one attempt (at most 10 seconds of HTTP, plus the URL
 *  check and the record), so it times out after a minute: a run whose process died is retried that soon (plus the
 *  engine's margin). The dedupe key is the delivery's id: while its job is queued or running, no second one is. */
export const webhookDeliveryJob = defineJob(
  "webhook.deliver",
  Schema.Struct({ accountId: Schema.String, deliveryId: Schema.String }),
  { retry: webhookRetryPolicy, timeout: Duration.minutes(1) },
)

/** Events the webhooks consumer takes per batch: one fan-out statement and one enqueue of their jobs per batch. */
export const webhookRelayBatch = 300

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

/** Queues the delivery job of each delivery, in one write of the queue (inside a Store transaction, in it: see
 *  JobQueue). A delivery whose job is still queued or running keeps that one (the dedupe key is its id). Without a
 *  JobQueue nothing is queued: the deliveries stay pending until a worker starts and queues pending deliveries again. */
export const enqueueDeliveries = (deliveries: ReadonlyArray<Pick<WebhookDelivery, "id" | "accountId">>) =>
  deliveries.length === 0 ? Effect.void : Effect.flatMap(Effect.serviceOption(JobQueue), Option.match({
    onNone: () => Effect.void,
    onSome: (queue) => queue.enqueueAll(webhookDeliveryJob, deliveries.map((delivery) => ({
      payload: { accountId: delivery.accountId, deliveryId: delivery.id },
      options: { dedupeKey: delivery.id },
    }))).pipe(Effect.asVoid),
  }))

/** Queues every pending delivery of an active endpoint again. Run when the work starts, for deliveries whose job a
 *  previous process lost (the memory queue keeps nothing, say). A delivery whose job is still queued or running (on a
 *  shared queue, or left running by a process that died, which the engine runs again) keeps it. A delivery queued
 *  again starts its retry schedule over, but never makes more than the spec's six attempts. Answers how many were
 *  offered to the queue. */
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

/** Fans events out to deliveries: one per (event, active endpoint subscribed to its type), each body built by
 *  webhookEnvelope, in one Store call; then queues their jobs. Safe to run again with the same events (after a crash,
 *  say): no pair gets a second delivery. Answers the deliveries made. */
export const fanOutEvents = (events: ReadonlyArray<DomainEvent>) =>
  Effect.gen(function* () {
    if (events.length === 0) return []
    const store = yield* Store
    const at = new Date(yield* Clock.currentTimeMillis)
    const made = yield* store.webhooks.fanOut(events.map((event) => ({
      id: event.id,
      accountId: event.accountId,
      type: event.type,
      payload: JSON.stringify(webhookEnvelope(event)),
    })), at)
    yield* enqueueDeliveries(made)
    return made
  })

/** The outbox consumer of webhooks: fanOutEvents in the relay's transaction. The queue joins the transaction
 *  (JobQueue), so that the deliveries and their jobs commit together or not at all: a process that dies at any point
 *  leaves no delivery without its job, and the jobs are claimed once the transaction committed. */
export const webhookConsumer: EventConsumer = {
  name: "webhooks",
  batchSize: webhookRelayBatch,
  handle: (events) => Effect.asVoid(fanOutEvents(events)),
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

/** The handler of webhookDeliveryJob: one attempt of the delivery, recorded. A delivery that is gone (endpoint
 *  deleted), no longer pending, or whose endpoint was disabled is left alone. A failed attempt fails the run, so that
 *  the queue retries it, unless it was the last one, which marks the delivery failed. */
export const runDeliveryJob = (payload: { readonly accountId: string; readonly deliveryId: string }, run: JobRun) =>
  Effect.gen(function* () {
    const accountId = payload.accountId as AccountId
    const store = yield* Store
    const [found] = yield* store.webhooks.findDeliveriesWithEndpoints([{ accountId, deliveryId: payload.deliveryId }])
    if (found === undefined) return
    const { delivery, endpoint } = found
    if (delivery.status !== "pending" || !endpoint.active) return
    const accounts = yield* Accounts
    const final = run.lastAttempt || delivery.attempts + 1 >= maxAttempts
    const result = yield* attemptDelivery({ id: accountId }, endpoint, delivery, { masterSecret: yield* accounts.secret, final })
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
