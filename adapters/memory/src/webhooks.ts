/** Webhook endpoints, deliveries and attempts in memory. Fan-out applies core's `subscribes` and `deliveryIdFor`, the
 *  same rules the SQL stores compile into their INSERT … SELECT. */
import {
  type AccountId, type DeliveryOutcome, deliveryIdFor, type FailureStreak, type FanOutEvent, fannedOutDelivery, subscribes, type WebhookAttempt, type WebhookDelivery,
  type WebhookEndpoint, type WebhookRepository,
} from "@mailroom/core"
import { Option } from "effect"
import type { MemoryDb } from "./db.js"

const copyEndpoint = (endpoint: WebhookEndpoint): WebhookEndpoint => structuredClone(endpoint)

const newestFirst = (a: WebhookDelivery, b: WebhookDelivery) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

export const makeWebhookRepository = (db: MemoryDb): WebhookRepository => {
  const endpoints = db.table<string, WebhookEndpoint>()
  const deliveries = db.table<string, WebhookDelivery>()
  const attempts = db.table<string, WebhookAttempt>()

  const endpointOf = (accountId: AccountId, id: string) => {
    const endpoint = endpoints.get(id)
    return endpoint !== undefined && endpoint.accountId === accountId ? endpoint : undefined
  }
  /** The named endpoints of their accounts, each once, in id order. */
  const endpointsOf = (refs: ReadonlyArray<{ readonly accountId: AccountId; readonly endpointId: string }>) =>
    [...new Map(refs.map((ref) => [ref.endpointId, ref])).values()]
      .flatMap((ref) => {
        const endpoint = endpointOf(ref.accountId, ref.endpointId)
        return endpoint === undefined ? [] : [copyEndpoint(endpoint)]
      })
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const storeStreak = (accountId: AccountId, endpointId: string, streak: FailureStreak) => {
    const endpoint = endpointOf(accountId, endpointId)
    if (endpoint !== undefined) endpoints.set(endpointId, { ...endpoint, streak: { ...streak } })
  }
  const deliveriesOf = (endpointId: string) => [...deliveries.values()].filter((d) => d.endpointId === endpointId)

  const record = (attempt: WebhookAttempt, outcome: DeliveryOutcome) => {
    attempts.set(attempt.id, { ...attempt })
    const delivery = deliveries.get(attempt.deliveryId)
    if (delivery === undefined) return
    deliveries.set(delivery.id, {
      ...delivery,
      status: outcome.status,
      attempts: delivery.attempts + 1,
      lastStatusCode: outcome.lastStatusCode,
      lastError: outcome.lastError,
      updatedAt: outcome.at,
      completedAt: outcome.status === "pending" ? null : outcome.at,
    })
  }

  /** One delivery per (event, active endpoint of its account subscribed to its type) not delivered yet. */
  const fanOut = (events: ReadonlyArray<FanOutEvent>, at: Date) => {
    const made: Array<WebhookDelivery> = []
    for (const event of events) {
      for (const endpoint of endpoints.values()) {
        if (endpoint.accountId !== event.accountId || !subscribes(endpoint, event.type)) continue
        if (deliveries.has(deliveryIdFor(event.id, endpoint.id))) continue
        const delivery = fannedOutDelivery(event, endpoint.id, at)
        deliveries.set(delivery.id, delivery)
        made.push(delivery)
      }
    }
    return made
  }

  return {
    insertEndpoint: (endpoint) => db.atomic(() => endpoints.set(endpoint.id, copyEndpoint(endpoint))),

    updateEndpoint: (endpoint) =>
      db.atomic(() => {
        const current = endpointOf(endpoint.accountId, endpoint.id)
        if (current === undefined) return false
        endpoints.set(endpoint.id, { ...copyEndpoint(endpoint), createdAt: current.createdAt })
        return true
      }),

    findEndpoint: (accountId, id) =>
      db.atomic(() => Option.map(Option.fromNullable(endpointOf(accountId, id)), copyEndpoint)),

    listEndpoints: (accountId) =>
      db.atomic(() =>
        [...endpoints.values()]
          .filter((endpoint) => endpoint.accountId === accountId)
          .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
          .map((endpoint) => ({ endpoint: copyEndpoint(endpoint), totalDeliveries: deliveriesOf(endpoint.id).length }))),

    countEndpoints: (accountId) =>
      db.atomic(() => [...endpoints.values()].filter((endpoint) => endpoint.accountId === accountId).length),

    deleteEndpoint: (accountId, id) =>
      db.atomic(() => {
        if (endpointOf(accountId, id) === undefined) return false
        for (const attempt of [...attempts.values()]) if (attempt.endpointId === id) attempts.delete(attempt.id)
        for (const delivery of deliveriesOf(id)) deliveries.delete(delivery.id)
        return endpoints.delete(id)
      }),

    fanOut: (events, at) => db.atomic(() => fanOut(events, at)),

    insertDelivery: (delivery) => db.atomic(() => deliveries.set(delivery.id, { ...delivery })),

    findDelivery: (accountId, id) =>
      db.atomic(() => Option.filter(Option.fromNullable(deliveries.get(id)), (d) => d.accountId === accountId)),

    listDeliveries: (accountId, endpointId, query) =>
      db.atomic(() => {
        const matching = deliveriesOf(endpointId)
          .filter((d) => d.accountId === accountId)
          .filter((d) => query.status === undefined || d.status === query.status)
          .filter((d) => query.eventType === undefined || d.eventType === query.eventType)
          .sort(newestFirst)
        const start = (query.page - 1) * query.limit
        return { deliveries: matching.slice(start, start + query.limit), total: matching.length }
      }),

    findDeliveriesWithEndpoints: (refs) =>
      db.atomic(() =>
        refs.flatMap((ref) => {
          const delivery = deliveries.get(ref.deliveryId)
          if (delivery === undefined || delivery.accountId !== ref.accountId) return []
          const endpoint = endpointOf(ref.accountId, delivery.endpointId)
          return endpoint === undefined ? [] : [{ delivery: { ...delivery }, endpoint: copyEndpoint(endpoint) }]
        })),

    findEndpoints: (refs) => db.atomic(() => endpointsOf(refs)),

    // One writer at a time: reading inside the transaction is the lock.
    lockEndpoints: (refs) => db.atomic(() => endpointsOf(refs)),

    recordAttempts: (records, streaks = []) =>
      db.atomic(() => {
        records.forEach(({ attempt, outcome }) => record(attempt, outcome))
        for (const { accountId, endpointId, streak } of streaks) storeStreak(accountId, endpointId, streak)
      }),

    listAttempts: (accountId, deliveryId) =>
      db.atomic(() =>
        [...attempts.values()]
          .filter((a) => a.accountId === accountId && a.deliveryId === deliveryId)
          .sort((a, b) => a.attempt - b.attempt)),

    attemptStats: (accountId, endpointId, since) =>
      db.atomic(() => {
        const recent = [...attempts.values()].filter((a) =>
          a.accountId === accountId && a.endpointId === endpointId && a.startedAt.getTime() >= since.getTime())
        return { totalDeliveries: recent.length, successfulDeliveries: recent.filter((a) => a.succeeded).length }
      }),

    setStreak: (accountId, endpointId, streak) => db.atomic(() => storeStreak(accountId, endpointId, streak)),

    pendingDeliveries: (afterId, limit) =>
      db.atomic(() =>
        [...deliveries.values()]
          .filter((d) => d.status === "pending" && (afterId === undefined || d.id > afterId) && endpoints.get(d.endpointId)?.active === true)
          .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .slice(0, limit)
          .map((d) => ({ id: d.id, accountId: d.accountId, endpointId: d.endpointId, attempts: d.attempts, updatedAt: d.updatedAt }))),

    purgeAttempts: (before) =>
      db.atomic(() => {
        let purged = 0
        for (const attempt of [...attempts.values()]) {
          if (attempt.startedAt.getTime() < before.getTime()) {
            attempts.delete(attempt.id)
            purged++
          }
        }
        return purged
      }),
  }
}
