/** Webhook work on the JobQueue, one lane with one port call per step: the relay hands committed outbox events to the
 *  webhooks consumer, which fans them out to deliveries (Store) and enqueues one `webhook.deliver` job per batch of
 *  deliveries of one endpoint (JobQueue), in the relay's transaction; each run of that job loads its deliveries (one
 *  read), makes one attempt of each (HttpTransport, a bounded number at once), records them (one write), and queues
 *  each one that failed with attempts left as a `webhook.deliver` job of its own (keyed by delivery and attempt), to run
 *  after the spec's next delay (30 s, 2 min, 15 min, 1 h, 4 h), in the same transaction as the record. The sixth failure marks a delivery failed. The
 *  first attempt and the retries are the same job and the same code. Plus failure notices and the daily 90-day purge
 *  of attempts. Spec: "Delivery and retry". */
import { Clock, Duration, Effect, Option, Schema } from "effect"
import type { AccountId } from "../domain/account.js"
import type { DomainEvent } from "../domain/event.js"
import { afterAttempt, type StreakDecision, type WebhookDelivery, type WebhookEndpoint, webhookEnvelope, webhookLimits, webhookRetryPolicy } from "../domain/webhook.js"
import { defineJob, JobQueue } from "../ports/job-queue.js"
import { Mailer } from "../ports/mailer.js"
import { Store } from "../ports/store.js"
import type { EventConsumer } from "./background.js"
import { Accounts } from "./accounts.js"
import { attemptTools, type MadeAttempt, makeAttemptWith, maxAttempts } from "./webhook-sender.js"
import { defaultDeliveryConcurrency, WebhooksConfig } from "./webhook-target.js"

/** The deliveries of one endpoint a `webhook.deliver` job carries at most: enough that a run's claim, read, record and
 *  completion are shared by many POSTs (those, not the POSTs, are what a run costs against a fast receiver). */
export const webhookJobBatch = 200

/** How long a run keeps starting attempts. A slow receiver (each POST may take the 10-second delivery timeout) would
 *  otherwise keep a run of webhookJobBatch deliveries past the job's timeout: the attempts not started by then are
 *  queued again, as a job of their own for the same attempt, with the record, so that every run ends well inside its
 *  one-minute timeout (the budget, plus the last POSTs' 10 seconds, plus the record). */
export const webhookRunBudgetMs = 20_000

/** Attempts of some deliveries of one endpoint, all making the same attempt number (1 for the first; a retry job
 *  carries one delivery, which failed attempt n - 1, keyed by it and its attempt). A run that fails or dies (a store error, a crash,
 *  the timeout) is run again by the queue: deliveries the run recorded already have moved past `attempt` and are
 *  skipped, so a run again POSTs only what was not recorded (at least once). The receivers' failures never fail a
 *  run: their retries are new jobs, queued with the record. */
