/** The tracking_hits and tracking_opened tables behind `Store.tracking`: every recorded open and click, and the mark of
 *  each message and recipient whose open fired email.opened. */
import type { SqlClient } from "@effect/sql"
import {
  hitClassifications, hitKinds, hitSignals, type OpenKey, type TrackingHit, type TrackingRepository,
} from "@mailroom/core"
import { Effect, Schema } from "effect"
import { insertColumns } from "./internal/batch.js"
import { EpochMillis, IntegerColumn } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"

const HitRow = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  message_id: Schema.String,
  recipient: Schema.String,
  kind: Schema.Literal(...hitKinds),
  classification: Schema.Literal(...hitClassifications),
  signal: Schema.Literal(...hitSignals),
  occurred_at: EpochMillis,
  country: Schema.NullOr(Schema.String),
  url: Schema.NullOr(Schema.String),
  position: Schema.NullOr(IntegerColumn),
  campaign_id: Schema.NullOr(Schema.String),
})
const decodeHits = Schema.decodeUnknown(Schema.Array(HitRow))
const OpenedRow = Schema.Struct({ account_id: Schema.String, message_id: Schema.String, recipient: Schema.String })
const decodeOpened = Schema.decodeUnknown(Schema.Array(OpenedRow))

const keyOf = (key: { readonly accountId: string; readonly messageId: string; readonly recipient: string }) =>
  `${key.accountId}\u0000${key.messageId}\u0000${key.recipient}`

export const makeTrackingRepository = (sql: SqlClient.SqlClient): TrackingRepository => {
  const insertHits = insertColumns(sql, "tracking_hits", [
    ["id", "text"], ["account_id", "text"], ["message_id", "text"], ["recipient", "text"], ["kind", "text"],
    ["classification", "text"], ["signal", "text"], ["occurred_at", "bigint"], ["country", "text"], ["url", "text"],
    ["position", "integer"], ["campaign_id", "text"],
  ], "ON CONFLICT (id) DO NOTHING")
  const insertOpened = insertColumns(sql, "tracking_opened", [
    ["account_id", "text"], ["message_id", "text"], ["recipient", "text"], ["opened_at", "bigint"],
  ], "ON CONFLICT (account_id, message_id, recipient) DO NOTHING RETURNING account_id, message_id, recipient")

  return {
    insertHits: (hits) =>
      insertHits(hits.map((hit) => [
        hit.id, hit.accountId, hit.messageId, hit.recipient, hit.kind, hit.classification, hit.signal,
        hit.occurredAt.getTime(), hit.country, hit.url, hit.position, hit.campaignId,
      ])).pipe(Effect.asVoid, orStoreError("tracking.insertHits")),

    markOpened: (keys, at) =>
      Effect.gen(function* () {
        const distinct = [...new Map(keys.map((key) => [keyOf(key), key])).values()]
        if (distinct.length === 0) return []
        const rows = yield* decodeOpened(yield* insertOpened(distinct.map((key) =>
          [key.accountId, key.messageId, key.recipient, at.getTime()])))
        const inserted = new Set(rows.map((row) => keyOf({ accountId: row.account_id, messageId: row.message_id, recipient: row.recipient })))
        return distinct.filter((key): key is OpenKey => inserted.has(keyOf(key)))
      }).pipe(orStoreError("tracking.markOpened")),

    hits: (accountId, messageId) =>
      sql`SELECT * FROM tracking_hits WHERE account_id = ${accountId} AND message_id = ${messageId}
        ORDER BY occurred_at, id`.pipe(
        Effect.flatMap(decodeHits),
        Effect.map((rows) => rows.map((row): TrackingHit => ({
          id: row.id,
          accountId: row.account_id,
          messageId: row.message_id,
          recipient: row.recipient,
          kind: row.kind,
          classification: row.classification,
          signal: row.signal,
          occurredAt: row.occurred_at,
          country: row.country,
          url: row.url,
          position: row.position,
          campaignId: row.campaign_id,
        }))),
        orStoreError("tracking.hits"),
      ),
  }
}
