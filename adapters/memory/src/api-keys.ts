/** API keys in memory, keyed by id, with an index from hash to id for authentication. */
import type { ApiKey, ApiKeyId, ApiKeyRepository } from "@mailroom/core"
import { Option } from "effect"
import type { MemoryDb } from "./db.js"

const copyKey = (key: ApiKey): ApiKey => ({
  ...key,
  scopes: [...key.scopes],
  createdAt: new Date(key.createdAt.getTime()),
  revokedAt: key.revokedAt === null ? null : new Date(key.revokedAt.getTime()),
})

export const makeApiKeyRepository = (db: MemoryDb): ApiKeyRepository => {
  const keys = db.table<ApiKeyId, ApiKey>()
  const idByHash = db.table<string, ApiKeyId>()
  return {
    insert: (key) =>
      db.atomic(() => {
        keys.set(key.id, copyKey(key))
        idByHash.set(key.hash, key.id)
      }),

    findByHash: (hash) =>
      db.atomic(() => {
        const id = idByHash.get(hash)
        return Option.fromNullable(id === undefined ? undefined : keys.get(id)).pipe(Option.map(copyKey))
      }),

    revoke: (accountId, id, at) =>
      db.atomic(() => {
        const key = keys.get(id)
        if (key === undefined || key.accountId !== accountId) return false
        // A second revocation keeps the time of the first.
        if (key.revokedAt === null) keys.set(id, { ...key, revokedAt: new Date(at.getTime()) })
        return true
      }),
  }
}
