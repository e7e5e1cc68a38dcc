/** Monthly quota counters in memory. A reservation is one atomic step, so concurrent ones never overshoot. */
import type { QuotaRepository } from "@mailroom/core"
import type { MemoryDb } from "./db.js"

export const makeQuotaRepository = (db: MemoryDb): QuotaRepository => {
  const counters = db.table<string, number>()
  const keyOf = (accountId: string, period: string) => `${accountId}\u0000${period}`
  return {
    reserve: (accountId, period, count, limit) =>
      db.atomic(() => {
        const key = keyOf(accountId, period)
        const used = counters.get(key) ?? 0
        if (limit !== null && used + count > limit) return { reserved: false, used }
        counters.set(key, used + count)
        return { reserved: true, used: used + count }
      }),
    used: (accountId, period) => db.atomic(() => counters.get(keyOf(accountId, period)) ?? 0),
  }
}
