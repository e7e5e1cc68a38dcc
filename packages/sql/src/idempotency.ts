/** Idempotency records of the sending routes behind `Store.idempotency`: one per account and key, replaced once it
 *  has expired. */
import type { SqlClient } from "@effect/sql"
import { AccountId, type IdempotencyRecord, type IdempotencyRepository } from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { EpochMillis, IntegerColumn, JsonColumn, toJson, toMillis } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"

const RecordRow = Schema.Struct({
  account_id: AccountId,
  key: Schema.String,
  route: Schema.String,
  body_hash: Schema.String,
  status: IntegerColumn,
  response: JsonColumn(Schema.Unknown),
  created_at: EpochMillis,
})
const decodeRows = Schema.decodeUnknown(Schema.Array(RecordRow))

export const makeIdempotencyRepository = (sql: SqlClient.SqlClient): IdempotencyRepository => ({
  find: (accountId, key, notBefore) =>
    sql`SELECT account_id, key, route, body_hash, status, response, created_at FROM idempotency_keys
      WHERE account_id = ${accountId} AND key = ${key} AND created_at >= ${toMillis(notBefore)}`.pipe(
      Effect.flatMap(decodeRows),
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row): IdempotencyRecord => ({
        accountId: row.account_id,
        key: row.key,
        route: row.route,
        bodyHash: row.body_hash,
        status: row.status,
        response: row.response,
        createdAt: row.created_at,
      }))),
      orStoreError("idempotency.find"),
    ),

  // One statement: insert, or take over the row only when it has expired. A live row makes the statement write
  // nothing, and RETURNING answers no row.
  save: (record, notBefore) =>
    sql<{ readonly key: string }>`INSERT INTO idempotency_keys (account_id, key, route, body_hash, status, response, created_at)
      VALUES (${record.accountId}, ${record.key}, ${record.route}, ${record.bodyHash}, ${record.status},
        ${toJson(record.response)}, ${toMillis(record.createdAt)})
      ON CONFLICT (account_id, key) DO UPDATE SET route = excluded.route, body_hash = excluded.body_hash,
        status = excluded.status, response = excluded.response, created_at = excluded.created_at
      WHERE idempotency_keys.created_at < ${toMillis(notBefore)}
      RETURNING key`.pipe(
      Effect.map((rows) => rows.length === 1),
      orStoreError("idempotency.save"),
    ),
})
