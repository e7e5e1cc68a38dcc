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

    list: ({ to, q, limit }) =>
      db.atomic(() => {
        const address = to?.toLowerCase()
        const needle = q === undefined || q === "" ? undefined : q.toLowerCase()
        const contains = (text: string | null) => text !== null && text.toLowerCase().includes(needle!)
        const newestFirst = [...entries.values()].reverse()
          .filter((entry) => address === undefined || entry.to.some((recipient) => recipient.toLowerCase() === address))
          .filter((entry) => needle === undefined ||
            [entry.subject, entry.from, entry.text, ...entry.to].some(contains))
          // Stable: entries of the same instant keep the later insert first.
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
        return newestFirst.slice(0, limit).map(copyEntry)
      }),

    get: (id) =>
      db.atomic(() => Option.map(Option.fromNullable([...entries.values()].find((entry) => entry.id === id)), copyEntry)),

    clear: () =>
      db.atomic(() => {
        const deleted = entries.size
        for (let key = 1; key <= sequence; key++) entries.delete(key)
        return deleted
      }),
  }
}
