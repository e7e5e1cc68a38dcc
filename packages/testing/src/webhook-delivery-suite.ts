/** The webhook delivery suite: fan-out of outbox events, the delivery job's attempts against a real receiver on
 *  127.0.0.1 (verified with `standardwebhooks`), the retry schedule's give-up rule, failure notices through the Mailer,
 *  auto-disable, URL checks on every delivery and the 90-day purge. The JobQueue is a recording double behind its
 *  port: the test runs each enqueued job itself. */
import { describe, expect, it } from "@effect/vitest"
import {
  afterCommit, type Account, Accounts, deliveryIdFor, Dns, type DomainEvent, fanOutEvents, type HttpTransport, enqueueEach, IdsLive, JobQueue,
  type JobQueueService, maxAttempts, purgeWebhookHistory, recordAttempt, requeueGrace, requeuePendingDeliveries, runDeliveryJob, servicesLayer,
  Store, type Webhooks, WebhooksConfig, webhookDeliveryJob, type PendingRecord, type WebhookAttempt, type WebhookDelivery, webhookConsumer,
  webhookEnvelope, webhookRetryPolicy, webhookRunBudgetMs, Webhooks as WebhooksService,
} from "@mailroom/core"
import { Clock, Duration, Effect, Fiber, Layer, Option, TestClock } from "effect"
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