export const webhookDeliveryJob = defineJob(
  "webhook.deliver",
  Schema.Struct({
    accountId: Schema.String,
    endpointId: Schema.String,
    attempt: Schema.Number,
    deliveryIds: Schema.Array(Schema.String),
  }),
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

/** A delivery to queue for its next attempt. */
type ToQueue = Pick<WebhookDelivery, "id" | "accountId" | "endpointId" | "attempts">

/** Queues the next attempt of each delivery, in one write of the queue (inside a Store transaction, in it: see
 *  JobQueue). By default grouped into jobs of one endpoint and one attempt number, at most webhookJobBatch deliveries
 *  each: the relay's first attempts. `keyed`: a job of its own per delivery, keyed by the delivery and its attempt
 *  (`deliveryJobKey`), so that the queue never holds two jobs of one delivery's attempt: retries, and deliveries queued
 *  again at start. Without a JobQueue nothing is queued: the deliveries stay pending until a worker starts and queues
 *  pending deliveries again. */
export const enqueueDeliveries = (deliveries: ReadonlyArray<ToQueue>, options: { readonly runAt?: Date; readonly keyed?: boolean } = {}) =>
  deliveries.length === 0 ? Effect.void : Effect.flatMap(Effect.serviceOption(JobQueue), Option.match({
    onNone: () => Effect.void,
    onSome: (queue) => {
      const runAt = options.runAt === undefined ? {} : { runAt: options.runAt }
      const jobOf = (batch: ReadonlyArray<ToQueue>) => {
        const first = batch[0]!
        return { accountId: first.accountId, endpointId: first.endpointId, attempt: first.attempts + 1, deliveryIds: batch.map((d) => d.id) }
      }
      if (options.keyed === true) {
        return queue.enqueueAll(webhookDeliveryJob, deliveries.map((delivery) => ({
          payload: jobOf([delivery]),
          options: { ...runAt, dedupeKey: deliveryJobKey(delivery) },
        }))).pipe(Effect.asVoid)
      }
      const groups = new Map<string, Array<ToQueue>>()
      for (const delivery of deliveries) {
        const key = `${delivery.accountId}\u0000${delivery.endpointId}\u0000${delivery.attempts}`
        const group = groups.get(key)
        if (group === undefined) groups.set(key, [delivery])
        else group.push(delivery)
      }
      const jobs = [...groups.values()].flatMap((group) =>
        Array.from({ length: Math.ceil(group.length / webhookJobBatch) }, (_, i) => ({
          payload: jobOf(group.slice(i * webhookJobBatch, (i + 1) * webhookJobBatch)),
          options: runAt,
        })))
      return queue.enqueueAll(webhookDeliveryJob, jobs).pipe(Effect.asVoid)
    },
  }))

/** The dedupe key of the job of one delivery's next attempt (see enqueueDeliveries). */
export const deliveryJobKey = (delivery: Pick<WebhookDelivery, "id" | "attempts">) => `${delivery.id}:${delivery.attempts + 1}`

/** How long a pending delivery never attempted waits, when the work starts, before its job is taken for lost. The
 *  relay's job of a delivery commits with it (JobQueue) and runs at once; a run cut short is run again by the queue
 *  (after the job's timeout and the engine's margin, two minutes at most): a delivery still not attempted this long
 *  after it was made has no job left (its endpoint was disabled when its job ran, say, or the queue gave the job up).
 *  Its first attempt's job holds no key (it carries many deliveries), so the time is what tells. */
export const requeueGrace = Duration.minutes(5)

/** Queues again, when the work starts, the pending deliveries of active endpoints that may have no job: every one
 *  already attempted (its retry's job holds its key: a delivery whose retry is still queued is left to it, so that a
 *  start never makes an attempt early nor twice), and those never attempted that were made more than `requeueGrace`
 *  ago. Each in a job of its own for its next attempt, now, keyed by the delivery and that attempt (enqueueDeliveries):
 *  two processes starting at once (or one started twice) never queue one delivery twice. Answers how many were
 *  offered to the queue. */
export const requeuePendingDeliveries = Effect.gen(function* () {
  const store = yield* Store
  const page = 500
  const madeBefore = (yield* Clock.currentTimeMillis) - Duration.toMillis(requeueGrace)
  let after: string | undefined
  let offered = 0
  while (true) {
    const pending = yield* store.webhooks.pendingDeliveries(after, page)
    const lost = pending.filter((delivery) => delivery.attempts > 0 || delivery.updatedAt.getTime() < madeBefore)
    yield* enqueueDeliveries(lost, { keyed: true })
    offered += lost.length
    if (pending.length < page) return offered
    after = pending.at(-1)!.id
  }
})

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

/** A failure notice to send: the streak decision that asked for it, on the endpoint as the record left it. */
interface Notice {
  readonly endpoint: WebhookEndpoint
  readonly decision: StreakDecision
  readonly error: string | null
}

/** The failure notice of a streak: one message to the endpoint's notify addresses, or the account owner. */
const sendNotice = ({ endpoint, decision, error }: Notice) =>
  Effect.gen(function* () {
    const store = yield* Store
    const mailer = yield* Mailer
    const config = yield* WebhooksConfig
    const account = yield* store.accounts.findById(endpoint.accountId)
    const owner = Option.flatMap(account, (a) => Option.fromNullable(a.ownerEmail))
    const recipients = endpoint.failureSettings.notifyEmails.length > 0
      ? endpoint.failureSettings.notifyEmails.slice(0, webhookLimits.notifyEmails)
      : Option.toArray(owner)
    if (recipients.length === 0) return
    const streak = decision.streak.consecutiveFailures
    const lines = [
      `Deliveries to your webhook endpoint ${endpoint.url} (${endpoint.id}) have failed ${streak} times in a row.`,
      `Last error: ${error ?? "unknown"}.`,
      decision.disable || !endpoint.active
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

/** Records the attempts a run made to `endpoint` (attempt number `attempt` of each delivery), and queues the
 *  deliveries that failed with attempts left, a job each, after the spec's delay for that attempt: one write, and, when
 *  an attempt failed, one transaction that locks the endpoint first, so that the failure streak counts the attempts
 *  of concurrent runs one after another (the record takes a key-share lock on the endpoint through its foreign key,
 *  and two runs that each held one while asking for the endpoint's lock would deadlock). The run's attempts count in
 *  the order they finished; the one that reaches autoDisableAfter disables the endpoint, and the streak stops there.
 *  A success leaves the streak at zero whatever it was, so a run whose attempts all succeeded locks nothing. The
 *  deliveries the run had no time to attempt (`notStarted`) are queued again for the same attempt, now. Answers the
 *  failure notices to send. */
const recordRun = (
  endpoint: WebhookEndpoint,
  made: ReadonlyArray<MadeAttempt & { readonly delivery: WebhookDelivery }>,
  notStarted: ReadonlyArray<WebhookDelivery>,
  attempt: number,
) =>
  Effect.gen(function* () {
    const store = yield* Store
    const final = attempt >= maxAttempts
    const records = made.map(({ attempt: a, finishedAt }) => ({
      attempt: a,
      outcome: { status: a.succeeded ? "succeeded" as const : final ? "failed" as const : "pending" as const, lastStatusCode: a.statusCode, lastError: a.error, at: finishedAt },
    }))
    const ref = { accountId: endpoint.accountId, endpointId: endpoint.id }
    const failed = made.filter((m) => !m.attempt.succeeded)
    if (failed.length === 0 && notStarted.length === 0) {
      yield* store.webhooks.recordAttempts(records, [{ ...ref, streak: afterAttempt(endpoint.failureSettings, endpoint.streak, true).streak }])
      return [] as ReadonlyArray<Notice>
    }
    return yield* store.transaction(Effect.gen(function* () {
      const now = (yield* store.webhooks.lockEndpoints([ref]))[0] ?? endpoint
      let streak = now.streak
      let disabledBy: StreakDecision | undefined
      const notices: Array<Omit<Notice, "endpoint">> = []
      for (const m of [...made].sort((a, b) => a.finishedAt.getTime() - b.finishedAt.getTime())) {
        const decision = afterAttempt(now.failureSettings, streak, m.attempt.succeeded)
        streak = decision.streak
        if (decision.notify) notices.push({ decision, error: m.attempt.error })
        if (decision.disable) {
          disabledBy = decision
          break
        }
      }
      const at = new Date(yield* Clock.currentTimeMillis)
      yield* store.webhooks.recordAttempts(records, [{ ...ref, streak }])
      let updated: WebhookEndpoint = { ...now, streak }
      if (disabledBy !== undefined && now.active) {
        updated = {
          ...updated,
          active: false,
          disabledReason: `disabled automatically after ${streak.consecutiveFailures} consecutive failed deliveries`,
          disabledAt: at,
          updatedAt: at,
        }
        yield* store.webhooks.updateEndpoint(updated)
      }
      // A disabled endpoint's deliveries stay pending, queued again when the work starts once it is enabled.
      if (updated.active) yield* enqueueDeliveries(notStarted)
      if (!final && updated.active && failed.length > 0) {
        const delay = Duration.toMillis(Duration.decode(webhookRetryPolicy.delays[attempt - 1]!))
        yield* enqueueDeliveries(failed.map((m) => ({ ...m.delivery, attempts: attempt })), { runAt: new Date(at.getTime() + delay), keyed: true })
      }
      return notices.map((notice) => ({ ...notice, endpoint: updated }))
    }))
  })

/** `task` of each item, at most `lanes` at once, answered in the items' order: `lanes` fibers, each taking the next item
 *  once done with its last, rather than Effect.forEach's fiber per item (measured at about twice the runtime's cost per
 *  item, and a run makes up to webhookJobBatch attempts). */
const inLanes = <A, B, R>(items: ReadonlyArray<A>, lanes: number, task: (item: A) => Effect.Effect<B, never, R>) =>
  Effect.suspend(() => {
    const results = new Array<B>(items.length)
    let next = 0
    const lane: Effect.Effect<void, never, R> = Effect.suspend(() => {
      if (next >= items.length) return Effect.void
      const index = next++
      return Effect.flatMap(task(items[index]!), (result) => {
        results[index] = result
        return lane
      })
    })
    return Effect.as(
      Effect.all(Array.from({ length: Math.min(lanes, items.length) }, () => lane), { concurrency: "unbounded", discard: true }),
      results as ReadonlyArray<B>,
    )
  })

/** The handler of webhookDeliveryJob: loads the job's deliveries with their endpoint (one read), makes one attempt of
 *  each (deliveryConcurrency at a time, for webhookRunBudgetMs at most), records them and queues the failed ones' next attempt (recordRun), then sends
 *  the failure notices the record asked for. A delivery that is gone (endpoint deleted), no longer pending, already
 *  past this attempt (recorded by an earlier run of this job that died), or whose endpoint was disabled is left
 *  alone. */
export const runDeliveryJob = (payload: typeof webhookDeliveryJob.payload.Type) =>
  Effect.gen(function* () {
    const accountId = payload.accountId as AccountId
    const store = yield* Store
    const found = yield* store.webhooks.findDeliveriesWithEndpoints(payload.deliveryIds.map((deliveryId) => ({ accountId, deliveryId })))
    const due = found.filter(({ delivery, endpoint }) =>
      delivery.status === "pending" && endpoint.active && endpoint.id === payload.endpointId && delivery.attempts === payload.attempt - 1)
    if (due.length === 0) return
    const endpoint = due[0]!.endpoint
    const tools = yield* attemptTools({ masterSecret: yield* (yield* Accounts).secret })
    const config = yield* WebhooksConfig
    const startedAt = tools.clock.unsafeCurrentTimeMillis()
    const account = { id: accountId }
    const attemptInBudget = (delivery: WebhookDelivery): Effect.Effect<Option.Option<MadeAttempt>> =>
      Effect.suspend(() =>
        tools.clock.unsafeCurrentTimeMillis() - startedAt >= webhookRunBudgetMs
          ? Effect.succeedNone
          : Effect.asSome(makeAttemptWith(tools, account, endpoint, delivery)))
    const outcomes = yield* inLanes(
      due,
      Math.max(1, Math.floor(config.deliveryConcurrency ?? defaultDeliveryConcurrency)),
      ({ delivery }) => Effect.map(attemptInBudget(delivery), (attempt) => ({ delivery, attempt })),
    )
    const made = outcomes.flatMap(({ delivery, attempt }) => Option.isSome(attempt) ? [{ ...attempt.value, delivery }] : [])
    const notStarted = outcomes.flatMap(({ delivery, attempt }) => Option.isNone(attempt) ? [delivery] : [])
    const notices = yield* recordRun(endpoint, made, notStarted, payload.attempt)
    yield* Effect.forEach(notices, sendNotice, { discard: true })
  })

/** Deletes attempts older than the 90 days of history. */
export const purgeWebhookHistory = Effect.gen(function* () {
  const store = yield* Store
  const now = yield* Clock.currentTimeMillis
  return yield* store.webhooks.purgeAttempts(new Date(now - webhookLimits.historyDays * 24 * 60 * 60 * 1000))
})
