/** The app_credentials table behind `Store.appCredentials`: application keys, stored as hashes like API keys. */
import type { SqlClient } from "@effect/sql"
import { SqlSchema } from "@effect/sql"
import { AccountId, type AppCredential, type AppCredentialRepository } from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { EpochMillis, JsonColumn, toJson, toMillis } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"

const AppCredentialRow = Schema.Struct({
  id: Schema.String,
  account_id: AccountId,
  application_key: Schema.String,
  allowed_senders: JsonColumn(Schema.Array(Schema.String)),
  prefix: Schema.String,
  hash: Schema.String,
  created_at: EpochMillis,
})

const toAppCredential = (row: typeof AppCredentialRow.Type): AppCredential => ({
  id: row.id,
  accountId: row.account_id,
  applicationKey: row.application_key,
  allowedSenders: row.allowed_senders,
  prefix: row.prefix,
  hash: row.hash,
  createdAt: row.created_at,
})

export const makeAppCredentialRepository = (sql: SqlClient.SqlClient): AppCredentialRepository => {
  const findByHash = SqlSchema.findOne({
    Request: Schema.String,
    Result: AppCredentialRow,
    execute: (hash) => sql`SELECT * FROM app_credentials WHERE hash = ${hash}`,
  })

  return {
    insert: (credential) =>
      sql`INSERT INTO app_credentials ${sql.insert({
        id: credential.id,
        account_id: credential.accountId,
        application_key: credential.applicationKey,
        allowed_senders: toJson(credential.allowedSenders),
        prefix: credential.prefix,
        hash: credential.hash,
        created_at: toMillis(credential.createdAt),
      })}`.pipe(Effect.asVoid, orStoreError("appCredentials.insert")),

    findByHash: (hash) =>
      findByHash(hash).pipe(Effect.map(Option.map(toAppCredential)), orStoreError("appCredentials.findByHash")),

    ofApplication: (accountId, applicationKey) =>
      sql`SELECT * FROM app_credentials WHERE account_id = ${accountId} AND application_key = ${applicationKey}
        ORDER BY created_at, id`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(AppCredentialRow))),
        Effect.map((rows) => rows.map(toAppCredential)),
        orStoreError("appCredentials.ofApplication"),
      ),
  }
}
