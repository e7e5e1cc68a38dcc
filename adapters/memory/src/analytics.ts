/** Analytics in memory: raw entries, hourly rollups (core's rollupRowsOf, as the SQL backend writes them) and first
 *  marks. */
import {
  allCategories, type AnalyticsEntry, type AnalyticsRepository, type FirstKey, firstKeyOf, rollupKey, type RollupRow,
  rollupRowsOf, type RollupSum,
} from "@mailroom/core"
import type { MemoryDb } from "./db.js"
import type { MessageTable } from "./messages.js"

const copyEntry = (entry: AnalyticsEntry): AnalyticsEntry => ({ ...entry, categories: [...entry.categories], occurredAt: new Date(entry.occurredAt.getTime()) })

export const makeAnalyticsRepository = (db: MemoryDb, messages: MessageTable): AnalyticsRepository => {
  const entries = db.table<string, AnalyticsEntry>()
  const rollups = db.table<string, RollupRow>()
  const firsts = db.table<string, { readonly id: string; readonly at: number }>()
  const addRollups = (rows: ReadonlyArray<RollupRow>) => {
    for (const row of rows) {
      const key = rollupKey(row)
      const found = rollups.get(key)
      rollups.set(key, found === undefined ? { ...row } : { ...found, count: found.count + row.count })
    }
  }
  return {
    categoriesOf: (ids) => db.atomic(() => {
      const found = new Map<string, ReadonlyArray<string>>()
      for (const id of ids) {
        const message = messages.get(id)
        if (message !== undefined) found.set(id, [...message.content.categories])
      }
      return found
    }),
    markFirsts: (keys) => db.atomic(() => {
      const answered: Array<FirstKey> = []
      for (const key of keys) {
        const id = firstKeyOf(key)
        if (firsts.has(id)) continue
        firsts.set(id, { id, at: key.at.getTime() })
        answered.push({ accountId: key.accountId, messageId: key.messageId, recipient: key.recipient, kind: key.kind })
      }
      return answered
    }),
    record: (batch) => db.atomic(() => {
      const fresh: Array<AnalyticsEntry> = []
      for (const entry of batch) {
        if (entries.has(entry.id)) continue
        entries.set(entry.id, copyEntry(entry))
        fresh.push(entry)
      }
      addRollups(rollupRowsOf(fresh))
      return fresh.length
    }),
    addRollups: (rows) => db.atomic(() => addRollups(rows)),
    sums: (accountId, query) => db.atomic(() => {
      const categories = new Set(query.categories ?? [allCategories])
      const metrics = query.metrics === undefined ? undefined : new Set<string>(query.metrics)
      const sums = new Map<string, { -readonly [K in keyof RollupSum]: RollupSum[K] }>()
      for (const row of rollups.values()) {
        if (row.accountId !== accountId || !categories.has(row.category)) continue
        if (row.hour < query.from.getTime() || row.hour >= query.to.getTime()) continue
        if (metrics !== undefined && !metrics.has(row.metric)) continue
        if (query.country !== undefined && row.country !== query.country) continue
        if (query.knownCountry === true && row.country === "") continue
        const sum: { -readonly [K in keyof RollupSum]: RollupSum[K] } = { metric: row.metric, count: 0 }
        for (const dimension of query.groupBy) sum[dimension] = row[dimension] as never
        const key = JSON.stringify([sum.metric, sum.hour, sum.category, sum.domain, sum.country])
        const found = sums.get(key) ?? sum
        found.count += row.count
        sums.set(key, found)
      }
      return [...sums.values()]
    }),
    entries: (accountId, from, to) => db.atomic(() =>
      [...entries.values()]
        .filter((e) => e.accountId === accountId && e.occurredAt >= from && e.occurredAt < to)
        .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map(copyEntry)),
    prune: (raw, before) => db.atomic(() => {
      let removedEntries = 0
      let removedRollups = 0
      for (const entry of [...entries.values()]) if (entry.occurredAt < raw) { entries.delete(entry.id); removedEntries++ }
      for (const first of [...firsts.values()]) if (first.at < raw.getTime()) firsts.delete(first.id)
      for (const row of [...rollups.values()]) if (row.hour < before.getTime()) { rollups.delete(rollupKey(row)); removedRollups++ }
      return { entries: removedEntries, rollups: removedRollups }
    }),
  }
}
