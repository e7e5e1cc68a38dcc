/** The webhook delivery suite: fan-out of outbox events, the delivery job's attempts against a real receiver on
 *  127.0.0.1 (verified with `standardwebhooks`), the retry schedule's give-up rule, failure notices through the Mailer,
 *  auto-disable, URL checks on every delivery and the 90-day purge. The JobQueue is a recording double behind its
 *  port: the test runs each enqueued job itself, with the attempt number the queue would give it. */
import { describe, expect, it } from "@effect/vitest"
import {
  afterCommit, type Account, Accounts, deliveryIdFor, Dns, type DomainEvent, fanOutEvents, type HttpTransport, enqueueEach, IdsLive, JobQueue, type JobQueueService, type JobRun, maxAttempts,
  firstAttemptsRecordedPer, lastAnswersGrace, purgeWebhookHistory, recordAttempts, requeuePendingDeliveries, runDeliveryJob, runFirstAttempts, servicesLayer, Store, type Webhooks, WebhooksConfig, webhookDeliveryJob, webhookFirstAttemptsJob,
  type PendingRecord, type WebhookAttempt, type WebhookDelivery, webhookConsumer, webhookEnvelope, webhookRetryPolicy, Webhooks as WebhooksService,
} from "@mailroom/core"
import { Clock, Effect, Either, Fiber, Layer, Option, TestClock } from "effect"
import { Webhook } from "standardwebhooks"
import { makeCaptureMailer } from "./capture-mailer.js"
import { makeEvent, uniqueText } from "./fixtures.js"
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.js"
import { testTemplateEngine } from "./template-engine.js"

interface Enqueued {
  readonly name: string
  readonly payload: unknown
  readonly dedupeKey: string | undefined
  readonly runAt: Date | undefined
}

/** Whether a queued job is about the delivery `id` (a first-attempts run naming it, or its retry). */
const mentions = (job: Enqueued, id: string) => JSON.stringify(job.payload).includes(id)

/** Builds the layers of one scenario: services over `store`, relaxed URL rules, a recording queue and a capture mailer.
 *  `transport` is the HTTP transport layer (the real pinned undici one, from the backend package's test). */
