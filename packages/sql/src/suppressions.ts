/** The suppressions table behind `Store.suppressions`: one row per suppressed address of an account. Bulk writes are
 *  set-based: one statement per chunk of addresses, with the shared reason, details and times bound once. The
 *  send-time eligibility query is compiled by eligibility-sql.ts. */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import {
  AccountId, type EmailAddress, foldText, likePattern, ineligibleReasons, offsetOf, splitEligibility, type Suppression,
  SuppressionId, type SuppressionQuery, SuppressionReason, type SuppressionRepository,
} from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { forEachChunk, maxInList, maxParameters } from "./internal/batch.js"
import { EpochMillis, IntegerColumn, JsonColumn, toJson, toMillis } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"
import { droppedRecipientsSql } from "./eligibility-sql.js"

/** Addresses were validated and lower-cased before they were stored. */
const StoredEmail = Schema.String.pipe(Schema.brand("EmailAddress"))

export const SuppressionRow = Schema.Struct({
  id: SuppressionId,
  account_id: AccountId,
  email: StoredEmail,
  reason: SuppressionReason,
  details: Schema.NullOr(JsonColumn(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  created_at: EpochMillis,
  updated_at: EpochMillis,
})
type SuppressionRow = typeof SuppressionRow.Type
const decodeRows = Schema.decodeUnknown(Schema.Array(SuppressionRow))
const decodePage = Schema.decodeUnknown(Schema.Array(Schema.extend(SuppressionRow, Schema.Struct({ total: IntegerColumn }))))
const decodeTotal = Schema.decodeUnknown(Schema.Array(Schema.Struct({ total: IntegerColumn })))
const decodeUpserted = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String, email: Schema.String })))
const decodeEmails = Schema.decodeUnknown(Schema.Array(Schema.Struct({ email: Schema.String })))
const decodeDropped = Schema.decodeUnknown(Schema.Array(Schema.Struct({
  email: Schema.String,
  reason: Schema.Literal(...ineligibleReasons),
})))

