/** The dev outbox in memory: entries in insert order, listed newest first. */
import type { DevOutboxEntry, DevOutboxRepository } from "@mailroom/core"
import { Option } from "effect"
import type { MemoryDb } from "./db.js"

const copyEntry = (entry: DevOutboxEntry): DevOutboxEntry => ({
  ...entry,
  to: [...entry.to],
  headers: { ...entry.headers },
  createdAt: new Date(entry.createdAt.getTime()),
})

export const makeDevOutboxRepository = (db: MemoryDb): DevOutboxRepository => {
  // Keyed by insert sequence, so that entries of the same instant list the later insert first.
  const entries = db.table<number, DevOutboxEntry>()
  let sequence = 0
  return {
    insert: (entry) =>
      db.atomic(() => {
        entries.set(++sequence, copyEntry(entry))
      }),

    list: ({ to, limit }) =>
      db.atomic(() => {
        const address = to?.toLowerCase()
        const newestFirst = [...entries.values()].reverse()
          .filter((entry) => address === undefined || entry.to.some((recipient) => recipient.toLowerCase() === address))
          // Stable: entries of the same instant keep the later insert first.
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
        return newestFirst.slice(0, limit).map(copyEntry)
      }),

    findById: (id) =>
      db.atomic(() => {
        const found = [...entries.values()].find((entry) => entry.id === id)
        return found === undefined ? Option.none() : Option.some(copyEntry(found))
      }),
  }
}
