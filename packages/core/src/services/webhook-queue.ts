/** Webhook work on the JobQueue: fan-out of committed outbox events to deliveries, the first attempts of the
 *  deliveries that arrive together made by one job run, the retry job (one attempt per run, retried by the queue on the
 *  rest of the schedule: the five retries come after 30 s, 2 min, 15 min, 1 h and 4 h), failure notices, and the 90-day
 *  purge of attempts. Spec: "Delivery and retry". */
import { Clock, Duration, Effect, Either, Fiber, Option, Schema } from "effect"
import type { AccountId } from "../domain/account.js"
import type { DomainEvent } from "../domain/event.js"
import {
  type WebhookDelivery, webhookEnvelope, type WebhookEndpoint, webhookLimits, webhookRetryPolicy,
} from "../domain/webhook.js"
import type { StoreError } from "../errors.js"
import { makeWakeSignal } from "../internal/wake-signal.js"
import {
  defineJob, type EnqueueOptions, type JobDefinition, JobQueue, type JobQueueService, type JobRun,
} from "../ports/job-queue.js"
import { HttpTransport, type PostOutcome } from "../ports/http-transport.js"
import { Ids } from "../ports/ids.js"
import { Mailer } from "../ports/mailer.js"
import { Store } from "../ports/store.js"
import type { EventConsumer } from "./background.js"
import { Accounts } from "./accounts.js"
import {
  type AttemptResult, attemptDelivery, attemptResult, type AttemptTarget, attemptTarget, finishAttempt, type MadeAttempt,
  maxAttempts, type PendingRecord, pendingRecord, type RecordedAttempt, recordAttempts, type StartedAttempt, startAttempt,
} from "./webhook-sender.js"
import { WebhooksConfig } from "./webhook-target.js"

/** Most deliveries one run of webhookFirstAttemptsJob attempts; the webhooks consumer takes as many events per batch,
 *  so that a batch's deliveries to one account are one run (or a few, when its events fan out to several endpoints).
 *  A run and a batch have costs of their own (a transaction, an enqueue, a claim, a completion): 300 measured faster
 *  than 100, and a run records its attempts in parts of 100 (`firstAttemptsRecordedPer`) as they finish. */
export const firstAttemptsPerRun = 300

/** A run of webhookFirstAttemptsJob records its attempts in parts as they finish, each part once this many are
 *  finished (and the rest at the end), while its other POSTs go on: a run records early whatever its size, and a
 *  process that dies in the middle of a run leaves at most a part's worth of POSTs (and those in flight) made and not
 *  recorded, to be made again. */
export const firstAttemptsRecordedPer = 100

/** Once a run of webhookFirstAttemptsJob has started its last POST, how long the attempts finished wait for the POSTs
 *  still under way (at most the run's concurrency) before they are recorded: answers that come within it are recorded
 *  with them, in one transaction, and a slow receiver holds the others back no longer than this. */
export const lastAnswersGrace = Duration.seconds(1)

/** A run of webhookFirstAttemptsJob starts no POST after this long: the deliveries it has not reached (behind a slow
 *  receiver, say) are queued as a run of their own, so that a run ends well within the job's timeout and within the
 *  default shutdown grace (30 seconds). */
const firstAttemptsBudget = Duration.seconds(15)

/** The first attempts of up to `firstAttemptsPerRun` deliveries of one account, made together: the POSTs at once (up to
 *  the delivery concurrency), the attempts recorded in parts as they finish (`firstAttemptsRecordedPer`, one
 *  transaction each); a delivery whose first attempt failed goes to webhookDeliveryJob, due 30 seconds later. A run
 *  that fails (the database is down) or is cut short (its process died) is retried, 30 seconds later; it attempts again
 *  only the deliveries still without an attempt. A run the relay enqueues has no dedupe key: it commits once, with its
 *  deliveries; any other run's is its first delivery's id. */
export const webhookFirstAttemptsJob = defineJob(
  "webhook.first-attempts",
  Schema.Struct({ accountId: Schema.String, deliveryIds: Schema.Array(Schema.String) }),
  { retry: webhookRetryPolicy, timeout: Duration.minutes(1) },
)

/** The wait between a failed first attempt and the second. */
const firstRetryDelay = Duration.decode(webhookRetryPolicy.delays[0]!)

/** The retries of one delivery whose first attempt failed: one attempt per run, queued due after the first delay (30
 *  s), and retried by the queue after the rest of the schedule (2 min, 15 min, 1 h, 4 h); the last failure marks the
 *  delivery failed. A run is one attempt (at most 10 seconds of HTTP, plus the URL check and the record), so it times
 *  out after a minute: a run whose process died is retried that soon (plus the engine's margin). The dedupe key is
 *  the delivery's id. */
