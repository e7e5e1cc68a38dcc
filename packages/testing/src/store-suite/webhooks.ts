/** Store contract: webhook endpoints, fan-out to deliveries, attempts, stats and purge. */
import { describe, expect } from "@effect/vitest"
import {
  type AccountId, deliveryIdFor, type FanOutEvent, Store, type WebhookAttempt, type WebhookDelivery, type WebhookEndpoint, type WebhookId,
} from "@mailroom/core"
import { Effect, Option } from "effect"
import { makeWebhookAttempt, makeWebhookDelivery, makeWebhookEndpoint, uniqueText } from "../fixtures.js"
import { at, insertAccount, type StoreTester } from "./support.js"

const time = (date: Date | null) => (date === null ? null : date.getTime())
const comparableEndpoint = (endpoint: WebhookEndpoint) => ({
  ...endpoint,
  events: [...endpoint.events].sort(),
  previousSecretExpiresAt: time(endpoint.previousSecretExpiresAt),
  disabledAt: time(endpoint.disabledAt),
  createdAt: time(endpoint.createdAt),
  updatedAt: time(endpoint.updatedAt),
})

const insertEndpoint = (overrides: Partial<WebhookEndpoint> & { accountId: AccountId }) =>
  Effect.gen(function* () {
    const endpoint = makeWebhookEndpoint(overrides)
    yield* (yield* Store).webhooks.insertEndpoint(endpoint)
    return endpoint
  })

const fanOutEvent = (accountId: AccountId, type: FanOutEvent["type"] = "email.delivered"): FanOutEvent => {
  const id = uniqueText("evt")
  return { id, accountId, type, payload: JSON.stringify({ eventType: type, messageId: id }) }
}