export const suppressionFromRow = (row: SuppressionRow): Suppression => ({
  id: row.id,
  accountId: row.account_id,
  email: row.email,
  reason: row.reason,
  details: row.details,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const toRow = (suppression: Suppression) => ({
  id: suppression.id,
  account_id: suppression.accountId,
  email: suppression.email,
  reason: suppression.reason,
  details: suppression.details === null ? null : toJson(suppression.details),
  created_at: toMillis(suppression.createdAt),
  updated_at: toMillis(suppression.updatedAt),
})

/** Rows per bulk statement: each binds two parameters (id, email) in the VALUES list. */
const rowsPerStatement = Math.floor(maxParameters / 2) - 8

const filterSql = (sql: SqlClient.SqlClient, accountId: AccountId, query: SuppressionQuery): Fragment => {
  const clauses: Array<Fragment> = [sql`account_id = ${accountId}`]
  if (query.reason !== undefined) clauses.push(sql`reason = ${query.reason}`)
  if (query.search !== undefined && query.search !== "") {
    clauses.push(sql`email LIKE ${likePattern(foldText(query.search), "contains")} ESCAPE '\\'`)
  }
  return sql.join(" AND ", false)(clauses)
}

export const makeSuppressionRepository = (sql: SqlClient.SqlClient): SuppressionRepository => {
  const findByEmail = (accountId: AccountId, email: EmailAddress) =>
    sql`SELECT * FROM suppressions WHERE account_id = ${accountId} AND email = ${email}`.pipe(
      Effect.flatMap(decodeRows),
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), suppressionFromRow)),
    )

  return {
    findByEmail: (accountId, email) => findByEmail(accountId, email).pipe(orStoreError("suppressions.findByEmail")),

    put: (suppression) =>
      Effect.gen(function* () {
        const row = toRow(suppression)
        const rows = yield* sql`INSERT INTO suppressions ${sql.insert(row)}
          ON CONFLICT (account_id, email) DO UPDATE
          SET reason = excluded.reason, details = excluded.details, updated_at = excluded.updated_at
          RETURNING *`.pipe(Effect.flatMap(decodeRows))
        const stored = suppressionFromRow(rows[0]!)
        return { suppression: stored, created: stored.id === suppression.id }
      }).pipe(orStoreError("suppressions.put")),

    insertIfAbsent: (suppression) =>
      sql`INSERT INTO suppressions ${sql.insert(toRow(suppression))} ON CONFLICT (account_id, email) DO NOTHING
        RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orStoreError("suppressions.insertIfAbsent"),
      ),

    // One upsert per chunk: the VALUES list carries (id, email), the rest is bound once. An address already
    // suppressed with the same reason is left alone (the WHERE of DO UPDATE), so RETURNING answers the rows inserted
    // (their id is the one given) and the rows updated (their id is the stored one).
    putMany: (suppressions) => {
      const first = suppressions[0]
      if (first === undefined) return Effect.succeed({ added: 0, updated: 0 })
      const byEmail = new Map<string, Suppression>()
      for (const suppression of suppressions) if (!byEmail.has(suppression.email)) byEmail.set(suppression.email, suppression)
      const given = new Set([...byEmail.values()].map((suppression) => suppression.id as string))
      const details = first.details === null ? null : toJson(first.details)
      return forEachChunk(sql, [...byEmail.values()], rowsPerStatement, (chunk) =>
        sql`WITH v (id, email) AS (VALUES ${sql.join(", ", false)(chunk.map((s) => sql`(${s.id}, ${s.email})`))})
          INSERT INTO suppressions (id, account_id, email, reason, details, created_at, updated_at)
          SELECT v.id, ${first.accountId}, v.email, ${first.reason}, ${details},
            CAST(${toMillis(first.createdAt)} AS BIGINT), CAST(${toMillis(first.updatedAt)} AS BIGINT)
          FROM v WHERE true
          ON CONFLICT (account_id, email) DO UPDATE
          SET reason = excluded.reason, details = excluded.details, updated_at = excluded.updated_at
          WHERE suppressions.reason <> excluded.reason
          RETURNING id, email`.pipe(Effect.flatMap(decodeUpserted))).pipe(
        Effect.map((rows) => {
          const added = rows.filter((row) => given.has(row.id)).length
          return { added, updated: rows.length - added }
        }),
        orStoreError("suppressions.putMany"),
      )
    },

    delete: (accountId, email) =>
      sql`DELETE FROM suppressions WHERE account_id = ${accountId} AND email = ${email} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orStoreError("suppressions.delete"),
      ),

    deleteMany: (accountId, emails) =>
      forEachChunk(sql, [...new Set(emails)], maxInList, (chunk) =>
        sql`DELETE FROM suppressions WHERE account_id = ${accountId} AND email IN ${sql.in(chunk)}
          RETURNING email`.pipe(Effect.flatMap(decodeEmails))).pipe(
        Effect.map((rows) => rows.length),
        orStoreError("suppressions.deleteMany"),
      ),

    // One query: the page with the total on every row; an empty page needs a second count only when the page is past
    // the end.
    list: (accountId, query) =>
      Effect.gen(function* () {
        const where = filterSql(sql, accountId, query)
        const rows = yield* sql`SELECT s.*, count(*) OVER () AS total FROM suppressions s WHERE ${where}
          ORDER BY created_at DESC, id DESC LIMIT ${query.limit} OFFSET ${offsetOf(query)}`.pipe(Effect.flatMap(decodePage))
        const total = rows[0]?.total
          ?? (yield* sql`SELECT count(*) AS total FROM suppressions WHERE ${where}`.pipe(Effect.flatMap(decodeTotal)))[0]?.total
          ?? 0
        return { suppressions: rows.map(suppressionFromRow), total }
      }).pipe(orStoreError("suppressions.list")),

    eligibility: (accountId, scope, addresses) =>
      forEachChunk(sql, [...new Set(addresses)], maxInList * 5, (chunk) =>
        droppedRecipientsSql(sql, accountId, scope, chunk).pipe(Effect.flatMap(decodeDropped))).pipe(
        Effect.map((rows) => splitEligibility(addresses, new Map(rows.map((row) => [row.email, row.reason])))),
        orStoreError("suppressions.eligibility"),
      ),
  }
}
