/** The dev_outbox tables behind `Store.devOutbox`: each kept message, and its envelope recipients lower-cased for the
 *  `to` filter. */
import type { SqlClient } from "@effect/sql"
import type { DevOutboxEntry, DevOutboxRepository } from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { insertRows } from "./internal/batch.js"
import { EpochMillis, JsonColumn, toJson, toMillis } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"

const EntryRow = Schema.Struct({
  id: Schema.String,
  from_address: Schema.String,
  recipients: JsonColumn(Schema.Array(Schema.String)),
  subject: Schema.String,
  html_body: Schema.NullOr(Schema.String),
  text_body: Schema.NullOr(Schema.String),
  headers: JsonColumn(Schema.Record({ key: Schema.String, value: Schema.String })),
  raw: Schema.NullOr(Schema.String),
  created_at: EpochMillis,
})
const decodeEntryRows = Schema.decodeUnknown(Schema.Array(EntryRow))

const toEntry = (row: typeof EntryRow.Type): DevOutboxEntry => ({
  id: row.id,
  from: row.from_address,
  to: row.recipients,
  subject: row.subject,
  html: row.html_body,
  text: row.text_body,
  headers: row.headers,
  raw: row.raw,
  createdAt: row.created_at,
})

/** The `q` filter: a substring of the subject, From, an envelope recipient (stored lower-cased) or the text body,
 *  whatever the case of its ASCII letters. Only A-Z fold, on both dialects and whatever the database's locale:
 *  SQLite's LOWER folds ASCII only, and Postgres's does the same under the "C" collation (under tr-TR, LOWER('I') is
 *  'ı'). `!` escapes LIKE's wildcards in the searched text, so that `%` and `_` match themselves. */
const searchCondition = (sql: SqlClient.SqlClient, q: string) => {
  const pattern = `%${asciiLower(q).replace(/[!%_]/g, (c) => `!${c}`)}%`
  const lower = (column: string) =>
    sql.literal(sql.onDialectOrElse({ pg: () => `LOWER(${column} COLLATE "C")`, orElse: () => `LOWER(${column})` }))
  return sql`(${lower("subject")} LIKE ${pattern} ESCAPE '!' OR ${lower("from_address")} LIKE ${pattern} ESCAPE '!'
    OR ${lower("text_body")} LIKE ${pattern} ESCAPE '!'
    OR id IN (SELECT entry_id FROM dev_outbox_recipients WHERE address LIKE ${pattern} ESCAPE '!'))`
}

const asciiLower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase())

export const makeDevOutboxRepository = (sql: SqlClient.SqlClient): DevOutboxRepository => ({
  insert: (entry) =>
    sql.withTransaction(Effect.gen(function* () {
      yield* sql`INSERT INTO dev_outbox ${sql.insert({
        id: entry.id,
        from_address: entry.from,
        recipients: toJson(entry.to),
        subject: entry.subject,
        html_body: entry.html,
        text_body: entry.text,
        headers: toJson(entry.headers),
        raw: entry.raw ?? null,
        created_at: toMillis(entry.createdAt),
      })}`
      const addresses = [...new Set(entry.to.map((address) => address.toLowerCase()))]
      yield* insertRows(sql, "dev_outbox_recipients", addresses.map((address) => ({ entry_id: entry.id, address })))
    })).pipe(orStoreError("devOutbox.insert")),

  list: ({ to, q, limit }) => {
    const conditions = [
      ...(to === undefined ? [] : [sql`id IN (SELECT entry_id FROM dev_outbox_recipients WHERE address = ${to.toLowerCase()})`]),
      ...(q === undefined || q === "" ? [] : [searchCondition(sql, q)]),
    ]
    return sql`SELECT id, from_address, recipients, subject, html_body, text_body, headers, raw, created_at FROM dev_outbox
      ${conditions.length === 0 ? sql.literal("") : sql`WHERE ${sql.and(conditions)}`}
      ORDER BY created_at DESC, seq DESC
      LIMIT ${limit}`.pipe(
      Effect.flatMap(decodeEntryRows),
      Effect.map((rows) => rows.map(toEntry)),
      orStoreError("devOutbox.list"),
    )
  },

  get: (id) =>
    sql`SELECT id, from_address, recipients, subject, html_body, text_body, headers, raw, created_at FROM dev_outbox
      WHERE id = ${id}`.pipe(
      Effect.flatMap(decodeEntryRows),
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toEntry)),
      orStoreError("devOutbox.get"),
    ),

  clear: () =>
    sql.withTransaction(Effect.gen(function* () {
      yield* sql`DELETE FROM dev_outbox_recipients`
      const deleted = yield* sql<{ id: string }>`DELETE FROM dev_outbox RETURNING id`
      return deleted.length
    })).pipe(orStoreError("devOutbox.clear")),
})
