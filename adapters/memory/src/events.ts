/** The event outbox in memory: events in one global order (the order their transactions committed: the memory
 *  database runs one writer at a time), listed per account by time of occurrence, and relayed to consumers in order
 *  from a cursor each. */
import { type AccountId, type DomainEvent, type EventOutbox, relayPassWindow } from "@mailroom/core"
import { makeKindWakeSignals } from "@mailroom/core/internal"
import { Effect } from "effect"
import type { MemoryDb, MemoryTable } from "./db.js"

const copyEvent = (event: DomainEvent): DomainEvent => ({
  ...event,
  details: structuredClone(event.details),
  occurredAt: new Date(event.occurredAt.getTime()),
})

export const makeEventOutbox = (db: MemoryDb): EventOutbox => {
  /** Every event by its place in the order. The counter is not rolled back: a rolled-back transaction leaves a gap. */
  const log = db.table<number, DomainEvent>()
  let nextSeq = 1
  /** Each account's events by id, in append order. */
  const accounts = db.table<AccountId, MemoryTable<string, DomainEvent>>()
  /** The last seq relayed to each consumer. */
  const cursors = db.table<string, number>()
  const appended = makeKindWakeSignals()
  const eventsOf = (accountId: AccountId) => {
    const existing = accounts.get(accountId)
    if (existing !== undefined) return existing
    const created = db.table<string, DomainEvent>()
    accounts.set(accountId, created)
    return created
  }
  /** Up to `size` events after the seq `after`, with their seqs. Seqs are handed out in increasing order, so the log's
   *  insertion order is seq order. */
  const eventsAfter = (after: number, size: number) => {
    const events: Array<[number, DomainEvent]> = []
    for (let seq = after + 1; seq < nextSeq && events.length < size; seq++) {
      const event = log.get(seq)
      if (event !== undefined) events.push([seq, event])
    }
    return events
  }

  return {
    append: (events) =>
      db.atomic(() => {
        for (const event of events) {
          const copy = copyEvent(event)
          eventsOf(event.accountId).set(event.id, copy)
          log.set(nextSeq++, copy)
        }
        if (events.length > 0) db.onCommit(() => appended.wake(events.map((event) => event.type)))
      }),

    list: (accountId, options = {}) =>
      db.atomic(() => {
        const { type, limit } = options
        // Array.prototype.sort is stable, so events of the same instant stay in append order.
        const events = [...(accounts.get(accountId)?.values() ?? [])]
          .filter((event) => type === undefined || event.type === type)
          .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime())
        return (limit === undefined ? events : events.slice(0, limit)).map(copyEvent)
      }),

    relay: (consumer, limit, handle, types) =>
      db.transaction(Effect.gen(function* () {
        const after = cursors.get(consumer) ?? 0
        const window = (size: number) => eventsAfter(after, size)
        const isWanted = ([, event]: [number, DomainEvent]) => types === undefined || types.includes(event.type)
        /** A consumer of some types passes a larger window at once when it holds none of them. */
        const passWindow = () => {
          const wide = window(Math.max(limit, relayPassWindow))
          return wide.some(isWanted) ? wide.slice(0, limit) : wide
        }
        const batch = types === undefined ? window(limit) : passWindow()
        const last = batch.at(-1)
        if (last === undefined) return 0
        const wanted = batch.filter(isWanted)
        if (types === undefined || wanted.length > 0) yield* handle(wanted.map(([, event]) => copyEvent(event)))
        cursors.set(consumer, last[0])
        return batch.length
      })),

    appended: appended.next,
  }
}
