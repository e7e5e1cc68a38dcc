/** Automatic delivery through the whole path on the memory backend, under TestClock: a committed event is relayed,
 *  fanned out, queued on the in-process JobQueue and POSTed to a real receiver on 127.0.0.1 by the real delivery job.
 *  The receiver keeps failing, so the queue walks all five retries (30 s, 2 min, 15 min, 1 h, 4 h), each exactly on
 *  time, then the delivery is failed; every attempt is recorded and nothing more is sent. */
import { describe, expect, it } from "@effect/vitest"
import {
  Accounts, Background, BackgroundConfig, IdsLive, SendingConfig, servicesLayer, Store, TrackingConfig, Webhooks,
  WebhooksConfig,
} from "@mailroom/core"
import { MemoryJobQueue, MemoryStore } from "@mailroom/memory"
import { UndiciTransport } from "@mailroom/net"
import { makeCaptureMailer, makeEvent, startWebhookReceiver, testTemplateEngine } from "@mailroom/testing"
import { Clock, Duration, Effect, Exit, Layer, Option, Scope, TestClock } from "effect"
import { Webhook } from "standardwebhooks"

const schedule = ["30 seconds", "2 minutes", "15 minutes", "1 hour", "4 hours"] as const

/** Waits in real time (the receiver and the sockets do not follow TestClock). */
const realSleep = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

const mailer = makeCaptureMailer()
const layer = Layer.fresh(servicesLayer).pipe(Layer.provideMerge(Layer.mergeAll(
  MemoryStore.layer,
  MemoryJobQueue.layer().pipe(Layer.provide(IdsLive)),
  IdsLive,
  mailer.layer,
  testTemplateEngine,
  UndiciTransport.layer(),
  Layer.succeed(WebhooksConfig, { urlRules: { allowPrivate: true } }),
  // The scheduled-send task and the tracking flush run every second; over the hours this test skips, TestClock would
  // run them tens of thousands of times. They have nothing to do here.
  Layer.succeed(SendingConfig, { scheduledPollInterval: Duration.days(2), scheduledBatchSize: 100 }),
  Layer.succeed(TrackingConfig, { flushIntervalMs: Duration.toMillis(Duration.days(2)) }),
)))

describe("automatic webhook delivery under TestClock (memory)", () => {
  it.scoped("walks all five retries on the spec's schedule through the real job, then fails the delivery", () =>
    Effect.gen(function* () {
      // Real time as the start, so that the receiver accepts the first attempt's Standard Webhooks timestamp.
      yield* TestClock.setTime(Date.now())
      const receiver = yield* Effect.acquireRelease(Effect.promise(() => startWebhookReceiver()), (r) => Effect.promise(() => r.close()))
      receiver.answer = () => ({ status: 503, body: "down for maintenance" })
      const store = yield* Store
      const { account } = yield* (yield* Accounts).create({ plan: "pro", ownerEmail: "owner@example.com" })
      const { endpoint, secret } = yield* (yield* Webhooks).create(account, {
        url: `${receiver.origin}/hooks`, events: ["list.member_added"],
      })
      const scope = yield* Scope.make()
      // The relay's poll is made longer than the test: each commit of events wakes it (and TestClock would otherwise
      // run every 200 ms poll of the hours it skips).
      yield* Scope.extend((yield* Background).start, scope).pipe(
        Effect.provideService(BackgroundConfig, { relayBatchSize: 100, relayPollInterval: Duration.days(2), relayMaxBackoff: Duration.seconds(30) }))

      const event = makeEvent({ accountId: account.id, type: "list.member_added", recipient: "ada@example.com" })
      yield* store.transaction(store.events.append([event]))
      const committedAt = yield* Clock.currentTimeMillis
      // The relay wakes on the commit (its poll would need the clock to move) and the job runs at once.
      const [first] = yield* Effect.promise(() => receiver.waitFor(1, 10_000))
      expect(new Webhook(secret).verify(first!.body, first!.headers)).toMatchObject({ eventType: "list.member_added" })
      const deliveryId = first!.headers["webhook-id"]!

      let at = committedAt
      for (const [index, delay] of schedule.entries()) {
        const millis = Duration.toMillis(Duration.decode(delay))
        // A second short of the delay: no attempt yet.
        yield* TestClock.adjust(Duration.millis(millis - 1000))
        yield* realSleep(150)
        expect(receiver.requests.length).toBe(index + 1)
        yield* TestClock.adjust("1 second")
        at += millis
        const requests = yield* Effect.promise(() => receiver.waitFor(index + 2, 10_000))
        const retry = requests[index + 1]!
        // The same delivery (webhook-id), signed again at the time of the attempt.
        expect(retry.headers["webhook-id"]).toBe(deliveryId)
        expect(Number(retry.headers["webhook-timestamp"])).toBe(Math.floor(at / 1000))
        expect(JSON.parse(retry.body)).toEqual(JSON.parse(first!.body))
      }

      // The sixth attempt failed: the delivery is failed, with every attempt recorded.
      let delivery = yield* store.webhooks.findDelivery(account.id, deliveryId)
      for (let i = 0; i < 50 && Option.getOrThrow(delivery).status === "pending"; i++) {
        yield* realSleep(20)
        delivery = yield* store.webhooks.findDelivery(account.id, deliveryId)
      }
      expect(Option.getOrThrow(delivery)).toMatchObject({ endpointId: endpoint.id, status: "failed", attempts: 6, lastStatusCode: 503 })
      const attempts = yield* store.webhooks.listAttempts(account.id, Option.getOrThrow(delivery).id)
      expect(attempts.map((a) => [a.attempt, a.succeeded, a.statusCode, a.responseSnippet])).toEqual(
        Array.from({ length: 6 }, (_, i) => [i + 1, false, 503, "down for maintenance"]))

      // The streak reached the failure threshold (5) once: one notice to the account owner.
      expect(mailer.sentTo("owner@example.com")).toHaveLength(1)

      // Given up: a day later nothing more is sent.
      yield* TestClock.adjust("24 hours")
      yield* realSleep(300)
      expect(receiver.requests.length).toBe(6)
      yield* Scope.close(scope, Exit.void)
    }).pipe(Effect.provide(layer)), { timeout: 60_000 })
})
