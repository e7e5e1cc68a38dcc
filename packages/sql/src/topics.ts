/** The topics and topic_opt_outs tables behind `Store.topics`. A topic's `_count.members` is computed from its
 *  opt-outs, never stored. Display order (sortOrder, name, id) compares names in code-point order in both dialects. */
import type { SqlClient } from "@effect/sql"
import {
  AccountId, DuplicateTopic, type EmailAddress, offsetOf, StoreError, type Topic, TopicId, type TopicRepository,
} from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { forEachChunk, maxInList } from "./internal/batch.js"
import { EpochMillis, IntegerColumn, toMillis } from "./internal/columns.js"
import { isUniqueViolation, orStoreError, type UniqueConstraint } from "./internal/errors.js"
import { rowLock } from "./internal/row-lock.js"
import { booleanParam } from "./lists.js"

const BooleanColumn = Schema.Union(
  Schema.Boolean,
  Schema.transform(IntegerColumn, Schema.Boolean, { strict: true, decode: (n) => n !== 0, encode: (b) => (b ? 1 : 0) }),
)

const StoredEmail = Schema.String.pipe(Schema.brand("EmailAddress"))

const TopicRow = Schema.Struct({
  id: TopicId,
  account_id: AccountId,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  is_default: BooleanColumn,
  public_label: Schema.NullOr(Schema.String),
  public_description: Schema.NullOr(Schema.String),
  is_published_on_unsub: BooleanColumn,
  sort_order: IntegerColumn,
  created_at: EpochMillis,
  updated_at: EpochMillis,
})
type TopicRow = typeof TopicRow.Type
const decodeTopics = Schema.decodeUnknown(Schema.Array(TopicRow))
const decodeCounted = Schema.decodeUnknown(Schema.Array(Schema.extend(TopicRow, Schema.Struct({
  opt_outs: IntegerColumn,
  total: IntegerColumn,
}))))
const decodeTotal = Schema.decodeUnknown(Schema.Array(Schema.Struct({ total: IntegerColumn })))
const decodeOptOuts = Schema.decodeUnknown(Schema.Array(Schema.Struct({
  email: StoredEmail, created_at: EpochMillis, total: IntegerColumn,
})))
const decodeTopicIds = Schema.decodeUnknown(Schema.Array(Schema.Struct({ topic_id: TopicId })))

