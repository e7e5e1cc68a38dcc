/** Idempotency records in memory, one per account and key; an expired record is replaced by the next save. */
import type { IdempotencyRecord, IdempotencyRepository } from "@mailroom/core"
import { Option } from "effect"
import type { MemoryDb } from "./db.js"

export const makeIdempotencyRepository = (db: MemoryDb): IdempotencyRepository => {
  const records = db.table<string, IdempotencyRecord>()
  const keyOf = (accountId: string, key: string) => `${accountId}\u0000${key}`
  const live = (accountId: string, key: string, notBefore: Date) => {
    const record = records.get(keyOf(accountId, key))
    return record !== undefined && record.createdAt.getTime() >= notBefore.getTime() ? record : undefined
  }
  return {
    find: (accountId, key, notBefore) =>
      db.atomic(() => Option.map(Option.fromNullable(live(accountId, key, notBefore)), (record) => structuredClone(record))),
    save: (record, notBefore) =>
      db.atomic(() => {
        if (live(record.accountId, record.key, notBefore) !== undefined) return false
        records.set(keyOf(record.accountId, record.key), structuredClone(record))
        return true
      }),
  }
}