export const webhookDeliveryJob = defineJob(
  "webhook.deliver",
  Schema.Struct({ accountId: Schema.String, deliveryId: Schema.String }),
  { retry: { delays: webhookRetryPolicy.delays.slice(1) }, timeout: Duration.minutes(1) },
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

/** How long a first attempt queued again at start waits: longer than a first-attempts run of a previous process can
 *  still be running or waiting for its retry (its timeout, the engine's margin and maintenance, the retry delay), so
 *  that two runs never attempt the same delivery at once; by then that run has attempted it, and the run queued here
 *  finds it attempted. */
export const requeuedFirstAttemptsDelay = Duration.minutes(5)

/** Queues every pending delivery of an active endpoint again. Run when the work starts, for deliveries whose job a
 *  previous process lost (the memory queue keeps nothing, say). A delivery attempted before gets its retry job now
 *  (dedupe key: the delivery's id, so one already queued is left alone); a delivery queued again starts its retry
 *  schedule over, but never makes more than the spec's six attempts. A delivery not yet attempted gets a
 *  first-attempts run due after `requeuedFirstAttemptsDelay`: the run that the relay queued for it may still be
 *  queued (grouped otherwise), and a run finds the deliveries another run attempted, and hands them on. Answers how
 *  many were offered to the queue. */
export const requeuePendingDeliveries = Effect.gen(function* () {
  const store = yield* Store
  const page = 500
  let after: string | undefined
  let offered = 0
  while (true) {
    const pending = yield* store.webhooks.pendingDeliveries(after, page)
    const now = yield* Clock.currentTimeMillis
    yield* enqueueRetries(pending.filter((delivery) => delivery.attempts > 0).map((delivery) => ({ delivery, runAt: new Date(now) })))
    yield* enqueueDeliveries(pending.filter((delivery) => delivery.attempts === 0), new Date(now + Duration.toMillis(requeuedFirstAttemptsDelay)))
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

/** The deliveries' first-attempts runs: in the order given, by account, up to `firstAttemptsPerRun` per run. A run
 *  due now is keyed by its first delivery's id unless `keyed` is false (runs enqueued with their deliveries, in the
 *  same transaction, are made once). */
const firstAttemptRuns = (deliveries: ReadonlyArray<Pick<WebhookDelivery, "id" | "accountId">>, runAt: Date | undefined, keyed = true) => {
  const byAccount = new Map<string, Array<string>>()
  for (const delivery of deliveries) {
    const ids = byAccount.get(delivery.accountId)
    if (ids === undefined) byAccount.set(delivery.accountId, [delivery.id])
    else ids.push(delivery.id)
  }
  return [...byAccount].flatMap(([accountId, ids]) =>
    Array.from({ length: Math.ceil(ids.length / firstAttemptsPerRun) }, (_, i) => {
      const deliveryIds = ids.slice(i * firstAttemptsPerRun, (i + 1) * firstAttemptsPerRun)
      // A run queued for later has a key of its own: it must never take the place of a run due now.
      const options: EnqueueOptions = runAt !== undefined ? { dedupeKey: `later:${deliveryIds[0]!}`, runAt } : keyed ? { dedupeKey: deliveryIds[0]! } : {}
      return { payload: { accountId, deliveryIds }, options }
    }))
}

/** Queues the first attempts of deliveries, in one write of the queue: one webhookFirstAttemptsJob per account and up
 *  to `firstAttemptsPerRun` deliveries, due now (keyed by the first delivery's id) or at `runAt` (keyed apart, so that
 *  a run queued for later never drops one due now). Without a JobQueue they stay pending until a worker starts and
 *  resumes pending deliveries. */
export const enqueueDeliveries = (deliveries: ReadonlyArray<Pick<WebhookDelivery, "id" | "accountId">>, runAt?: Date) =>
  enqueueWhenQueued(webhookFirstAttemptsJob, firstAttemptRuns(deliveries, runAt))

/** Queues one delivery's first attempt (a run of one): a manual retry, say. */
export const enqueueDelivery = (delivery: Pick<WebhookDelivery, "id" | "accountId">) => enqueueDeliveries([delivery], undefined)

/** Queues the retry jobs of deliveries already attempted, each due at its `runAt` (keyed by the delivery's id: one
 *  already queued is left alone). */
const enqueueRetries = (retries: ReadonlyArray<{ readonly delivery: Pick<WebhookDelivery, "id" | "accountId">; readonly runAt: Date }>) =>
  enqueueWhenQueued(webhookDeliveryJob, retries.map(({ delivery, runAt }) => ({
    payload: { accountId: delivery.accountId, deliveryId: delivery.id },
    options: { dedupeKey: delivery.id, runAt },
  })))

/** Queues `jobs` in one write when a JobQueue is provided; without one, nothing is queued (the deliveries stay pending
 *  until a worker starts and resumes pending deliveries). */
const enqueueWhenQueued = <A, I>(job: JobDefinition<A, I>, jobs: ReadonlyArray<{ readonly payload: A; readonly options?: EnqueueOptions }>) =>
  jobs.length === 0 ? Effect.void : withQueue(undefined, (queue) => queue.enqueueAll(job, jobs).pipe(Effect.asVoid))

/** `use` of the JobQueue when one is provided; `otherwise` without one. */
const withQueue = <A>(otherwise: A, use: (queue: JobQueueService) => Effect.Effect<A, StoreError>) =>
  Effect.flatMap(Effect.serviceOption(JobQueue), Option.match({ onNone: () => Effect.succeed(otherwise), onSome: use }))

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

/** Fan-out and the first-attempts runs of the deliveries made. */
export const fanOutEvents = (events: ReadonlyArray<DomainEvent>) => Effect.tap(makeDeliveries(events), enqueueDeliveries)

/** The outbox consumer of webhooks, in the relay's transaction: fan out (one delivery per event and subscribed
 *  endpoint, its body built by webhookEnvelope), then enqueue the first-attempts runs of the deliveries made. The
 *  queue joins the transaction (JobQueue), so that the deliveries and their jobs commit together or not at all: a
 *  process that dies at any point leaves no delivery without its job, and the jobs are claimed once the transaction
 *  committed. */
export const webhookConsumer: EventConsumer = {
  name: "webhooks",
  batchSize: firstAttemptsPerRun,
  handle: (events) =>
    Effect.flatMap(makeDeliveries(events), (made) => enqueueWhenQueued(webhookFirstAttemptsJob, firstAttemptRuns(made, undefined, false))),
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

/** Whether a delivery is still to be attempted: pending, to an endpoint that is active. */
const attemptable = ([delivery, endpoint]: DeliveryPair) => delivery.status === "pending" && endpoint.active

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
    if (!attemptable(pair.value)) return
    const [delivery, endpoint] = pair.value
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

/** The handler of webhookFirstAttemptsJob. Of the deliveries named, those gone (endpoint deleted), no longer pending or
 *  whose endpoint was disabled are left alone; those still without an attempt are attempted at once (each endpoint's
 *  URL checked again once for the run; at most `concurrency` POSTs in flight, through the transport's batch path;
 *  none started past the run's budget, nor to an endpoint whose failures in the run reached its autoDisableAfter). The
 *  attempts are recorded while the POSTs go on, in parts of `firstAttemptsRecordedPer` as they finish, those finished
 *  once the run's last POST has started and the POSTs under way answered or had `lastAnswersGrace` to, and the rest at
 *  the end, each part in one transaction (recordAttempts: streaks counted in order, one statement per table); then its
 *  failure notices go out and its failed deliveries are queued for their retries (due 30 seconds after the attempt).
 *  Those the budget left are queued as a run of their own. A delivery already attempted (by an earlier run of this job
 *  that failed after a record, or queued again at start) is handed to its retry job. Fails, to be run again, when a
 *  record or the queueing fails (the POSTs still under way are abandoned). */
export const runFirstAttempts = (
  payload: { readonly accountId: string; readonly deliveryIds: ReadonlyArray<string> },
  options: { readonly concurrency: number },
) =>
  Effect.gen(function* () {
    const accountId = payload.accountId as AccountId
    const started = yield* Clock.currentTimeMillis
    const pairs = yield* loadDeliveryPairs(payload.deliveryIds.map((deliveryId) => ({ accountId, deliveryId })))
    const live = pairs.flatMap((pair) => Option.isSome(pair) && attemptable(pair.value) ? [pair.value] : [])
    const unattempted = live.filter(([delivery]) => delivery.attempts === 0)
    const masterSecret = yield* (yield* Accounts).secret
    const ids = yield* Ids
    const clock = yield* Effect.clock
    // Once per endpoint for the run: its clear secrets, and its URL checked again (rules and DNS); every POST of the
    // run to that endpoint goes to the address checked here.
    const targets = new Map<string, AttemptTarget>()
    for (const [, endpoint] of unattempted) {
      if (!targets.has(endpoint.id)) targets.set(endpoint.id, yield* attemptTarget(masterSecret, endpoint, new Date(started)))
    }
    const budget = Duration.toMillis(firstAttemptsBudget)
    // Each endpoint's failure streak as this run's answers move it: once it reaches autoDisableAfter, the record will
    // disable the endpoint, and the run POSTs nothing more to it (its other deliveries go to a run of their own, which
    // finds the endpoint disabled).
    const streaks = new Map<string, number>()
    const streak = (endpoint: WebhookEndpoint) => streaks.get(endpoint.id) ?? endpoint.streak.consecutiveFailures
    const made: Array<MadeAttempt | undefined> = []
    // The attempts finished and not yet recorded (their places in `unattempted`); the recording is woken by a part's
    // worth of them, by the start of the run's last POST, and by the end of the POSTs.
    let finished: Array<number> = []
    let postsDone = false
    let allStarted = false
    const partReady = makeWakeSignal()
    /** No POST is left to start: what finished is recorded once the POSTs still under way (at most `concurrency`)
     *  answered, or within `lastAnswersGrace`, so that a slow answer holds the others back no longer than that. */
    const noneLeft = () => {
      if (!allStarted) {
        allStarted = true
        partReady.wake()
      }
      return undefined
    }
    const finish = (i: number, begun: StartedAttempt, outcome: PostOutcome | string) => {
      const [delivery, endpoint] = unattempted[i]!
      const one = finishAttempt({ id: accountId }, endpoint, delivery, begun, outcome, new Date(clock.unsafeCurrentTimeMillis()))
      made[i] = one
      streaks.set(endpoint.id, one.attempt.succeeded ? 0 : streak(endpoint) + 1)
      finished.push(i)
      if (finished.length >= firstAttemptsRecordedPer) partReady.wake()
    }
    // The POSTs in one batch of plain callbacks (no effect per POST): each is signed when its place comes, and none
    // starts past the budget or to an endpoint whose streak reached autoDisableAfter (those are left for a run of
    // their own). They go on while the attempts finished so far are recorded.
    let cursor = 0
    const posting = yield* Effect.fork(Effect.ensuring((yield* HttpTransport).postEach(options.concurrency, () => {
      while (cursor < unattempted.length) {
        const i = cursor++
        const [delivery, endpoint] = unattempted[i]!
        const now = clock.unsafeCurrentTimeMillis()
        if (now - started >= budget) {
          cursor = unattempted.length
          return noneLeft()
        }
        const { autoDisableAfter } = endpoint.failureSettings
        if (autoDisableAfter > 0 && streak(endpoint) >= autoDisableAfter) continue
        const one = startAttempt(ids, delivery, targets.get(endpoint.id)!, new Date(now))
        if (Either.isLeft(one.post)) {
          finish(i, one, one.post.left)
          continue
        }
        return { request: one.post.right, answered: (outcome) => finish(i, one, outcome) }
      }
      return noneLeft()
    }), Effect.sync(() => {
      postsDone = true
      partReady.wake()
    })))

    // Each part recorded in one transaction (recordAttempts), then its failure notices sent and its failed deliveries
    // queued for their retries (due 30 seconds after the attempt).
    let recordedAtLastStart = false
    const partDue = () => postsDone || finished.length >= firstAttemptsRecordedPer
    while (true) {
      // The wait is taken before looking: a wake while this looks is not missed.
      const woken = yield* partReady.next
      if (!partDue()) {
        if (allStarted && !recordedAtLastStart) {
          // The last POST has started: the POSTs under way get the grace to answer.
          yield* Effect.raceFirst(woken, Effect.sleep(lastAnswersGrace))
        } else {
          yield* woken
          // Woken by the start of the last POST: the grace starts with the next wait.
          if (!partDue()) continue
        }
      }
      if (allStarted) recordedAtLastStart = true
      const part = finished
      finished = []
      if (part.length > 0) {
        // A first attempt is never the last one (six are made).
        const attempted = part.map((i) => ({ delivery: unattempted[i]![0], pending: pendingRecord(unattempted[i]![1], made[i]!, false) }))
        const recorded = yield* recordAttempts(attempted.map(({ pending }) => pending))
        const results = attempted.map(({ delivery, pending }, k) => attemptResult(delivery, pending, recorded[k]!))
        for (const result of results) if (result.decision.notify) yield* sendNotice(result)
        yield* enqueueRetries(results.filter((result) => !result.attempt.succeeded).map((result) => ({
          delivery: result.delivery,
          runAt: new Date(result.delivery.updatedAt.getTime() + Duration.toMillis(firstRetryDelay)),
        })))
      }
      if (postsDone && finished.length === 0) break
    }
    // A callback that threw ends the run here.
    yield* Fiber.join(posting)

    // Attempted before this run: their retry job, now (one still queued keeps its time: its dedupe key drops this).
    yield* enqueueRetries(live.filter(([delivery]) => delivery.attempts > 0).map(([delivery]) => ({ delivery, runAt: new Date(started) })))
    // Those the budget or an endpoint's streak left: a run of their own.
    yield* enqueueDeliveries(unattempted.flatMap(([delivery], i) => made[i] === undefined ? [delivery] : []))
  })

/** Deletes attempts older than the 90 days of history. */
export const purgeWebhookHistory = Effect.gen(function* () {
  const store = yield* Store
  const now = yield* Clock.currentTimeMillis
  return yield* store.webhooks.purgeAttempts(new Date(now - webhookLimits.historyDays * 24 * 60 * 60 * 1000))
})
