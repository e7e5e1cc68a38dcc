/** The contact_lists table behind `Store.lists`. contactCount is computed, never stored: current memberships of a
 *  STATIC list, contacts matching the rules of a DYNAMIC one (compiled by segment-sql). A page of lists costs at most
 *  three queries: the count, the page, and one UNION ALL counting the matches of every DYNAMIC list on the page. */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import {
  AccountId, type ContactList, foldNullable, foldText, likePattern, ListId, type ListQuery, type ListRepository, ListType, offsetOf, SegmentRules,
} from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { EpochMillis, IntegerColumn, JsonColumn, toJson, toMillis, toMillisOrNull } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"
import { rowLock } from "./internal/row-lock.js"
import { segmentSql } from "./segment-sql.js"

/** A boolean column: BOOLEAN in Postgres, INTEGER 0/1 in SQLite. */
export const BooleanColumn = Schema.Union(
  Schema.Boolean,
  Schema.transform(IntegerColumn, Schema.Boolean, { strict: true, decode: (n) => n !== 0, encode: (b) => (b ? 1 : 0) }),
)

/** The value to bind for a boolean column: better-sqlite3 binds no booleans. */
export const booleanParam = (sql: SqlClient.SqlClient, value: boolean): boolean | number =>
  sql.onDialectOrElse({ pg: () => value, orElse: () => (value ? 1 : 0) })

const ListRow = Schema.Struct({
  id: ListId,
  account_id: AccountId,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  type: ListType,
  segment_rules: Schema.NullOr(JsonColumn(SegmentRules)),
  suppression_group_id: Schema.NullOr(Schema.String),
  tracking_enabled: BooleanColumn,
  is_archived: BooleanColumn,
  created_at: EpochMillis,
  updated_at: EpochMillis,
  last_synced_at: Schema.NullOr(EpochMillis),
})
type ListRow = typeof ListRow.Type

const fromRow = (row: ListRow): ContactList => ({
  id: row.id,
  accountId: row.account_id,
  name: row.name,
  description: row.description,
  type: row.type,
  segmentRules: row.segment_rules,
  suppressionGroupId: row.suppression_group_id,
  trackingEnabled: row.tracking_enabled,
  isArchived: row.is_archived,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  lastSyncedAt: row.last_synced_at,
})

const decodeLists = Schema.decodeUnknown(Schema.Array(Schema.extend(ListRow, Schema.Struct({ contact_count: IntegerColumn }))))
const decodeList = Schema.decodeUnknown(Schema.Array(ListRow))
const decodeTotal = Schema.decodeUnknown(Schema.Array(Schema.Struct({ total: IntegerColumn })))
const decodeMatchCounts = Schema.decodeUnknown(Schema.Array(Schema.Struct({ list_id: Schema.String, matches: IntegerColumn })))
const decodeMemberCounts = Schema.decodeUnknown(Schema.Array(Schema.Struct({
  all_rows: IntegerColumn,
  current_rows: Schema.NullOr(IntegerColumn),
})))

/** The columns that `update` rewrites: all but id, account_id, type and created_at. */
const mutableColumns = (sql: SqlClient.SqlClient, list: ContactList) => ({
  name: list.name,
  name_folded: foldText(list.name),
  description: list.description,
  description_folded: foldNullable(list.description),
  segment_rules: list.segmentRules === null ? null : toJson(list.segmentRules),
  suppression_group_id: list.suppressionGroupId,
  tracking_enabled: booleanParam(sql, list.trackingEnabled),
  is_archived: booleanParam(sql, list.isArchived),
  updated_at: toMillis(list.updatedAt),
  last_synced_at: toMillisOrNull(list.lastSyncedAt),
})

/** The conditions selecting the account's lists (alias `l`) that match `query` (core's matchesListQuery). */
const listFilter = (sql: SqlClient.SqlClient, accountId: AccountId, query: ListQuery): Fragment => {
  const clauses: Array<Fragment> = [
    sql`l.account_id = ${accountId}`,
    sql`l.is_archived = ${booleanParam(sql, query.isArchived)}`,
  ]
  if (query.type !== "ALL") clauses.push(sql`l.type = ${query.type}`)
  if (query.search !== undefined && query.search !== "") {
    // The folded columns of core's listSearchText, compared with core's LIKE pattern.
    const pattern = likePattern(foldText(query.search), "contains")
    clauses.push(sql`(l.name_folded LIKE ${pattern} ESCAPE '\\'
      OR coalesce(l.description_folded, '') LIKE ${pattern} ESCAPE '\\')`)
  }
  return sql.and(clauses)
}