export const webhookDeliverySuite = <E>(
  backend: string,
  storeLayer: Layer.Layer<Store, E>,
  transport: Layer.Layer<HttpTransport>,
) =>
  describe(`webhook delivery (${backend})`, () => {
    const enqueued: Array<Enqueued> = []
    const enqueue: JobQueueService["enqueue"] = (job, payload, options) =>
      Effect.sync(() => {
        enqueued.push({ name: job.name, payload, dedupeKey: options?.dedupeKey, runAt: options?.runAt })
        return `job_${enqueued.length}`
      })
    const queue = Layer.succeed(JobQueue, {
      enqueue,
      enqueueAll: enqueueEach(enqueue),
      work: () => Effect.die(new Error("not implemented")),
    })
    const mailer = makeCaptureMailer()
    // Fresh: layers of one test file share a memo map, and the services must sit over this suite's store.
    const layer = Layer.mergeAll(
      Layer.fresh(servicesLayer).pipe(Layer.provideMerge(Layer.mergeAll(storeLayer, IdsLive, testTemplateEngine))),
      queue,
      mailer.layer,
      transport,
      Layer.succeed(WebhooksConfig, { urlRules: { allowPrivate: true } }),
    )

    let receiver: WebhookReceiver | undefined
    const receiverOf = Effect.promise(async () => {
      receiver ??= await startWebhookReceiver()
      receiver.answer = () => ({ status: 200, body: "ok" })
      return receiver
    })

    const setup = (options: { readonly plan?: Account["plan"]; readonly ownerEmail?: string; readonly path?: string } = {}) =>
      Effect.gen(function* () {
        // Real time, so that receivers check the Standard Webhooks timestamp against their own clock.
        yield* TestClock.setTime(Date.now())
        const accounts = yield* Accounts
        const webhooks: Webhooks = yield* WebhooksService
        const r = yield* receiverOf
        const { account } = yield* accounts.create({ plan: options.plan ?? "pro", ownerEmail: options.ownerEmail ?? "owner@example.com" })
        const { endpoint, secret } = yield* webhooks.create(account, {
          url: `http://127.0.0.1:${r.port}${options.path ?? "/hooks"}`,
          events: ["email.delivered", "contact.subscribed"],
        })
        return { account, endpoint, secret, receiver: r, webhooks }
      })

    const event = (account: Account, overrides: Partial<DomainEvent> = {}) =>
      makeEvent({ accountId: account.id, type: "contact.subscribed", recipient: "ada@example.com", details: { contactId: "ct_1", email: "ada@example.com", source: "API", status: "ACTIVE" }, ...overrides })

    const run = (attempt: number): JobRun => ({ jobId: "job", attempt, lastAttempt: attempt === webhookRetryPolicy.delays.length + 1 })

    /** Runs the delivery job of `deliveryId` as the queue would on attempt `attempt`: Right when it succeeded. */
    const runJob = (account: Account, deliveryId: string, attempt: number) =>
      Effect.either(runDeliveryJob({ accountId: account.id, deliveryId }, run(attempt)))

    /** Appends `events` and hands exactly them to the webhooks consumer as the relay would: a batch of its own, from a
     *  cursor moved first past every event appended before. */
    const handOut = (consumer: typeof webhookConsumer, events: ReadonlyArray<DomainEvent>) =>
      Effect.gen(function* () {
        const store = yield* Store
        const name = uniqueText("webhooks-test")
        while ((yield* store.events.relay(name, 10_000, () => Effect.void)) > 0) { /* to the end */ }
        yield* store.transaction(store.events.append(events))
        expect(yield* store.events.relay(name, 10_000, consumer.handle)).toBe(events.length)
      })

    const only = <A>(items: ReadonlyArray<A>) => {
      expect(items).toHaveLength(1)
      return items[0]!
    }

    it.layer(layer, { timeout: "120 seconds" })((it) => {
      it.effect("fan-out makes one delivery per subscribed endpoint and queues it once; the job POSTs the spec's envelope, signed", () =>
        Effect.gen(function* () {
          const { account, endpoint, secret, receiver: r } = yield* setup()
          const store = yield* Store
          const other = yield* (yield* WebhooksService).create(account, { url: `http://127.0.0.1:${r.port}/other`, events: ["email.bounced"] })
          const subscribed = event(account)
          const made = yield* fanOutEvents([subscribed, event(account, { type: "list.member_added" })])
          const delivery = only(made)
          expect(delivery).toMatchObject({ endpointId: endpoint.id, eventId: subscribed.id, status: "pending" })
          expect(made.some((d) => d.endpointId === other.endpoint.id)).toBe(false)
          expect(enqueued.filter((job) => mentions(job, delivery.id))).toEqual([
            { name: webhookFirstAttemptsJob.name, payload: { accountId: account.id, deliveryIds: [delivery.id] }, dedupeKey: delivery.id, runAt: undefined },
          ])
          expect(yield* fanOutEvents([subscribed])).toEqual([])

          const before = r.requests.length
          expect(Either.isRight(yield* runJob(account, delivery.id, 1))).toBe(true)
          const request = only(r.requests.slice(before))
          expect(request.path).toBe("/hooks")
          expect(JSON.parse(request.body)).toEqual(JSON.parse(JSON.stringify(webhookEnvelope(subscribed))))
          expect(JSON.parse(request.body)).toEqual({
            eventType: "contact.subscribed", messageId: subscribed.id, timestamp: subscribed.occurredAt.toISOString(),
            recipient: "ada@example.com", details: { contactId: "ct_1", email: "ada@example.com", source: "API", status: "ACTIVE" },
          })
          expect(request.headers["x-service-event"]).toBe("contact.subscribed")
          expect(() => new Webhook(secret).verify(request.body, request.headers)).not.toThrow()
          const stored = Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, delivery.id))
          expect(stored).toMatchObject({ status: "succeeded", attempts: 1, lastStatusCode: 200 })
          // A job run again after success (at least once delivery) POSTs nothing more.
          yield* runJob(account, delivery.id, 2)
          expect(r.requests.length).toBe(before + 1)
        }))

      it.effect("a first-attempts run POSTs its deliveries, records each attempt once and queues the failed ones' retries 30 seconds on", () =>
        Effect.gen(function* () {
          const { account, receiver: r, webhooks } = yield* setup()
          const store = yield* Store
          const flaky = yield* webhooks.create(account, { url: `http://127.0.0.1:${r.port}/flaky`, events: ["contact.subscribed"] })
          r.answer = (request) => request.path === "/flaky" ? { status: 503, body: "later" } : { status: 200, body: "ok" }
          const events = [event(account), event(account), event(account)]
          const made = yield* fanOutEvents(events)
          expect(made).toHaveLength(6)
          const queued = enqueued.filter((job) => job.name === webhookFirstAttemptsJob.name && mentions(job, made[0]!.id))
          expect(queued).toEqual([{
            name: webhookFirstAttemptsJob.name, payload: { accountId: account.id, deliveryIds: made.map((d) => d.id) }, dedupeKey: made[0]!.id, runAt: undefined,
          }])
          const before = r.requests.length
          const retriesBefore = enqueued.length
          yield* runFirstAttempts({ accountId: account.id, deliveryIds: made.map((d) => d.id) }, { concurrency: 4 })
          const requests = r.requests.slice(before)
          expect(requests.map((request) => request.headers["webhook-id"]).sort()).toEqual(made.map((d) => d.id).sort())
          for (const delivery of made) {
            const failing = delivery.endpointId === flaky.endpoint.id
            const stored = Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, delivery.id))
            expect(stored).toMatchObject({ status: failing ? "pending" : "succeeded", attempts: 1, lastStatusCode: failing ? 503 : 200 })
            const attempts = yield* store.webhooks.listAttempts(account.id, delivery.id)
            expect(attempts.map((a) => [a.attempt, a.succeeded])).toEqual([[1, !failing]])
          }
          const retries = enqueued.slice(retriesBefore)
          const failed = made.filter((d) => d.endpointId === flaky.endpoint.id)
          expect(retries.map((job) => [job.name, job.payload, job.dedupeKey])).toEqual(failed.map((d) => [
            webhookDeliveryJob.name, { accountId: account.id, deliveryId: d.id }, d.id,
          ]))
          for (const [i, job] of retries.entries()) {
            const stored = Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, failed[i]!.id))
            expect(job.runAt?.getTime()).toBe(stored.updatedAt.getTime() + 30_000)
          }
          // Run again (its process died after the record, say): nothing is POSTed twice, and the failed deliveries are
          // handed to their retry job again (which the queue's dedupe key keeps single).
          yield* runFirstAttempts({ accountId: account.id, deliveryIds: made.map((d) => d.id) }, { concurrency: 4 })
          expect(r.requests.length).toBe(before + made.length)
          expect(enqueued.slice(retriesBefore + retries.length).map((job) => [job.name, job.dedupeKey])).toEqual(
            failed.map((d) => [webhookDeliveryJob.name, d.id]))
          // The second attempt is the retry job's first run.
          expect(Either.isLeft(yield* runJob(account, failed[0]!.id, 1))).toBe(true)
          expect(Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, failed[0]!.id)).attempts).toBe(2)
        }))

      /** A first-attempts run of `count` fresh deliveries (concurrency 4) whose last POST the receiver holds until
       *  `release`; `recordedAtLeast(n)` waits, in real time (the POSTs go to a real receiver), until n deliveries
       *  have succeeded, for at most 8 seconds: within the held POST's 10-second deadline, which starts later, with
       *  that POST. */
      const runWithLastHeld = (count: number) =>
        Effect.gen(function* () {
          const { account, receiver: r } = yield* setup()
          const store = yield* Store
          const events = Array.from({ length: count }, () => event(account))
          const made = yield* fanOutEvents(events)
          expect(made).toHaveLength(events.length)
          let release: () => void = () => undefined
          const held = new Promise<void>((resolve) => { release = resolve })
          const last = events.at(-1)!.id
          r.answer = (request) => JSON.parse(request.body).messageId === last
            ? { after: held.then(() => ({ status: 200, body: "ok" })) }
            : { status: 200, body: "ok" }
          const statuses = Effect.map(
            store.webhooks.findDeliveriesWithEndpoints(made.map((d) => ({ accountId: account.id, deliveryId: d.id }))),
            (found) => new Map(found.map(({ delivery }) => [delivery.id as string, delivery])),
          )
          const requestsBefore = r.requests.length
          const running = yield* Effect.fork(runFirstAttempts({ accountId: account.id, deliveryIds: made.map((d) => d.id) }, { concurrency: 4 }))
          /** Every POST of the run has reached the receiver (the receiver is the suite's: it counts earlier tests'). */
          const allPosted = Effect.promise(() => r.waitFor(requestsBefore + made.length))
          const recordedAtLeast = (n: number) =>
            Effect.gen(function* () {
              let recorded = 0
              for (let i = 0; i < 400 && recorded < n; i++) {
                yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
                recorded = [...(yield* statuses).values()].filter((delivery) => delivery.status === "succeeded").length
              }
              return recorded
            })
          return { account, r, store, made, statuses, running, release, recordedAtLeast, allPosted, heldDelivery: made.find((d) => d.eventId === last)! }
        })

      it.effect("once a first-attempts run's last POST has started, the attempts finished are recorded within the grace, without waiting for the POSTs under way", () =>
        Effect.gen(function* () {
          // Fewer than a part: before, nothing was recorded until the last answer.
          const { account, store, made, statuses, running, release, recordedAtLeast, allPosted, heldDelivery } = yield* runWithLastHeld(30)
          // Every POST has reached the receiver: the last one (the held one) has started.
          yield* allPosted
          // Within the grace, the attempts finished wait for the POSTs under way: nothing is recorded yet.
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 200)))
          expect([...(yield* statuses).values()].filter((delivery) => delivery.status !== "pending")).toEqual([])
          // Past it, they are recorded; the POSTs under way then (the held one among them) are left to the end: at
          // most 4, the run's concurrency.
          yield* TestClock.adjust(lastAnswersGrace)
          expect(yield* recordedAtLeast(made.length - 4)).toBeGreaterThanOrEqual(made.length - 4)
          expect(running.unsafePoll()).toBeNull()
          expect((yield* statuses).get(heldDelivery.id)).toMatchObject({ status: "pending", attempts: 0 })
          release()
          yield* Fiber.join(running)
          for (const delivery of (yield* statuses).values()) expect(delivery).toMatchObject({ status: "succeeded", attempts: 1 })
          for (const delivery of made) expect((yield* store.webhooks.listAttempts(account.id, delivery.id)).map((a) => a.attempt)).toEqual([1])
        }))

      it.effect("answers that come within the grace after a run's last POST started are recorded with the attempts finished before, in one write", () =>
        Effect.gen(function* () {
          const { account } = yield* setup()
          const store = yield* Store
          const made = yield* fanOutEvents(Array.from({ length: 30 }, () => event(account)))
          let writes = 0
          const counting = Store.of({
            ...store,
            webhooks: { ...store.webhooks, recordAttempts: (records, streaks) => Effect.zipRight(Effect.sync(() => { writes += 1 }), store.webhooks.recordAttempts(records, streaks)) },
          })
          yield* runFirstAttempts({ accountId: account.id, deliveryIds: made.map((d) => d.id) }, { concurrency: 4 }).pipe(Effect.provideService(Store, counting))
          // Fewer than a part, every answer at once: one write.
          expect(writes).toBe(1)
          for (const delivery of made) expect(Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, delivery.id))).toMatchObject({ status: "succeeded", attempts: 1 })
        }))

      it.effect("a first-attempts run records its attempts in parts as they finish, while its other POSTs go on", () =>
        Effect.gen(function* () {
          const { account, r, store, made, statuses, running, release, recordedAtLeast, heldDelivery } =
            yield* runWithLastHeld(firstAttemptsRecordedPer + 20)
          // A part is recorded while the run still waits for the held POST.
          expect(yield* recordedAtLeast(firstAttemptsRecordedPer)).toBeGreaterThanOrEqual(firstAttemptsRecordedPer)
          expect(running.unsafePoll()).toBeNull()
          expect((yield* statuses).get(heldDelivery.id)).toMatchObject({ status: "pending", attempts: 0 })
          release()
          yield* Fiber.join(running)
          for (const delivery of (yield* statuses).values()) expect(delivery).toMatchObject({ status: "succeeded", attempts: 1, lastStatusCode: 200 })
          for (const delivery of made) expect((yield* store.webhooks.listAttempts(account.id, delivery.id)).map((a) => a.attempt)).toEqual([1])
          // Each POSTed once.
          const ids = new Set<string>(made.map((d) => d.id))
          expect(r.requests.filter((request) => ids.has(String(request.headers["webhook-id"]))).length).toBe(made.length)
        }))

      it.effect("the consumer fans a batch out and enqueues its first-attempts runs in the relay's transaction: one run per account, unkeyed", () =>
        Effect.gen(function* () {
          const { account, endpoint } = yield* setup()
          const queuedBefore = enqueued.length
          const events = [event(account), event(account)]
          const inTransaction: Array<boolean> = []
          // The stand-in queue notes whether each enqueue ran inside the relay's transaction (its commit hooks wait).
          const noting = {
            enqueue,
            enqueueAll: ((job, jobs) => Effect.gen(function* () {
              let committed = false
              yield* afterCommit(Effect.sync(() => { committed = true }))
              inTransaction.push(!committed)
              return yield* enqueueEach(enqueue)(job, jobs)
            })) satisfies JobQueueService["enqueueAll"],
            work: () => Effect.die(new Error("not implemented")),
          }
          yield* handOut(webhookConsumer, events).pipe(Effect.provideService(JobQueue, noting))
          expect(inTransaction).toEqual([true])
          expect(only(enqueued.slice(queuedBefore))).toEqual({
            name: webhookFirstAttemptsJob.name,
            payload: { accountId: account.id, deliveryIds: events.map((e) => deliveryIdFor(e.id, endpoint.id)) },
            dedupeKey: undefined,
            runAt: undefined,
          })
        }))

      it.effect("attempts of one delivery recorded together are recorded in order, each counted, the streak moved by each", () =>
        Effect.gen(function* () {
          const { account, endpoint } = yield* setup()
          const store = yield* Store
          const delivery = only(yield* fanOutEvents([event(account)]))
          const current = Option.getOrThrow(yield* store.webhooks.findEndpoint(account.id, endpoint.id))
          const attempt = (n: number, succeeded: boolean, at: number): WebhookAttempt => ({
            id: `wha_${delivery.id}_${n}`, accountId: account.id, deliveryId: delivery.id, endpointId: endpoint.id, attempt: n, succeeded,
            statusCode: succeeded ? 200 : 500, durationMs: 1, responseSnippet: null, error: succeeded ? null : "the receiver answered 500", startedAt: new Date(at),
          })
          const answers = yield* recordAttempts([
            { endpoint: current, attempt: attempt(1, false, 1_000), status: "pending", at: new Date(1_001) },
            { endpoint: current, attempt: attempt(2, true, 2_000), status: "succeeded", at: new Date(2_001) },
          ])
          expect(answers.map((answer) => answer.decision.streak.consecutiveFailures)).toEqual([1, 0])
          expect(Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, delivery.id))).toMatchObject({ status: "succeeded", attempts: 2, lastStatusCode: 200, lastError: null })
          expect((yield* store.webhooks.listAttempts(account.id, delivery.id)).map((a) => [a.attempt, a.succeeded])).toEqual([[1, false], [2, true]])
          expect(Option.getOrThrow(yield* store.webhooks.findEndpoint(account.id, endpoint.id)).streak).toEqual({ consecutiveFailures: 0, notified: false })
        }))

      it.effect("a group of successes is recorded with the streak a success leaves, whatever the streak became after the run read its endpoint", () =>
        Effect.gen(function* () {
          const { account, endpoint } = yield* setup()
          const store = yield* Store
          const [one, two] = yield* fanOutEvents([event(account), event(account)])
          const read = Option.getOrThrow(yield* store.webhooks.findEndpoint(account.id, endpoint.id))
          // Failures recorded elsewhere since the read.
          yield* store.webhooks.setStreak(account.id, endpoint.id, { consecutiveFailures: 5, notified: true })
          const success = (delivery: WebhookDelivery, at: number): PendingRecord => ({
            endpoint: read, status: "succeeded", at: new Date(at + 1),
            attempt: {
              id: `wha_${delivery.id}_1`, accountId: account.id, deliveryId: delivery.id, endpointId: endpoint.id, attempt: 1, succeeded: true,
              statusCode: 204, durationMs: 1, responseSnippet: null, error: null, startedAt: new Date(at),
            },
          })
          const answers = yield* recordAttempts([success(one!, 1_000), success(two!, 2_000)])
          expect(answers.map((answer) => [answer.decision, answer.updated.streak])).toEqual(Array(2).fill([
            { streak: { consecutiveFailures: 0, notified: false }, notify: false, disable: false }, { consecutiveFailures: 0, notified: false },
          ]))
          expect(Option.getOrThrow(yield* store.webhooks.findEndpoint(account.id, endpoint.id)).streak).toEqual({ consecutiveFailures: 0, notified: false })
          for (const delivery of [one!, two!]) {
            expect(Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, delivery.id))).toMatchObject({ status: "succeeded", attempts: 1, lastStatusCode: 204 })
          }
        }))

      it.effect("a group of successes and a group with a failure recorded at once come out as if one ran after the other", () =>
        Effect.gen(function* () {
          const { account, endpoint } = yield* setup()
          const store = yield* Store
          for (let round = 0; round < 8; round++) {
            yield* store.webhooks.setStreak(account.id, endpoint.id, { consecutiveFailures: 2, notified: false })
            const read = Option.getOrThrow(yield* store.webhooks.findEndpoint(account.id, endpoint.id))
            const [failing, succeeding] = yield* fanOutEvents([event(account), event(account)])
            const record = (delivery: WebhookDelivery, succeeded: boolean): PendingRecord => ({
              endpoint: read, status: succeeded ? "succeeded" : "pending", at: new Date(round * 10 + 1),
              attempt: {
                id: `wha_${delivery.id}_1`, accountId: account.id, deliveryId: delivery.id, endpointId: endpoint.id, attempt: 1, succeeded,
                statusCode: succeeded ? 204 : 500, durationMs: 1, responseSnippet: null, error: succeeded ? null : "the receiver answered 500",
                startedAt: new Date(round * 10),
              },
            })
            const [failed] = yield* Effect.all([recordAttempts([record(failing!, false)]), recordAttempts([record(succeeding!, true)])], { concurrency: 2 })
            // The failure counted from the streak as it was when it took its lock: 3 (before the success) or 1 (after).
            const streak = Option.getOrThrow(yield* store.webhooks.findEndpoint(account.id, endpoint.id)).streak.consecutiveFailures
            const counted = failed[0]!.decision.streak.consecutiveFailures
            expect([[3, 0], [1, 1]]).toContainEqual([counted, streak])
            expect(Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, failing!.id))).toMatchObject({ status: "pending", attempts: 1 })
            expect(Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, succeeding!.id))).toMatchObject({ status: "succeeded", attempts: 1 })
          }
        }))

      it.effect("a first-attempts run POSTs nothing more to an endpoint once its failures reach autoDisableAfter; the rest wait in a run of their own", () =>
        Effect.gen(function* () {
          const { account, endpoint, receiver: r, webhooks } = yield* setup()
          const store = yield* Store
          yield* webhooks.updateFailureSettings(account, endpoint.id, { autoDisableAfter: 2 })
          r.answer = () => ({ status: 500 })
          const made = yield* fanOutEvents([event(account), event(account), event(account), event(account), event(account)])
          const before = r.requests.length
          const queuedBefore = enqueued.length
          yield* runFirstAttempts({ accountId: account.id, deliveryIds: made.map((d) => d.id) }, { concurrency: 1 })
          expect(r.requests.length).toBe(before + 2)
          expect(Option.getOrThrow(yield* store.webhooks.findEndpoint(account.id, endpoint.id))).toMatchObject({ active: false })
          const rest = made.slice(2)
          for (const delivery of rest) {
            expect(Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, delivery.id))).toMatchObject({ status: "pending", attempts: 0 })
          }
          expect(enqueued.slice(queuedBefore).filter((job) => job.name === webhookFirstAttemptsJob.name).map((job) => job.payload)).toEqual([
            { accountId: account.id, deliveryIds: rest.map((d) => d.id) },
          ])
          // That run finds the endpoint disabled and POSTs nothing.
          yield* runFirstAttempts({ accountId: account.id, deliveryIds: rest.map((d) => d.id) }, { concurrency: 1 })
          expect(r.requests.length).toBe(before + 2)
        }))

      it.effect("queued again at start: an attempted delivery gets its retry job now, an unattempted one a first-attempts run five minutes on", () =>
        Effect.gen(function* () {
          const { account, receiver: r } = yield* setup()
          const [attempted, unattempted] = yield* fanOutEvents([event(account), event(account)])
          r.answer = () => ({ status: 500 })
          yield* runFirstAttempts({ accountId: account.id, deliveryIds: [attempted!.id] }, { concurrency: 1 })
          const before = enqueued.length
          const now = yield* Clock.currentTimeMillis
          yield* requeuePendingDeliveries
          const mine = enqueued.slice(before).filter((job) => mentions(job, attempted!.id) || mentions(job, unattempted!.id))
          expect(mine.map((job) => [job.name, job.payload, job.dedupeKey, job.runAt?.getTime()])).toEqual([
            [webhookDeliveryJob.name, { accountId: account.id, deliveryId: attempted!.id }, attempted!.id, now],
            [webhookFirstAttemptsJob.name, { accountId: account.id, deliveryIds: [unattempted!.id] }, `later:${unattempted!.id}`, now + 5 * 60_000],
          ])
        }))

      it.effect("a failing receiver is retried by the queue five times, then the delivery is failed; every attempt is recorded", () =>
        Effect.gen(function* () {
          const { account, receiver: r } = yield* setup()
          const store = yield* Store
          const delivery = only(yield* fanOutEvents([event(account)]))
          r.answer = () => ({ status: 503, body: "try later" })
          const ids = new Set<string>()
          for (let attempt = 1; attempt <= maxAttempts; attempt++) {
            const before = r.requests.length
            const result = yield* runJob(account, delivery.id, attempt)
            expect(Either.isLeft(result)).toBe(attempt < maxAttempts)
            const request = only(r.requests.slice(before))
            ids.add(request.headers["x-service-delivery"]!)
            expect(request.headers["webhook-id"]).toBe(delivery.id)
            const stored = Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, delivery.id))
            expect(stored.status).toBe(attempt < maxAttempts ? "pending" : "failed")
            expect(stored.attempts).toBe(attempt)
          }
          expect(ids.size).toBe(maxAttempts)
          const attempts = yield* store.webhooks.listAttempts(account.id, delivery.id)
          expect(attempts.map((a) => [a.attempt, a.succeeded, a.statusCode, a.responseSnippet])).toEqual(
            Array.from({ length: maxAttempts }, (_, i) => [i + 1, false, 503, "try later"]))
        }))

      it.effect("redirects are answers, never followed; resets and huge bodies are recorded with a bounded snippet", () =>
        Effect.gen(function* () {
          const { account, receiver: r } = yield* setup()
          const store = yield* Store
          const attemptOf = (answer: typeof r.answer) =>
            Effect.gen(function* () {
              r.answer = answer
              const delivery = only(yield* fanOutEvents([event(account)]))
              yield* runJob(account, delivery.id, 1)
              return only(yield* store.webhooks.listAttempts(account.id, delivery.id))
            })
          const before = r.requests.length
          const redirected = yield* attemptOf(() => ({ status: 301, headers: { location: `http://127.0.0.1:${r.port}/moved` } }))
          expect(redirected).toMatchObject({ succeeded: false, statusCode: 301 })
          expect(r.requests.length).toBe(before + 1)
          expect(yield* attemptOf(() => ({ status: 410, body: "gone" }))).toMatchObject({ succeeded: false, statusCode: 410, responseSnippet: "gone" })
          const reset = yield* attemptOf(() => ({ reset: true }))
          expect(reset).toMatchObject({ succeeded: false, statusCode: null })
          expect(reset.error).toMatch(/reset|socket/i)
          const huge = yield* attemptOf(() => ({ hugeBody: 20 * 1024 * 1024 }))
          expect(huge).toMatchObject({ succeeded: true, statusCode: 200 })
          expect(huge.responseSnippet).toHaveLength(1024)
        }))

      it.effect("a streak reaching failureThreshold sends one notice to the notify addresses; a success starts a new streak", () =>
        Effect.gen(function* () {
          const { account, endpoint, receiver: r, webhooks } = yield* setup()
          yield* webhooks.updateFailureSettings(account, endpoint.id, { failureThreshold: 2, notifyEmails: ["ops@example.com", "dev@example.com"] })
          mailer.clear()
          r.answer = () => ({ status: 500 })
          const fail = Effect.gen(function* () {
            const delivery = only(yield* fanOutEvents([event(account)]))
            yield* runJob(account, delivery.id, 1)
          })
          yield* fail
          expect(mailer.sent).toHaveLength(0)
          yield* fail
          const notice = only(mailer.sent)
          expect(notice.envelopeTo).toEqual(["ops@example.com", "dev@example.com"])
          expect(notice.text).toContain(endpoint.url)
          yield* fail
          expect(mailer.sent).toHaveLength(1)
          r.answer = () => ({ status: 200 })
          yield* runJob(account, only(yield* fanOutEvents([event(account)])).id, 1)
          r.answer = () => ({ status: 500 })
          yield* fail
          yield* fail
          expect(mailer.sent).toHaveLength(2)
        }))

      it.effect("without notify addresses the notice goes to the account owner; autoDisableAfter disables the endpoint", () =>
        Effect.gen(function* () {
          const { account, endpoint, receiver: r, webhooks } = yield* setup({ ownerEmail: "boss@example.com" })
          const store = yield* Store
          yield* webhooks.updateFailureSettings(account, endpoint.id, { failureThreshold: 1, autoDisableAfter: 2 })
          mailer.clear()
          r.answer = () => ({ status: 500 })
          const first = only(yield* fanOutEvents([event(account)]))
          const second = only(yield* fanOutEvents([event(account)]))
          yield* runJob(account, first.id, 1)
          expect(only(mailer.sent).envelopeTo).toEqual(["boss@example.com"])
          yield* runJob(account, second.id, 1)
          const disabled = Option.getOrThrow(yield* store.webhooks.findEndpoint(account.id, endpoint.id))
          expect(disabled.active).toBe(false)
          expect(disabled.disabledReason).toMatch(/2 consecutive failed deliveries/)
          // Jobs of a disabled endpoint POST nothing; new events make no delivery for it.
          const before = r.requests.length
          yield* runJob(account, first.id, 2)
          expect(r.requests.length).toBe(before)
          expect(yield* fanOutEvents([event(account)])).toEqual([])
        }))

      it.effect("the URL rules are checked again on every delivery: a host now resolving to a private address gets no POST", () =>
        Effect.gen(function* () {
          const { account, receiver: r, webhooks } = yield* setup()
          const store = yield* Store
          const target = yield* webhooks.create(account, { url: "https://hooks.mailroom.test/in", events: ["email.delivered"] }).pipe(
            Effect.provide(Layer.succeed(Dns, { lookupAddresses: () => Effect.succeed(["93.184.216.34"]), resolveTxt: () => Effect.succeed([]), resolveMx: () => Effect.succeed([]) })),
            Effect.provide(Layer.succeed(WebhooksConfig, { urlRules: { allowPrivate: false } })),
          )
          const delivery = only((yield* fanOutEvents([event(account, { type: "email.delivered" })])).filter((d) => d.endpointId === target.endpoint.id))
          const before = r.requests.length
          yield* runJob(account, delivery.id, 1).pipe(
            Effect.provide(Layer.succeed(Dns, { lookupAddresses: () => Effect.succeed(["10.0.0.8"]), resolveTxt: () => Effect.succeed([]), resolveMx: () => Effect.succeed([]) })),
            Effect.provide(Layer.succeed(WebhooksConfig, { urlRules: { allowPrivate: false } })),
          )
          const attempt = only(yield* store.webhooks.listAttempts(account.id, delivery.id))
          expect(attempt).toMatchObject({ succeeded: false, statusCode: null })
          expect(attempt.error).toMatch(/refused: .*10\.0\.0\.8 is a private address/)
          expect(r.requests.length).toBe(before)
        }))

      it.effect("deleting an endpoint deletes its history, and its queued jobs do nothing", () =>
        Effect.gen(function* () {
          const { account, endpoint, receiver: r, webhooks } = yield* setup()
          const store = yield* Store
          const delivery = only(yield* fanOutEvents([event(account)]))
          r.answer = () => ({ status: 500 })
          yield* runJob(account, delivery.id, 1)
          yield* webhooks.remove(account, endpoint.id)
          expect(Option.isNone(yield* store.webhooks.findDelivery(account.id, delivery.id))).toBe(true)
          expect(yield* store.webhooks.listAttempts(account.id, delivery.id)).toEqual([])
          const before = r.requests.length
          expect(Either.isRight(yield* runJob(account, delivery.id, 2))).toBe(true)
          expect(r.requests.length).toBe(before)
        }))

      it.effect("the purge keeps 90 days of attempts", () =>
        Effect.gen(function* () {
          const { account } = yield* setup()
          const store = yield* Store
          const delivery = only(yield* fanOutEvents([event(account)]))
          yield* runJob(account, delivery.id, 1)
          yield* TestClock.adjust("89 days")
          yield* purgeWebhookHistory
          expect(yield* store.webhooks.listAttempts(account.id, delivery.id)).toHaveLength(1)
          yield* TestClock.adjust("2 days")
          expect(yield* purgeWebhookHistory).toBeGreaterThanOrEqual(1)
          expect(yield* store.webhooks.listAttempts(account.id, delivery.id)).toEqual([])
        }))

      it.effect("a receiver that hangs past 10 seconds fails the attempt at the deadline", () =>
        Effect.gen(function* () {
          const { account, receiver: r } = yield* setup()
          const store = yield* Store
          r.answer = () => ({ hang: true })
          const delivery = only(yield* fanOutEvents([event(account)]))
          const result = yield* runJob(account, delivery.id, 1)
          expect(Either.isLeft(result)).toBe(true)
          const attempt = only(yield* store.webhooks.listAttempts(account.id, delivery.id))
          expect(attempt.error).toMatch(/deadline/)
          expect(attempt.durationMs).toBeGreaterThanOrEqual(9_900)
          expect(attempt.durationMs).toBeLessThan(12_000)
        }), { timeout: 30_000 })
    })
  })