const fromRow = (row: TopicRow): Topic => ({
  id: row.id,
  accountId: row.account_id,
  name: row.name,
  description: row.description,
  isDefault: row.is_default,
  publicLabel: row.public_label,
  publicDescription: row.public_description,
  isPublishedOnUnsub: row.is_published_on_unsub,
  sortOrder: row.sort_order,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const mutableColumns = (sql: SqlClient.SqlClient, topic: Topic) => ({
  name: topic.name,
  description: topic.description,
  is_default: booleanParam(sql, topic.isDefault),
  public_label: topic.publicLabel,
  public_description: topic.publicDescription,
  is_published_on_unsub: booleanParam(sql, topic.isPublishedOnUnsub),
  sort_order: topic.sortOrder,
  updated_at: toMillis(topic.updatedAt),
})

const accountNameKey: UniqueConstraint = { name: "topics_account_name_key", table: "topics", columns: ["account_id", "name"] }

const refuseDuplicate = (operation: string, name: string) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, DuplicateTopic | StoreError, R> =>
  Effect.mapError(effect, (error) =>
    isUniqueViolation(error, accountNameKey) ? new DuplicateTopic({ name }) : new StoreError({ operation, cause: error }))

/** Addresses as rows of one column `email`, from a single JSON-array parameter. */
const candidates = (sql: SqlClient.SqlClient, emails: ReadonlyArray<string>) => {
  const json = JSON.stringify(emails)
  return sql.onDialectOrElse({
    pg: () => sql`SELECT value AS email FROM json_array_elements_text(${json}::json)`,
    orElse: () => sql`SELECT value AS email FROM json_each(${json})`,
  })
}

/** Display order: sortOrder, then name, then id. Postgres columns use the "C" collation, SQLite compares bytes. */
const displayOrder = "t.sort_order, t.name, t.id"

export const makeTopicRepository = (sql: SqlClient.SqlClient): TopicRepository => ({
  insert: (topic) =>
    sql`INSERT INTO topics ${sql.insert({
      id: topic.id,
      account_id: topic.accountId,
      created_at: toMillis(topic.createdAt),
      ...mutableColumns(sql, topic),
    })}`.pipe(Effect.asVoid, refuseDuplicate("topics.insert", topic.name)),

  update: (topic) =>
    sql`UPDATE topics SET ${sql.update(mutableColumns(sql, topic))}
      WHERE account_id = ${topic.accountId} AND id = ${topic.id} RETURNING id`.pipe(
      Effect.map((rows) => rows.length > 0),
      refuseDuplicate("topics.update", topic.name),
    ),

  findById: (accountId, id, options) =>
    sql`SELECT * FROM topics WHERE account_id = ${accountId} AND id = ${id}${rowLock(sql, options)}`.pipe(
      Effect.flatMap(decodeTopics),
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), fromRow)),
      orStoreError("topics.findById"),
    ),

  findByIds: (accountId, ids) =>
    ids.length === 0 ? Effect.succeed([]) : sql`SELECT * FROM topics WHERE account_id = ${accountId} AND id IN ${sql.in([...new Set(ids)])}`.pipe(
      Effect.flatMap(decodeTopics),
      Effect.map((rows) => rows.map(fromRow)),
      orStoreError("topics.findByIds"),
    ),

  all: (accountId) =>
    sql`SELECT t.* FROM topics t WHERE t.account_id = ${accountId} ORDER BY ${sql.literal(displayOrder)}`.pipe(
      Effect.flatMap(decodeTopics),
      Effect.map((rows) => rows.map(fromRow)),
      orStoreError("topics.all"),
    ),

  list: (accountId, query) =>
    Effect.gen(function* () {
      const where = query.published
        ? sql`t.account_id = ${accountId} AND t.is_published_on_unsub = ${booleanParam(sql, true)}`
        : sql`t.account_id = ${accountId}`
      const order = query.published ? displayOrder : "t.created_at, t.id"
      const rows = yield* sql`SELECT t.*, count(*) OVER () AS total,
          (SELECT count(*) FROM topic_opt_outs o WHERE o.topic_id = t.id) AS opt_outs
        FROM topics t WHERE ${where}
        ORDER BY ${sql.literal(order)} LIMIT ${query.limit} OFFSET ${offsetOf(query)}`.pipe(Effect.flatMap(decodeCounted))
      const total = rows[0]?.total
        ?? (yield* sql`SELECT count(*) AS total FROM topics t WHERE ${where}`.pipe(Effect.flatMap(decodeTotal)))[0]?.total
        ?? 0
      return { topics: rows.map((row) => ({ topic: fromRow(row), optOuts: row.opt_outs })), total }
    }).pipe(orStoreError("topics.list")),

  countOptOuts: (accountId, id) =>
    sql`SELECT count(*) AS total FROM topic_opt_outs WHERE account_id = ${accountId} AND topic_id = ${id}`.pipe(
      Effect.flatMap(decodeTotal),
      Effect.map((rows) => rows[0]?.total ?? 0),
      orStoreError("topics.countOptOuts"),
    ),

  // The opt-outs go with the topic (ON DELETE CASCADE).
  delete: (accountId, id) =>
    sql`DELETE FROM topics WHERE account_id = ${accountId} AND id = ${id} RETURNING id`.pipe(
      Effect.map((rows) => rows.length > 0),
      orStoreError("topics.delete"),
    ),

  optOuts: (accountId, id, page) =>
    Effect.gen(function* () {
      const rows = yield* sql`SELECT email, created_at, count(*) OVER () AS total FROM topic_opt_outs
        WHERE account_id = ${accountId} AND topic_id = ${id}
        ORDER BY created_at DESC, email LIMIT ${page.limit} OFFSET ${offsetOf(page)}`.pipe(Effect.flatMap(decodeOptOuts))
      const total = rows[0]?.total ?? (rows.length === 0 && page.page > 1
        ? (yield* sql`SELECT count(*) AS total FROM topic_opt_outs WHERE account_id = ${accountId} AND topic_id = ${id}`
          .pipe(Effect.flatMap(decodeTotal)))[0]?.total ?? 0
        : 0)
      return { optOuts: rows.map((row) => ({ email: row.email, createdAt: row.created_at })), total }
    }).pipe(orStoreError("topics.optOuts")),

  // The join on topics refuses a topic of another account.
  optOut: (accountId, id, email: EmailAddress, at) =>
    sql`INSERT INTO topic_opt_outs (topic_id, account_id, email, created_at)
      SELECT t.id, t.account_id, ${email}, CAST(${toMillis(at)} AS BIGINT) FROM topics t
      WHERE t.id = ${id} AND t.account_id = ${accountId}
      ON CONFLICT (topic_id, email) DO NOTHING
      RETURNING email`.pipe(
      Effect.map((rows) => rows.length > 0),
      orStoreError("topics.optOut"),
    ),

  optOutMany: (accountId, id, emails, at) =>
    forEachChunk(sql, [...new Set(emails)], maxInList, (chunk) =>
      sql`INSERT INTO topic_opt_outs (topic_id, account_id, email, created_at)
        SELECT t.id, t.account_id, v.email, CAST(${toMillis(at)} AS BIGINT)
        FROM topics t, (${candidates(sql, chunk)}) v
        WHERE t.id = ${id} AND t.account_id = ${accountId}
        ON CONFLICT (topic_id, email) DO NOTHING
        RETURNING email`).pipe(
      Effect.map((rows) => rows.length),
      orStoreError("topics.optOutMany"),
    ),

  optInMany: (accountId, id, emails) =>
    forEachChunk(sql, [...new Set(emails)], maxInList, (chunk) =>
      sql`DELETE FROM topic_opt_outs WHERE account_id = ${accountId} AND topic_id = ${id} AND email IN ${sql.in(chunk)}
        RETURNING email`).pipe(
      Effect.map((rows) => rows.length),
      orStoreError("topics.optInMany"),
    ),

  optIn: (accountId, id, email) =>
    sql`DELETE FROM topic_opt_outs WHERE account_id = ${accountId} AND topic_id = ${id} AND email = ${email}
      RETURNING email`.pipe(
      Effect.map((rows) => rows.length > 0),
      orStoreError("topics.optIn"),
    ),

  optedOut: (accountId, email) =>
    sql`SELECT topic_id FROM topic_opt_outs WHERE account_id = ${accountId} AND email = ${email}`.pipe(
      Effect.flatMap(decodeTopicIds),
      Effect.map((rows) => rows.map((row) => row.topic_id)),
      orStoreError("topics.optedOut"),
    ),
})