export const makeListRepository = (sql: SqlClient.SqlClient): ListRepository => {
  /** The number of the account's contacts matching the rules of each DYNAMIC list, in one query. */
  const matchCounts = (accountId: AccountId, lists: ReadonlyArray<ContactList>, now: Date) => {
    const dynamic = lists.filter((list) => list.segmentRules !== null)
    if (dynamic.length === 0) return Effect.succeed(new Map<string, number>())
    const selects = dynamic.map((list) =>
      sql`SELECT CAST(${list.id} AS TEXT) AS list_id, count(*) AS matches FROM contacts c
        WHERE c.account_id = ${accountId} AND (${segmentSql(sql, list.segmentRules!, now)})`)
    return sql`${sql.join(" UNION ALL ", false)(selects)}`.pipe(
      Effect.flatMap(decodeMatchCounts),
      Effect.map((rows) => new Map(rows.map((row) => [row.list_id, row.matches]))),
    )
  }

  return {
    insert: (list) =>
      sql`INSERT INTO contact_lists ${sql.insert({
        id: list.id,
        account_id: list.accountId,
        type: list.type,
        created_at: toMillis(list.createdAt),
        ...mutableColumns(sql, list),
      })}`.pipe(Effect.asVoid, orStoreError("lists.insert")),

    update: (list) =>
      sql`UPDATE contact_lists SET ${sql.update(mutableColumns(sql, list))}
        WHERE account_id = ${list.accountId} AND id = ${list.id} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orStoreError("lists.update"),
      ),

    findById: (accountId, id, options) =>
      sql`SELECT * FROM contact_lists WHERE account_id = ${accountId} AND id = ${id}${rowLock(sql, options)}`.pipe(
        Effect.flatMap(decodeList),
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), fromRow)),
        orStoreError("lists.findById"),
      ),

    findByIds: (accountId, ids) =>
      ids.length === 0 ? Effect.succeed([]) : sql`SELECT * FROM contact_lists WHERE account_id = ${accountId} AND id IN ${sql.in([...new Set(ids)])}`.pipe(
        Effect.flatMap(decodeList),
        Effect.map((rows) => rows.map(fromRow)),
        orStoreError("lists.findByIds"),
      ),

    list: (accountId, query, now) =>
      Effect.gen(function* () {
        const where = listFilter(sql, accountId, query)
        const [counted] = yield* sql`SELECT count(*) AS total FROM contact_lists l WHERE ${where}`.pipe(
          Effect.flatMap(decodeTotal),
        )
        const rows = yield* sql`SELECT l.*,
            (SELECT count(*) FROM list_members lm WHERE lm.list_id = l.id AND lm.removed_at IS NULL) AS contact_count
          FROM contact_lists l WHERE ${where}
          ORDER BY l.created_at DESC, l.id DESC LIMIT ${query.limit} OFFSET ${offsetOf(query)}`.pipe(
          Effect.flatMap(decodeLists),
        )
        const lists = rows.map((row) => ({ list: fromRow(row), contactCount: row.contact_count }))
        const matches = yield* matchCounts(accountId, lists.map(({ list }) => list), now)
        return {
          lists: lists.map(({ list, contactCount }) => ({ list, contactCount: matches.get(list.id) ?? contactCount })),
          total: counted?.total ?? 0,
        }
      }).pipe(orStoreError("lists.list")),

    countMembers: (accountId, list, now) =>
      (list.segmentRules !== null
        ? Effect.map(matchCounts(accountId, [list], now), (matches) => {
          const count = matches.get(list.id) ?? 0
          return { current: count, all: count }
        })
        : sql`SELECT count(*) AS all_rows, sum(CASE WHEN removed_at IS NULL THEN 1 ELSE 0 END) AS current_rows
            FROM list_members WHERE account_id = ${accountId} AND list_id = ${list.id}`.pipe(
            Effect.flatMap(decodeMemberCounts),
            Effect.map(([row]) => ({ current: row?.current_rows ?? 0, all: row?.all_rows ?? 0 })),
          )).pipe(orStoreError("lists.countMembers")),

    markSynced: (accountId, id, at) =>
      sql`UPDATE contact_lists SET last_synced_at = ${toMillis(at)} WHERE account_id = ${accountId} AND id = ${id}`.pipe(
        Effect.asVoid,
        orStoreError("lists.markSynced"),
      ),
  }
}