export const webhookTests = (it: StoreTester) => {
  describe("webhooks", () => {
    it.effect("an endpoint reads back as written, and not from another account", () =>
      Effect.gen(function* () {
        const { webhooks } = yield* Store
        const accountId = yield* insertAccount
        const endpoint = yield* insertEndpoint({
          accountId, events: ["email.delivered", "contact.subscribed"], description: "orders",
          sealedPreviousSecret: "sealed_old", previousSecretExpiresAt: at(3600),
          failureSettings: { enabled: false, notifyEmails: ["ops@example.com"], failureThreshold: 3, autoDisableAfter: 9 },
          streak: { consecutiveFailures: 4, notified: true }, disabledReason: "too many failures", disabledAt: at(5),
        })
        const found = Option.getOrThrow(yield* webhooks.findEndpoint(accountId, endpoint.id))
        expect(comparableEndpoint(found)).toEqual(comparableEndpoint(endpoint))
        expect(Option.isNone(yield* webhooks.findEndpoint(yield* insertAccount, endpoint.id))).toBe(true)
        expect(Option.isNone(yield* webhooks.findEndpoint(accountId, "wh_missing"))).toBe(true)
      }))

    it.effect("update replaces the fields and the subscriptions; an unknown or foreign id changes nothing", () =>
      Effect.gen(function* () {
        const { webhooks } = yield* Store
        const accountId = yield* insertAccount
        const endpoint = yield* insertEndpoint({ accountId })
        const next = { ...endpoint, url: "https://other.example.com/", events: ["contact.unsubscribed" as const], active: false, updatedAt: at(9) }
        expect(yield* webhooks.updateEndpoint(next)).toBe(true)
        expect(comparableEndpoint(Option.getOrThrow(yield* webhooks.findEndpoint(accountId, endpoint.id)))).toEqual(comparableEndpoint(next))
        expect(yield* webhooks.updateEndpoint({ ...next, accountId: yield* insertAccount })).toBe(false)
        expect(yield* webhooks.updateEndpoint({ ...next, id: "wh_missing" as WebhookEndpoint["id"] })).toBe(false)
        yield* webhooks.updateEndpoint({ ...next, active: true })
        const made = yield* webhooks.fanOut([fanOutEvent(accountId, "email.delivered"), fanOutEvent(accountId, "contact.unsubscribed")], at(10))
        expect(made.map((d) => d.eventType)).toEqual(["contact.unsubscribed"])
      }))

    it.effect("lists the account's endpoints oldest first with their delivery counts, and counts them", () =>
      Effect.gen(function* () {
        const { webhooks } = yield* Store
        const accountId = yield* insertAccount
        const second = yield* insertEndpoint({ accountId, createdAt: at(2) })
        const first = yield* insertEndpoint({ accountId, createdAt: at(1) })
        yield* insertEndpoint({ accountId: yield* insertAccount })
        yield* webhooks.fanOut([fanOutEvent(accountId), fanOutEvent(accountId)], at(3))
        yield* webhooks.updateEndpoint({ ...first, active: false })
        yield* webhooks.fanOut([fanOutEvent(accountId)], at(4))
        const listed = yield* webhooks.listEndpoints(accountId)
        expect(listed.map((e) => [e.endpoint.id, e.totalDeliveries])).toEqual([[first.id, 2], [second.id, 3]])
        expect(yield* webhooks.countEndpoints(accountId)).toBe(2)
      }))

    it.effect("fan-out makes one delivery per active subscribed endpoint of the event's account, once", () =>
      Effect.gen(function* () {
        const { webhooks } = yield* Store
        const accountId = yield* insertAccount
        const other = yield* insertAccount
        const a = yield* insertEndpoint({ accountId, events: ["email.delivered", "email.bounced"] })
        const b = yield* insertEndpoint({ accountId, events: ["email.delivered"] })
        yield* insertEndpoint({ accountId, events: ["email.delivered"], active: false })
        yield* insertEndpoint({ accountId, events: ["contact.subscribed"] })
        const foreign = yield* insertEndpoint({ accountId: other, events: ["email.bounced"] })
        const delivered = fanOutEvent(accountId, "email.delivered")
        const bounced = fanOutEvent(accountId, "email.bounced")
        const foreignBounce = fanOutEvent(other, "email.bounced")
        const made = yield* webhooks.fanOut([delivered, bounced, foreignBounce], at(7))
        const pairs = made.map((d) => `${d.eventId}>${d.endpointId}`).sort()
        expect(pairs).toEqual([
          `${delivered.id}>${a.id}`, `${delivered.id}>${b.id}`, `${bounced.id}>${a.id}`, `${foreignBounce.id}>${foreign.id}`,
        ].sort())
        const one = made.find((d) => d.eventId === bounced.id)!
        expect(one).toMatchObject({
          id: deliveryIdFor(bounced.id, a.id), accountId, endpointId: a.id, eventType: "email.bounced", kind: "event",
          payload: bounced.payload, status: "pending", attempts: 0, lastStatusCode: null, lastError: null, completedAt: null,
        })
        expect(one.createdAt.getTime()).toBe(at(7).getTime())
        // What fan-out answers is what it stored.
        for (const delivery of made) {
          const stored = Option.getOrThrow(yield* webhooks.findDelivery(delivery.accountId, delivery.id))
          expect(stored).toEqual(delivery)
        }
        expect(yield* webhooks.fanOut([delivered, bounced, foreignBounce], at(8))).toEqual([])
        expect(yield* webhooks.fanOut([], at(8))).toEqual([])
        expect(Option.isSome(yield* webhooks.findDelivery(accountId, one.id))).toBe(true)
        expect(Option.isNone(yield* webhooks.findDelivery(other, one.id))).toBe(true)
      }))

    it.effect("the delivery history pages newest first and filters by status and event type", () =>
      Effect.gen(function* () {
        const { webhooks } = yield* Store
        const accountId = yield* insertAccount
        const endpoint = yield* insertEndpoint({ accountId })
        const deliveries = [
          makeWebhookDelivery({ accountId, endpointId: endpoint.id, createdAt: at(1), status: "succeeded" }),
          makeWebhookDelivery({ accountId, endpointId: endpoint.id, createdAt: at(2), status: "failed", eventType: "email.bounced" }),
          makeWebhookDelivery({ accountId, endpointId: endpoint.id, createdAt: at(3), status: "pending" }),
          makeWebhookDelivery({ accountId, endpointId: endpoint.id, createdAt: at(4), status: "failed" }),
        ]
        for (const delivery of deliveries) yield* webhooks.insertDelivery(delivery)
        const ids = (query: Parameters<typeof webhooks.listDeliveries>[2]) =>
          webhooks.listDeliveries(accountId, endpoint.id, query).pipe(Effect.map((page) => [page.deliveries.map((d) => d.id), page.total]))
        const [d1, d2, d3, d4] = deliveries.map((d) => d.id)
        expect(yield* ids({ page: 1, limit: 3 })).toEqual([[d4, d3, d2], 4])
        expect(yield* ids({ page: 2, limit: 3 })).toEqual([[d1], 4])
        expect(yield* ids({ page: 1, limit: 10, status: "failed" })).toEqual([[d4, d2], 2])
        expect(yield* ids({ page: 1, limit: 10, eventType: "email.bounced" })).toEqual([[d2], 1])
        expect(yield* ids({ page: 1, limit: 10, status: "failed", eventType: "email.delivered" })).toEqual([[d4], 1])
        const foreign = yield* webhooks.listDeliveries(yield* insertAccount, endpoint.id, { page: 1, limit: 10 })
        expect(foreign).toEqual({ deliveries: [], total: 0 })
      }))

    it.effect("recording attempts moves the delivery and feeds the stats since a time", () =>
      Effect.gen(function* () {
        const { webhooks } = yield* Store
        const accountId = yield* insertAccount
        const endpoint = yield* insertEndpoint({ accountId })
        const delivery = makeWebhookDelivery({ accountId, endpointId: endpoint.id })
        yield* webhooks.insertDelivery(delivery)
        const ref = { accountId, endpointId: endpoint.id, deliveryId: delivery.id }
        const failed = makeWebhookAttempt({ ...ref, attempt: 1, succeeded: false, statusCode: 503, responseSnippet: "busy", error: "status 503", startedAt: at(10) })
        yield* webhooks.recordAttempts([{ attempt: failed, outcome: { status: "pending", lastStatusCode: 503, lastError: "status 503", at: at(11) } }])
        const pending = Option.getOrThrow(yield* webhooks.findDelivery(accountId, delivery.id))
        expect(pending).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: 503, lastError: "status 503", completedAt: null })
        const timeout = makeWebhookAttempt({ ...ref, attempt: 2, succeeded: false, statusCode: null, responseSnippet: null, error: "no answer", startedAt: at(40) })
        yield* webhooks.recordAttempts([{ attempt: timeout, outcome: { status: "pending", lastStatusCode: null, lastError: "no answer", at: at(41) } }])
        const ok = makeWebhookAttempt({ ...ref, attempt: 3, startedAt: at(200) })
        yield* webhooks.recordAttempts([{ attempt: ok, outcome: { status: "succeeded", lastStatusCode: 200, lastError: null, at: at(201) } }])
        const done = Option.getOrThrow(yield* webhooks.findDelivery(accountId, delivery.id))
        expect(done).toMatchObject({ status: "succeeded", attempts: 3, lastStatusCode: 200, lastError: null })
        expect(done.completedAt?.getTime()).toBe(at(201).getTime())
        const attempts = yield* webhooks.listAttempts(accountId, delivery.id)
        expect(attempts.map((a) => ({ ...a, startedAt: a.startedAt.getTime() })))
          .toEqual([failed, timeout, ok].map((a) => ({ ...a, startedAt: a.startedAt.getTime() })))
        expect(yield* webhooks.listAttempts(yield* insertAccount, delivery.id)).toEqual([])
        expect(yield* webhooks.attemptStats(accountId, endpoint.id, at(0))).toEqual({ totalDeliveries: 3, successfulDeliveries: 1 })
        expect(yield* webhooks.attemptStats(accountId, endpoint.id, at(40))).toEqual({ totalDeliveries: 2, successfulDeliveries: 1 })
        expect(yield* webhooks.attemptStats(accountId, endpoint.id, at(500))).toEqual({ totalDeliveries: 0, successfulDeliveries: 0 })
      }))

    it.effect("reads many deliveries with their endpoints in one call, only of the accounts named", () =>
      Effect.gen(function* () {
        const { webhooks } = yield* Store
        const accountId = yield* insertAccount
        const other = yield* insertAccount
        const a = yield* insertEndpoint({ accountId, description: "a" })
        const b = yield* insertEndpoint({ accountId, description: "b" })
        const foreign = yield* insertEndpoint({ accountId: other })
        const first = makeWebhookDelivery({ accountId, endpointId: a.id, attempts: 2, lastStatusCode: 503, lastError: "busy" })
        const second = makeWebhookDelivery({ accountId, endpointId: b.id })
        const theirs = makeWebhookDelivery({ accountId: other, endpointId: foreign.id })
        for (const delivery of [first, second, theirs]) yield* webhooks.insertDelivery(delivery)
        const found = yield* webhooks.findDeliveriesWithEndpoints([
          { accountId, deliveryId: second.id },
          { accountId, deliveryId: first.id },
          { accountId, deliveryId: theirs.id },
          { accountId, deliveryId: "whd_missing" },
        ])
        const byId = new Map(found.map((pair) => [pair.delivery.id as string, pair]))
        expect([...byId.keys()].sort()).toEqual([first.id, second.id].sort())
        expect(byId.get(first.id)!.delivery).toEqual(Option.getOrThrow(yield* webhooks.findDelivery(accountId, first.id)))
        expect(byId.get(first.id)!.delivery).toMatchObject({ attempts: 2, lastStatusCode: 503, lastError: "busy", endpointId: a.id })
        expect(comparableEndpoint(byId.get(first.id)!.endpoint)).toEqual(comparableEndpoint(a))
        expect(comparableEndpoint(byId.get(second.id)!.endpoint)).toEqual(comparableEndpoint(b))
        expect(yield* webhooks.findDeliveriesWithEndpoints([])).toEqual([])
        const own = yield* webhooks.findDeliveriesWithEndpoints([{ accountId: other, deliveryId: theirs.id }])
        expect(own.map((pair) => [pair.delivery.id, pair.endpoint.id])).toEqual([[theirs.id, foreign.id]])
      }))

    it.effect("finds the named endpoints of their accounts in id order, each once, as they are now", () =>
      Effect.gen(function* () {
        const { webhooks } = yield* Store
        const accountId = yield* insertAccount
        const other = yield* insertAccount
        const endpoints = [yield* insertEndpoint({ accountId }), yield* insertEndpoint({ accountId })]
        const foreign = yield* insertEndpoint({ accountId: other })
        const disabled = { ...endpoints[1]!, active: false, disabledReason: "by hand", disabledAt: at(5), updatedAt: at(5) }
        expect(yield* webhooks.updateEndpoint(disabled)).toBe(true)
        const found = yield* webhooks.findEndpoints([
          { accountId, endpointId: endpoints[1]!.id },
          { accountId, endpointId: endpoints[0]!.id },
          { accountId, endpointId: endpoints[1]!.id },
          { accountId, endpointId: foreign.id },
          { accountId, endpointId: "wh_missing" },
        ])
        expect(found.map(comparableEndpoint)).toEqual([endpoints[0]!, disabled].sort((x, y) => (x.id < y.id ? -1 : 1)).map(comparableEndpoint))
        expect((yield* webhooks.findEndpoints([{ accountId: other, endpointId: foreign.id }])).map((e) => e.id)).toEqual([foreign.id])
        expect(yield* webhooks.findEndpoints([])).toEqual([])
      }))

    it.effect("locks the named endpoints of their accounts and answers them in id order", () =>
      Effect.gen(function* () {
        const { webhooks, transaction } = yield* Store
        const accountId = yield* insertAccount
        const other = yield* insertAccount
        const endpoints = [yield* insertEndpoint({ accountId }), yield* insertEndpoint({ accountId }), yield* insertEndpoint({ accountId })]
        const foreign = yield* insertEndpoint({ accountId: other })
        const locked = yield* transaction(webhooks.lockEndpoints([
          ...[...endpoints].reverse().map((e) => ({ accountId, endpointId: e.id })),
          { accountId, endpointId: endpoints[0]!.id },
          { accountId, endpointId: foreign.id },
          { accountId, endpointId: "wh_missing" },
        ]))
        expect(locked.map((e) => e.id)).toEqual(endpoints.map((e) => e.id).sort())
        expect(locked.map(comparableEndpoint)).toEqual([...endpoints].sort((x, y) => (x.id < y.id ? -1 : 1)).map(comparableEndpoint))
        expect(yield* webhooks.lockEndpoints([])).toEqual([])
      }))

    it.effect("records many attempts at once, each moving its own delivery", () =>
      Effect.gen(function* () {
        const { webhooks } = yield* Store
        const accountId = yield* insertAccount
        const endpoint = yield* insertEndpoint({ accountId })
        const [ok, retry, failed, untouched] = [0, 1, 2, 3].map(() => makeWebhookDelivery({ accountId, endpointId: endpoint.id, attempts: 1 }))
        for (const delivery of [ok!, retry!, failed!, untouched!]) yield* webhooks.insertDelivery(delivery)
        const attemptOf = (delivery: WebhookDelivery | undefined, fields: Partial<WebhookAttempt>) =>
          makeWebhookAttempt({ accountId, endpointId: endpoint.id, deliveryId: delivery!.id, attempt: 2, startedAt: at(20), ...fields })
        const records = [
          { attempt: attemptOf(ok, {}), outcome: { status: "succeeded" as const, lastStatusCode: 200, lastError: null, at: at(21) } },
          { attempt: attemptOf(retry, { succeeded: false, statusCode: 503, error: "status 503" }), outcome: { status: "pending" as const, lastStatusCode: 503, lastError: "status 503", at: at(22) } },
          { attempt: attemptOf(failed, { succeeded: false, statusCode: null, responseSnippet: null, error: "no answer" }), outcome: { status: "failed" as const, lastStatusCode: null, lastError: "no answer", at: at(23) } },
        ]
        yield* webhooks.recordAttempts(records)
        yield* webhooks.recordAttempts([])
        const read = (id: string) => Effect.map(webhooks.findDelivery(accountId, id), Option.getOrThrow)
        const done = yield* read(ok!.id)
        expect(done).toMatchObject({ status: "succeeded", attempts: 2, lastStatusCode: 200, lastError: null })
        expect(done.updatedAt.getTime()).toBe(at(21).getTime())
        expect(done.completedAt?.getTime()).toBe(at(21).getTime())
        const pending = yield* read(retry!.id)
        expect(pending).toMatchObject({ status: "pending", attempts: 2, lastStatusCode: 503, lastError: "status 503", completedAt: null })
        const gaveUp = yield* read(failed!.id)
        expect(gaveUp).toMatchObject({ status: "failed", attempts: 2, lastStatusCode: null, lastError: "no answer" })
        expect(gaveUp.completedAt?.getTime()).toBe(at(23).getTime())
        expect(yield* read(untouched!.id)).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: null })
        for (const { attempt } of records) {
          expect((yield* webhooks.listAttempts(accountId, attempt.deliveryId)).map((a) => ({ ...a, startedAt: a.startedAt.getTime() })))
            .toEqual([{ ...attempt, startedAt: attempt.startedAt.getTime() }])
        }
        expect(yield* webhooks.attemptStats(accountId, endpoint.id, at(0))).toEqual({ totalDeliveries: 3, successfulDeliveries: 1 })
      }))

    it.effect("records attempts and sets endpoints' streaks in one write, only for endpoints of the named account", () =>
      Effect.gen(function* () {
        const { webhooks } = yield* Store
        const accountId = yield* insertAccount
        const other = yield* insertAccount
        const [moved, unchanged] = [yield* insertEndpoint({ accountId }), yield* insertEndpoint({ accountId })]
        const foreign = yield* insertEndpoint({ accountId: other })
        yield* webhooks.setStreak(accountId, moved.id, { consecutiveFailures: 4, notified: true })
        yield* webhooks.setStreak(other, foreign.id, { consecutiveFailures: 2, notified: false })
        const delivery = makeWebhookDelivery({ accountId, endpointId: moved.id })
        yield* webhooks.insertDelivery(delivery)
        const attempt = makeWebhookAttempt({ accountId, endpointId: moved.id, deliveryId: delivery.id, attempt: 1, startedAt: at(30) })
        yield* webhooks.recordAttempts([{ attempt, outcome: { status: "succeeded", lastStatusCode: 200, lastError: null, at: at(31) } }], [
          { accountId, endpointId: moved.id, streak: { consecutiveFailures: 0, notified: false } },
          { accountId, endpointId: unchanged.id, streak: { consecutiveFailures: 0, notified: false } },
          // Named with the wrong account: left alone.
          { accountId, endpointId: foreign.id, streak: { consecutiveFailures: 9, notified: true } },
          { accountId, endpointId: "wh_missing" as WebhookId, streak: { consecutiveFailures: 9, notified: true } },
        ])
        const streakOf = (account: AccountId, id: string) => Effect.map(webhooks.findEndpoint(account, id), (found) => Option.getOrThrow(found).streak)
        expect(yield* streakOf(accountId, moved.id)).toEqual({ consecutiveFailures: 0, notified: false })
        expect(yield* streakOf(accountId, unchanged.id)).toEqual({ consecutiveFailures: 0, notified: false })
        expect(yield* streakOf(other, foreign.id)).toEqual({ consecutiveFailures: 2, notified: false })
        expect(Option.getOrThrow(yield* webhooks.findDelivery(accountId, delivery.id))).toMatchObject({ status: "succeeded", attempts: 1, lastStatusCode: 200 })
        expect((yield* webhooks.listAttempts(accountId, delivery.id)).map((a) => a.id)).toEqual([attempt.id])
        // A streak set to a failure count, with no attempt to record.
        yield* webhooks.recordAttempts([], [{ accountId, endpointId: unchanged.id, streak: { consecutiveFailures: 3, notified: true } }])
        expect(yield* streakOf(accountId, unchanged.id)).toEqual({ consecutiveFailures: 3, notified: true })
      }))

    it.effect("sets the failure streak", () =>
      Effect.gen(function* () {
        const { webhooks } = yield* Store
        const accountId = yield* insertAccount
        const endpoint = yield* insertEndpoint({ accountId })
        yield* webhooks.setStreak(accountId, endpoint.id, { consecutiveFailures: 6, notified: true })
        expect(Option.getOrThrow(yield* webhooks.findEndpoint(accountId, endpoint.id, { forUpdate: true })).streak)
          .toEqual({ consecutiveFailures: 6, notified: true })
      }))

    it.effect("deleting an endpoint deletes its deliveries and attempts, and only its own", () =>
      Effect.gen(function* () {
        const { webhooks } = yield* Store
        const accountId = yield* insertAccount
        const endpoint = yield* insertEndpoint({ accountId })
        const kept = yield* insertEndpoint({ accountId })
        const [gone, stays] = yield* webhooks.fanOut([fanOutEvent(accountId)], at(1)).pipe(
          Effect.map((made) => [made.find((d) => d.endpointId === endpoint.id)!, made.find((d) => d.endpointId === kept.id)!]))
        yield* webhooks.recordAttempts([{
          attempt: makeWebhookAttempt({ accountId, endpointId: endpoint.id, deliveryId: gone!.id }),
          outcome: { status: "succeeded", lastStatusCode: 200, lastError: null, at: at(2) },
        }])
        expect(yield* webhooks.deleteEndpoint(yield* insertAccount, endpoint.id)).toBe(false)
        expect(yield* webhooks.deleteEndpoint(accountId, endpoint.id)).toBe(true)
        expect(yield* webhooks.deleteEndpoint(accountId, endpoint.id)).toBe(false)
        expect(Option.isNone(yield* webhooks.findDelivery(accountId, gone!.id))).toBe(true)
        expect(yield* webhooks.listAttempts(accountId, gone!.id)).toEqual([])
        expect(Option.isSome(yield* webhooks.findDelivery(accountId, stays!.id))).toBe(true)
      }))

    it.effect("purge deletes the attempts started before a time, of every account", () =>
      Effect.gen(function* () {
        const { webhooks } = yield* Store
        const accountId = yield* insertAccount
        const endpoint = yield* insertEndpoint({ accountId })
        const delivery = makeWebhookDelivery({ accountId, endpointId: endpoint.id })
        yield* webhooks.insertDelivery(delivery)
        const ref = { accountId, endpointId: endpoint.id, deliveryId: delivery.id }
        const outcome = { status: "pending" as const, lastStatusCode: 500, lastError: "status 500", at: at(1) }
        // Far in the past, so that attempts of other tests sharing the database are not counted.
        const old = new Date(Date.UTC(1990, 0, 1))
        const newer = new Date(Date.UTC(1990, 0, 2))
        yield* webhooks.recordAttempts([{ attempt: makeWebhookAttempt({ ...ref, attempt: 1, startedAt: old }), outcome }])
        yield* webhooks.recordAttempts([{ attempt: makeWebhookAttempt({ ...ref, attempt: 2, startedAt: newer }), outcome }])
        // Another account's endpoint, with an old attempt too.
        const otherAccount = yield* insertAccount
        const otherEndpoint = yield* insertEndpoint({ accountId: otherAccount })
        const otherDelivery = makeWebhookDelivery({ accountId: otherAccount, endpointId: otherEndpoint.id })
        yield* webhooks.insertDelivery(otherDelivery)
        yield* webhooks.recordAttempts([{ attempt: makeWebhookAttempt({ accountId: otherAccount, endpointId: otherEndpoint.id, deliveryId: otherDelivery.id, attempt: 1, startedAt: old }), outcome }])
        expect(yield* webhooks.purgeAttempts(new Date(Date.UTC(1990, 0, 1, 12)))).toBe(2)
        expect((yield* webhooks.listAttempts(accountId, delivery.id)).map((a) => a.attempt)).toEqual([2])
        expect(yield* webhooks.listAttempts(otherAccount, otherDelivery.id)).toEqual([])
      }))
  })
}