/** Whether a queued job is about the delivery `id`. */
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

    /** Runs a delivery job of `deliveryIds` (deliveries of one endpoint) making attempt `attempt`, as the queue would,
     *  and answers the jobs the run queued (the next attempt of the deliveries that failed). */
    const runJob = (account: Account, deliveryIds: string | ReadonlyArray<string>, attempt: number) =>
      Effect.gen(function* () {
        const ids = typeof deliveryIds === "string" ? [deliveryIds] : deliveryIds
        const first = yield* (yield* Store).webhooks.findDelivery(account.id, ids[0]!)
        const endpointId = Option.match(first, { onNone: () => "gone", onSome: (d) => d.endpointId })
        const before = enqueued.length
        yield* runDeliveryJob({ accountId: account.id, endpointId, attempt, deliveryIds: ids })
        return enqueued.slice(before)
      })

    /** Runs a job queued by the code under test, as the queue would. */
    const runQueued = (job: Enqueued) =>
      Effect.gen(function* () {
        expect(job.name).toBe(webhookDeliveryJob.name)
        const before = enqueued.length
        yield* runDeliveryJob(job.payload as typeof webhookDeliveryJob.payload.Type)
        return enqueued.slice(before)
      })

    const sorted = (ids: ReadonlyArray<string>) => [...ids].sort()

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
      it.effect("fan-out makes one delivery per subscribed endpoint and queues it in a job of its endpoint; the job POSTs the spec's envelope, signed", () =>
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
            {
              name: webhookDeliveryJob.name,
              payload: { accountId: account.id, endpointId: endpoint.id, attempt: 1, deliveryIds: [delivery.id] },
              dedupeKey: undefined,
              runAt: undefined,
            },
          ])
          expect(yield* fanOutEvents([subscribed])).toEqual([])

          const before = r.requests.length
          expect(yield* runJob(account, delivery.id, 1)).toEqual([])
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
          // A job run again after success (at least once delivery), or a later attempt's job, POSTs nothing more.
          yield* runJob(account, delivery.id, 1)
          yield* runJob(account, delivery.id, 2)
          expect(r.requests.length).toBe(before + 1)
        }))

      it.effect("a job carries the deliveries of one endpoint: its run POSTs each once and records them; each failed one is queued in a job of its own, keyed by delivery and attempt, after the spec's delay", () =>
        Effect.gen(function* () {
          const { account, endpoint, receiver: r, webhooks } = yield* setup()
          const store = yield* Store
          const flaky = yield* webhooks.create(account, { url: `http://127.0.0.1:${r.port}/flaky`, events: ["contact.subscribed"] })
          r.answer = (request) => request.path === "/flaky" ? { status: 503, body: "later" } : { status: 200, body: "ok" }
          const queuedBefore = enqueued.length
          const made = yield* fanOutEvents([event(account), event(account), event(account)])
          expect(made).toHaveLength(6)
          const idsOf = (endpointId: string) => sorted(made.filter((d) => d.endpointId === endpointId).map((d) => d.id))
          const jobs = enqueued.slice(queuedBefore)
          expect(jobs.map((job) => [job.name, job.dedupeKey, job.runAt])).toEqual(Array(2).fill([webhookDeliveryJob.name, undefined, undefined]))
          const payloads = jobs.map((job) => job.payload as typeof webhookDeliveryJob.payload.Type)
          expect(payloads.map((p) => [p.endpointId, p.attempt, sorted(p.deliveryIds)]).sort()).toEqual(
            [[endpoint.id, 1, idsOf(endpoint.id)], [flaky.endpoint.id, 1, idsOf(flaky.endpoint.id)]].sort())
          expect(maxAttempts).toBe(6)
          const before = r.requests.length
          const retries = [...yield* runQueued(jobs[0]!), ...yield* runQueued(jobs[1]!)]
          expect(sorted(r.requests.slice(before).map((request) => request.headers["webhook-id"]!))).toEqual(sorted(made.map((d) => d.id)))
          for (const delivery of made) {
            const failing = delivery.endpointId === flaky.endpoint.id
            const stored = Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, delivery.id))
            expect(stored).toMatchObject({ status: failing ? "pending" : "succeeded", attempts: 1, lastStatusCode: failing ? 503 : 200 })
            const attempts = yield* store.webhooks.listAttempts(account.id, delivery.id)
            expect(attempts.map((a) => [a.attempt, a.succeeded])).toEqual([[1, !failing]])
          }
          // A job for each of the three failures, of the same kind, keyed by delivery and attempt, their second attempt 30 s
          // after the record.
          const now = yield* Clock.currentTimeMillis
          expect(retries.map((retry) => [retry.name, retry.payload, retry.dedupeKey, retry.runAt!.getTime() - now]).sort((a, b) => String(a[2]) < String(b[2]) ? -1 : 1))
            .toEqual(idsOf(flaky.endpoint.id).map((id) => [
              webhookDeliveryJob.name, { accountId: account.id, endpointId: flaky.endpoint.id, attempt: 2, deliveryIds: [id] }, `${id}:2`, 30_000,
            ]))
          // The job run again (its process died after the record, say) POSTs nothing: each delivery is past attempt 1.
          expect(yield* runQueued(jobs[0]!)).toEqual([])
          expect(yield* runQueued(jobs[1]!)).toEqual([])
          expect(r.requests.length).toBe(before + made.length)
          // The second attempt is the retry jobs' runs.
          r.answer = () => ({ status: 200, body: "ok" })
          for (const retry of retries) expect(yield* runQueued(retry)).toEqual([])
          for (const id of idsOf(flaky.endpoint.id)) {
            expect(Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, id))).toMatchObject({ status: "succeeded", attempts: 2 })
          }
          expect(r.requests.length).toBe(before + made.length + 3)
        }))

      it.effect("a run starts attempts for webhookRunBudgetMs at most: the deliveries it had no time for are queued again, for the same attempt, with its record", () =>
        Effect.gen(function* () {
          const { account, receiver: r } = yield* setup()
          const store = yield* Store
          const made = yield* fanOutEvents([event(account), event(account), event(account)])
          // One POST at a time; the first is held until the run's clock has passed its budget.
          let release: (() => void) | undefined
          const held = new Promise<void>((resolve) => { release = resolve })
          r.answer = () => ({ after: held.then(() => ({ status: 200, body: "ok" })) })
          const before = r.requests.length
          const fiber = yield* Effect.fork(runJob(account, made.map((d) => d.id), 1).pipe(
            Effect.provideService(WebhooksConfig, { urlRules: { allowPrivate: true }, deliveryConcurrency: 1 }),
          ))
          while (r.requests.length === before) yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
          yield* TestClock.adjust(webhookRunBudgetMs)
          release!()
          const queued = only(yield* Fiber.join(fiber))
          expect(r.requests.length).toBe(before + 1)
          const first = r.requests[before]!.headers["webhook-id"]!
          expect(Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, first))).toMatchObject({ status: "succeeded", attempts: 1 })
          const rest = sorted(made.map((d) => d.id).filter((id) => id !== first))
          const payload = queued.payload as typeof webhookDeliveryJob.payload.Type
          expect([queued.runAt, payload.attempt, sorted(payload.deliveryIds)]).toEqual([undefined, 1, rest])
          for (const id of rest) expect(Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, id))).toMatchObject({ status: "pending", attempts: 0 })
        }))

      it.effect("the consumer fans a batch out and enqueues its deliveries' job in the relay's transaction", () =>
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
          const job = only(enqueued.slice(queuedBefore))
          const payload = job.payload as typeof webhookDeliveryJob.payload.Type
          expect([job.name, job.dedupeKey, job.runAt]).toEqual([webhookDeliveryJob.name, undefined, undefined])
          expect({ ...payload, deliveryIds: sorted(payload.deliveryIds) }).toEqual({
            accountId: account.id, endpointId: endpoint.id, attempt: 1, deliveryIds: sorted(events.map((e) => deliveryIdFor(e.id, endpoint.id))),
          })
        }))

      it.effect("attempts of one delivery recorded one after another: each counted, the streak moved by each", () =>
        Effect.gen(function* () {
          const { account, endpoint } = yield* setup()
          const store = yield* Store
          const delivery = only(yield* fanOutEvents([event(account)]))
          const current = Option.getOrThrow(yield* store.webhooks.findEndpoint(account.id, endpoint.id))
          const attempt = (n: number, succeeded: boolean, at: number): WebhookAttempt => ({
            id: `wha_${delivery.id}_${n}`, accountId: account.id, deliveryId: delivery.id, endpointId: endpoint.id, attempt: n, succeeded,
            statusCode: succeeded ? 200 : 500, durationMs: 1, responseSnippet: null, error: succeeded ? null : "the receiver answered 500", startedAt: new Date(at),
          })
          const first = yield* recordAttempt({ endpoint: current, attempt: attempt(1, false, 1_000), status: "pending", at: new Date(1_001) })
          expect(first.decision.streak.consecutiveFailures).toBe(1)
          expect(Option.getOrThrow(yield* store.webhooks.findEndpoint(account.id, endpoint.id)).streak.consecutiveFailures).toBe(1)
          const second = yield* recordAttempt({ endpoint: first.updated, attempt: attempt(2, true, 2_000), status: "succeeded", at: new Date(2_001) })
          expect(second.decision.streak.consecutiveFailures).toBe(0)
          expect(Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, delivery.id))).toMatchObject({ status: "succeeded", attempts: 2, lastStatusCode: 200, lastError: null })
          expect((yield* store.webhooks.listAttempts(account.id, delivery.id)).map((a) => [a.attempt, a.succeeded])).toEqual([[1, false], [2, true]])
          expect(Option.getOrThrow(yield* store.webhooks.findEndpoint(account.id, endpoint.id)).streak).toEqual({ consecutiveFailures: 0, notified: false })
        }))

      it.effect("a success is recorded with the streak a success leaves, whatever the streak became after the run read its endpoint", () =>
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
          const answers = [yield* recordAttempt(success(one!, 1_000)), yield* recordAttempt(success(two!, 2_000))]
          expect(answers.map((answer) => [answer.decision, answer.updated.streak])).toEqual(Array(2).fill([
            { streak: { consecutiveFailures: 0, notified: false }, notify: false, disable: false }, { consecutiveFailures: 0, notified: false },
          ]))
          expect(Option.getOrThrow(yield* store.webhooks.findEndpoint(account.id, endpoint.id)).streak).toEqual({ consecutiveFailures: 0, notified: false })
          for (const delivery of [one!, two!]) {
            expect(Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, delivery.id))).toMatchObject({ status: "succeeded", attempts: 1, lastStatusCode: 204 })
          }
        }))

      it.effect("a success and a failure recorded at once come out as if one ran after the other", () =>
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
            const [failed] = yield* Effect.all([recordAttempt(record(failing!, false)), recordAttempt(record(succeeding!, true))], { concurrency: 2 })
            // The failure counted from the streak as it was when it took its lock: 3 (before the success) or 1 (after).
            const streak = Option.getOrThrow(yield* store.webhooks.findEndpoint(account.id, endpoint.id)).streak.consecutiveFailures
            const counted = failed.decision.streak.consecutiveFailures
            expect([[3, 0], [1, 1]]).toContainEqual([counted, streak])
            expect(Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, failing!.id))).toMatchObject({ status: "pending", attempts: 1 })
            expect(Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, succeeding!.id))).toMatchObject({ status: "succeeded", attempts: 1 })
          }
        }))

      it.effect("two runs of one endpoint recording failures at once count them one after another, and queue a retry of each failure", () =>
        Effect.gen(function* () {
          const { account, endpoint, receiver: r } = yield* setup()
          const store = yield* Store
          r.answer = () => ({ status: 500 })
          for (let round = 0; round < 3; round++) {
            yield* store.webhooks.setStreak(account.id, endpoint.id, { consecutiveFailures: 0, notified: false })
            const made = yield* fanOutEvents([event(account), event(account), event(account), event(account)])
            const before = enqueued.length
            yield* Effect.all([
              runJob(account, made.slice(0, 2).map((d) => d.id), 1),
              runJob(account, made.slice(2).map((d) => d.id), 1),
            ], { concurrency: 2 })
            expect(Option.getOrThrow(yield* store.webhooks.findEndpoint(account.id, endpoint.id)).streak.consecutiveFailures).toBe(4)
            const retries = enqueued.slice(before)
            expect(retries).toHaveLength(4)
            expect(sorted(retries.map((job) => job.dedupeKey!))).toEqual(sorted(made.map((d) => `${d.id}:2`)))
            expect(sorted(retries.flatMap((job) => (job.payload as typeof webhookDeliveryJob.payload.Type).deliveryIds)))
              .toEqual(sorted(made.map((d) => d.id)))
          }
        }))

      it.effect("once an endpoint's failures reach autoDisableAfter it is disabled, its failures get no retry job, and the jobs of its other deliveries POST nothing", () =>
        Effect.gen(function* () {
          const { account, endpoint, receiver: r, webhooks } = yield* setup()
          const store = yield* Store
          yield* webhooks.updateFailureSettings(account, endpoint.id, { autoDisableAfter: 2 })
          r.answer = () => ({ status: 500 })
          const made = yield* fanOutEvents([event(account), event(account), event(account), event(account), event(account)])
          const before = r.requests.length
          expect(yield* runJob(account, made.slice(0, 2).map((d) => d.id), 1)).toEqual([])
          for (const delivery of made.slice(2)) expect(yield* runJob(account, delivery.id, 1)).toEqual([])
          expect(r.requests.length).toBe(before + 2)
          expect(Option.getOrThrow(yield* store.webhooks.findEndpoint(account.id, endpoint.id))).toMatchObject({ active: false })
          for (const delivery of made.slice(2)) {
            expect(Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, delivery.id))).toMatchObject({ status: "pending", attempts: 0 })
          }
        }))

      it.effect("queued again at start: an attempted delivery gets a job keyed as its retry's (which a queue holding the retry drops); one never attempted only once the grace has passed", () =>
        Effect.gen(function* () {
          const { account, receiver: r } = yield* setup()
          const [attempted, unattempted] = yield* fanOutEvents([event(account), event(account)])
          r.answer = () => ({ status: 500 })
          const retry = only(yield* runJob(account, attempted!.id, 1))
          const ours = (jobs: ReadonlyArray<Enqueued>) => jobs.filter((job) => mentions(job, attempted!.id) || mentions(job, unattempted!.id))
          const byPayload = (a: ReadonlyArray<unknown>, b: ReadonlyArray<unknown>) => JSON.stringify(a) < JSON.stringify(b) ? -1 : 1
          const view = (jobs: ReadonlyArray<Enqueued>) => ours(jobs).map((job) => [job.name, job.payload, job.dedupeKey, job.runAt]).sort(byPayload)
          const attemptedJob = [webhookDeliveryJob.name, { accountId: account.id, endpointId: attempted!.endpointId, attempt: 2, deliveryIds: [attempted!.id] }, `${attempted!.id}:2`, undefined]
          // The attempted delivery's job has its retry's key (the retry job is due in 30 seconds: a queue that still
          // holds it drops this one, and one that lost it runs this one now). The unattempted one's job from the relay
          // runs at once and holds no key: it is left to it until the grace has passed since it was made.
          expect([retry.dedupeKey, retry.runAt!.getTime() - (yield* Clock.currentTimeMillis)]).toEqual([`${attempted!.id}:2`, 30_000])
          let before = enqueued.length
          yield* requeuePendingDeliveries
          expect(view(enqueued.slice(before))).toEqual([attemptedJob])
          yield* TestClock.adjust(requeueGrace)
          before = enqueued.length
          yield* requeuePendingDeliveries
          expect(view(enqueued.slice(before))).toEqual([attemptedJob])
          // Past the grace: the unattempted one too, in a job of its own, keyed by its first attempt. A second start
          // (or a second process) offers the same keys, so that a queue drops them.
          yield* TestClock.adjust("1 second")
          const expected = [
            [webhookDeliveryJob.name, { accountId: account.id, endpointId: attempted!.endpointId, attempt: 1, deliveryIds: [unattempted!.id] }, `${unattempted!.id}:1`, undefined],
            attemptedJob,
          ].sort(byPayload)
          for (let start = 0; start < 2; start++) {
            before = enqueued.length
            yield* requeuePendingDeliveries
            expect(view(enqueued.slice(before))).toEqual(expected)
          }
        }))

      it.effect("a failing receiver is retried five times, each a job queued after the spec's delay, then the delivery is failed; every attempt is recorded", () =>
        Effect.gen(function* () {
          const { account, receiver: r } = yield* setup()
          const store = yield* Store
          const queuedBefore = enqueued.length
          const delivery = only(yield* fanOutEvents([event(account)]))
          let job = only(enqueued.slice(queuedBefore))
          r.answer = () => ({ status: 503, body: "try later" })
          const ids = new Set<string>()
          const delays: Array<number> = []
          for (let attempt = 1; attempt <= maxAttempts; attempt++) {
            const before = r.requests.length
            const queued = yield* runQueued(job)
            if (attempt < maxAttempts) {
              job = only(queued)
              expect(job.payload).toEqual({ accountId: account.id, endpointId: delivery.endpointId, attempt: attempt + 1, deliveryIds: [delivery.id] })
              delays.push(job.runAt!.getTime() - (yield* Clock.currentTimeMillis))
            } else {
              expect(queued).toEqual([])
            }
            const request = only(r.requests.slice(before))
            ids.add(request.headers["x-service-delivery"]!)
            expect(request.headers["webhook-id"]).toBe(delivery.id)
            const stored = Option.getOrThrow(yield* store.webhooks.findDelivery(account.id, delivery.id))
            expect(stored.status).toBe(attempt < maxAttempts ? "pending" : "failed")
            expect(stored.attempts).toBe(attempt)
          }
          expect(ids.size).toBe(maxAttempts)
          // 30 s, 2 min, 15 min, 1 h and 4 h after each failure.
          expect(delays).toEqual([30_000, 120_000, 900_000, 3_600_000, 14_400_000])
          expect(delays).toEqual(webhookRetryPolicy.delays.map((delay) => Duration.toMillis(Duration.decode(delay))))
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
            Effect.provide(Layer.succeed(Dns, { lookupAddresses: () => Effect.succeed(["93.184.216.34"]), resolveTxt: () => Effect.succeed([]), resolveMx: () => Effect.succeed([]), resolveCname: () => Effect.succeed([]) })),
            Effect.provide(Layer.succeed(WebhooksConfig, { urlRules: { allowPrivate: false } })),
          )
          const delivery = only((yield* fanOutEvents([event(account, { type: "email.delivered" })])).filter((d) => d.endpointId === target.endpoint.id))
          const before = r.requests.length
          yield* runJob(account, delivery.id, 1).pipe(
            Effect.provide(Layer.succeed(Dns, { lookupAddresses: () => Effect.succeed(["10.0.0.8"]), resolveTxt: () => Effect.succeed([]), resolveMx: () => Effect.succeed([]), resolveCname: () => Effect.succeed([]) })),
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
          expect(yield* runJob(account, delivery.id, 2)).toEqual([])
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
          const retry = only(yield* runJob(account, delivery.id, 1))
          expect(retry.payload).toMatchObject({ attempt: 2, deliveryIds: [delivery.id] })
          const attempt = only(yield* store.webhooks.listAttempts(account.id, delivery.id))
          expect(attempt.error).toMatch(/deadline/)
          expect(attempt.durationMs).toBeGreaterThanOrEqual(9_900)
          expect(attempt.durationMs).toBeLessThan(12_000)
        }), { timeout: 30_000 })
    })
  })
