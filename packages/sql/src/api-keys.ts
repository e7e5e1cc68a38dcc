/** The api_keys table behind `Store.apiKeys`. Only the SHA-256 hash of a key is stored, never the key. */
import type { SqlClient } from "@effect/sql"
import { SqlSchema } from "@effect/sql"
import { AccountId, type ApiKey, ApiKeyId, type ApiKeyRepository, KeyMode, Scope } from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { EpochMillis, JsonColumn, toJson, toMillis, toMillisOrNull } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"

const ApiKeyRow = Schema.Struct({
  id: ApiKeyId,
  account_id: AccountId,
  name: Schema.NullOr(Schema.String),
  mode: KeyMode,
  scopes: JsonColumn(Schema.Array(Scope)),
  prefix: Schema.String,
  hash: Schema.String,
  created_at: EpochMillis,
  revoked_at: Schema.NullOr(EpochMillis),
})

const toApiKey = (row: typeof ApiKeyRow.Type): ApiKey => ({
  id: row.id,
  accountId: row.account_id,
  name: row.name,
  mode: row.mode,
  scopes: row.scopes,
  prefix: row.prefix,
  hash: row.hash,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
})

export const makeApiKeyRepository = (sql: SqlClient.SqlClient): ApiKeyRepository => {
  const findByHash = SqlSchema.findOne({
    Request: Schema.String,
    Result: ApiKeyRow,
    execute: (hash) => sql`SELECT * FROM api_keys WHERE hash = ${hash}`,
  })

  return {
    insert: (key) =>
      sql`INSERT INTO api_keys ${sql.insert({
        id: key.id,
        account_id: key.accountId,
        name: key.name,
        mode: key.mode,
        scopes: toJson(key.scopes),
        prefix: key.prefix,
        hash: key.hash,
        created_at: toMillis(key.createdAt),
        revoked_at: toMillisOrNull(key.revokedAt),
      })}`.pipe(Effect.asVoid, orStoreError("apiKeys.insert")),

    findByHash: (hash) =>
      findByHash(hash).pipe(Effect.map(Option.map(toApiKey)), orStoreError("apiKeys.findByHash")),

    // A second revocation keeps the time of the first.
    revoke: (accountId, id, at) =>
      sql`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ${toMillis(at)})
        WHERE account_id = ${accountId} AND id = ${id} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orStoreError("apiKeys.revoke"),
      ),
  }
}
