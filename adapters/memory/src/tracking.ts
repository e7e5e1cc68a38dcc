/** Recorded opens and clicks in memory, and the marks of the opens that fired email.opened. */
import type { OpenKey, TrackingHit, TrackingRepository } from "@mailroom/core"
import type { MemoryDb } from "./db.js"

const keyOf = (key: OpenKey) => `${key.accountId}\u0000${key.messageId}\u0000${key.recipient}`

export const makeTrackingRepository = (db: MemoryDb, hits = db.table<string, TrackingHit>()): TrackingRepository => {
  const opened = db.table<string, Date>()
  return {
    insertHits: (rows) => db.atomic(() => {
      for (const hit of rows) if (!hits.has(hit.id)) hits.set(hit.id, { ...hit, occurredAt: new Date(hit.occurredAt.getTime()) })
    }),
    markOpened: (keys, at) => db.atomic(() => keys.filter((key) => {
      const id = keyOf(key)
      if (opened.has(id)) return false
      opened.set(id, at)
      return true
    })),
    hits: (accountId, messageId) => db.atomic(() =>
      [...hits.values()]
        .filter((hit) => hit.accountId === accountId && hit.messageId === messageId)
        .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((hit) => ({ ...hit, occurredAt: new Date(hit.occurredAt.getTime()) }))),
  }
}
