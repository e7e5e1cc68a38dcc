/** Recording analytics: outbox events (sent, delivered, bounced, deferred, complaints, unsubscribes) through an
 *  outbox consumer, whose writes commit with the move of its cursor (the same durable batch), and tracking hits in
 *  the Tracking service's batch transaction. Both record raw entries and add them to the hourly rollups in the same
 *  transaction (Store.analytics.record). Retention: a pruning task every hour (docs/analytics.md, "Retention"). */
import { Clock, Effect } from "effect"
import {
  entriesOfEvents, entriesOfHits, firstCandidates, firstKeyOf, messageIdsOfEvents, retentionCutoffs,
} from "../domain/analytics.js"
import type { DomainEvent } from "../domain/event.js"
import type { TrackingHit } from "../domain/tracking.js"
import type { StoreError } from "../errors.js"
import { Store } from "../ports/store.js"

const noCategories: ReadonlyArray<string> = []

/** Records the analytics of outbox events; idempotent (an event's entry is kept once). */
export const recordEventAnalytics = (events: ReadonlyArray<DomainEvent>): Effect.Effect<void, StoreError, Store> =>
  Effect.gen(function* () {
    const store = yield* Store
    const categories = yield* store.analytics.categoriesOf(messageIdsOfEvents(events))
    const entries = entriesOfEvents(events, (id) => categories.get(id) ?? noCategories)
    if (entries.length > 0) yield* store.analytics.record(entries)
  })

/** Records the analytics of tracking hits, in the caller's transaction: every hit, and the first open and click of
 *  each message and recipient by a person as unique. */
export const recordHitAnalytics = (hits: ReadonlyArray<TrackingHit>): Effect.Effect<void, StoreError, Store> =>
  Effect.gen(function* () {
    if (hits.length === 0) return
    const store = yield* Store
    const firsts = yield* store.analytics.markFirsts(firstCandidates(hits))
    const categories = yield* store.analytics.categoriesOf([...new Set(hits.map((hit) => hit.messageId))])
    yield* store.analytics.record(entriesOfHits(hits, new Set(firsts.map(firstKeyOf)), (id) => categories.get(id) ?? noCategories))
  })

/** Deletes raw entries past 90 days and rollups past 13 months. */
export const pruneAnalytics: Effect.Effect<{ readonly entries: number; readonly rollups: number }, StoreError, Store> =
  Effect.gen(function* () {
    const store = yield* Store
    const cutoffs = retentionCutoffs(new Date(yield* Clock.currentTimeMillis))
    return yield* store.analytics.prune(cutoffs.raw, cutoffs.rollups)
  })
