/** The event outbox in memory: each account's events in append order, listed by time of occurrence. */
import type { AccountId, DomainEvent, EventOutbox } from "@mailroom/core"
import type { MemoryDb, MemoryTable } from "./db.js"

const copyEvent = (event: DomainEvent): DomainEvent => ({
  ...event,
  details: structuredClone(event.details),
  occurredAt: new Date(event.occurredAt.getTime()),
})

export const makeEventOutbox = (db: MemoryDb): EventOutbox => {
  const accounts = db.table<AccountId, MemoryTable<string, DomainEvent>>()
  const eventsOf = (accountId: AccountId) => {
    const existing = accounts.get(accountId)
    if (existing !== undefined) return existing
    const created = db.table<string, DomainEvent>()
    accounts.set(accountId, created)
    return created
  }
  return {
    append: (events) =>
      db.atomic(() => {
        for (const event of events) eventsOf(event.accountId).set(event.id, copyEvent(event))
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
  }
}
