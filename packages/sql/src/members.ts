/** The list_members table behind `Store.members`. A page of members, with the counts of the whole list, is one query
 *  in which the database decides which members are suppressed. Writes are set-based, one statement per chunk of
 *  about 16,000 contacts. */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import {
  AccountId, type ContactMembership, ContactId, ContactStatus, dynamicMemberId, type ListMembership, ListId, MemberId, type NewListMembership, type NewMember, type MemberPage,
  type MemberQuery, type MemberRepository, offsetOf, SuppressionReason,
} from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { forEachChunk, maxParameters } from "./internal/batch.js"
import { EpochMillis, IntegerColumn, toMillis } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"
import { type MemberFactsSql, suppressedSql } from "./member-suppression-sql.js"
import { segmentSql } from "./segment-sql.js"

/** Contacts per write statement: each binds two parameters in the VALUES list. */
const contactsPerStatement = Math.floor(maxParameters / 2) - 8
/** Memberships per upsert: three parameters each (id, list, contact), and a few more for the statement. */
const membershipsPerStatement = Math.floor(maxParameters / 3) - 8

/** Addresses were validated and lower-cased before they were stored; reading them back does not check them again. */
const StoredEmail = Schema.String.pipe(Schema.brand("EmailAddress"))

/** One row of the paged member query: the totals, and the member's columns (all null when the page is empty). */
const PageRow = Schema.Struct({
  total: IntegerColumn,
  suppressed_total: Schema.NullOr(IntegerColumn),
  id: Schema.NullOr(Schema.String),
  contact_id: Schema.NullOr(ContactId),
  added_at: Schema.NullOr(EpochMillis),
  removed_at: Schema.NullOr(EpochMillis),
  email: Schema.NullOr(StoredEmail),
  first_name: Schema.NullOr(Schema.String),
  last_name: Schema.NullOr(Schema.String),
  status: Schema.NullOr(ContactStatus),
  subscribed_at: Schema.NullOr(EpochMillis),
  created_at: Schema.NullOr(EpochMillis),
  suppression_reason: Schema.NullOr(SuppressionReason),
  opted_out: Schema.NullOr(IntegerColumn),
})
const decodePageRows = Schema.decodeUnknown(Schema.Array(PageRow))

const MembershipRow = Schema.Struct({
  id: MemberId,
  account_id: AccountId,
  list_id: ListId,
  contact_id: ContactId,
  added_at: EpochMillis,
  removed_at: Schema.NullOr(EpochMillis),
})
const decodeMemberships = Schema.decodeUnknown(Schema.Array(MembershipRow))
const ContactMembershipRow = Schema.extend(MembershipRow, Schema.Struct({
  list_name: Schema.String,
  suppression_group_id: Schema.NullOr(Schema.String),
}))
const decodeContactMemberships = Schema.decodeUnknown(Schema.Array(ContactMembershipRow))
const decodeContactIds = Schema.decodeUnknown(Schema.Array(Schema.Struct({ contact_id: ContactId })))
const decodeListIds = Schema.decodeUnknown(Schema.Array(Schema.Struct({ list_id: Schema.String })))
const decodeMemberPairs = Schema.decodeUnknown(Schema.Array(Schema.Struct({ list_id: Schema.String, contact_id: ContactId })))

/** The facts of core's suppression rules in a member query over contacts `c`, joined by `addressJoins` to the
 *  account's suppression `s` and the list's topic opt-out `o` of the address and, for a STATIC list, list_members `lm`.
 *  A fact added to core's MemberFacts gets its expression here. */
const factsOf = (sql: SqlClient.SqlClient, membership: boolean): MemberFactsSql => ({
  removedFromList: membership ? sql`lm.removed_at IS NOT NULL` : false,
  contactStatus: sql`c.status`,
  suppression: sql`coalesce(s.reason, '')`,
  optedOutOfTopic: sql`o.email IS NOT NULL`,
})

/** The account's suppression `s` of each member's address and its opt-out `o` of the list's topic, left-joined to
 *  contacts `c`. Both are joins rather than correlated subqueries: the totals read every member of the list, and a
 *  subquery per member made a page of a 100,000-member list cost seconds on Postgres. The list's topic is read once
 *  (its id is a scalar subquery); a list without a topic joins no opt-out. */
const addressJoins = (sql: SqlClient.SqlClient, accountId: string, listId: string): Fragment =>
  sql`LEFT JOIN suppressions s ON s.account_id = c.account_id AND s.email = c.email
    LEFT JOIN topic_opt_outs o ON o.topic_id = (SELECT tl.suppression_group_id FROM contact_lists tl
      WHERE tl.id = ${listId} AND tl.account_id = ${accountId}) AND o.email = c.email`

/** The columns every member page reads besides the source's own: the suppression and the topic opt-out. */
const factColumns = (sql: SqlClient.SqlClient, facts: MemberFactsSql): Fragment =>
  sql`s.reason AS suppression_reason, CASE WHEN ${facts.optedOutOfTopic === false ? sql.literal("1 = 0") : facts.optedOutOfTopic}
    THEN 1 ELSE 0 END AS opted_out`

/** The rows a member page reads: `from` joins contacts `c` (and list_members `lm` for a STATIC list), `where` selects
 *  the list's members, `columns` names the PageRow columns, `order` is the ORDER BY of the page (newest first). */
interface MemberSource {
  readonly from: Fragment
  readonly where: Fragment
  readonly columns: Fragment
  readonly order: string
  readonly facts: MemberFactsSql
}

const filterCondition = (sql: SqlClient.SqlClient, source: MemberSource, query: MemberQuery): Fragment =>
  query.filter === "active" ? sql`AND NOT ${suppressedSql(sql, source.facts)}`
  : query.filter === "suppressed" ? sql`AND ${suppressedSql(sql, source.facts)}`
  : sql.literal("")

/** One query answering the page and the counts: the totals scan the whole list once, the page walks the list in
 *  order and stops at the limit. The totals row is left-joined to the page, so an empty page still answers them. */
const pageQuery = (sql: SqlClient.SqlClient, source: MemberSource, query: MemberQuery) =>
  sql`WITH totals AS (
      SELECT count(*) AS total,
        sum(CASE WHEN ${suppressedSql(sql, source.facts)} THEN 1 ELSE 0 END) AS suppressed_total
      FROM ${source.from} WHERE ${source.where}
    ),
    page AS (
      SELECT ${source.columns}, ${factColumns(sql, source.facts)} FROM ${source.from} WHERE ${source.where} ${filterCondition(sql, source, query)}
      ORDER BY ${sql.literal(source.order)} LIMIT ${query.limit} OFFSET ${offsetOf(query)}
    )
    SELECT totals.total, totals.suppressed_total, page.id, page.contact_id, page.added_at, page.removed_at, page.email,
      page.first_name, page.last_name, page.status, page.subscribed_at, page.created_at, page.suppression_reason,
      page.opted_out
    FROM totals LEFT JOIN page ON 1 = 1
    ORDER BY page.added_at DESC, page.id DESC`.pipe(
    Effect.flatMap(decodePageRows),
    Effect.map((rows): MemberPage => {
      const total = rows[0]?.total ?? 0
      const suppressed = rows[0]?.suppressed_total ?? 0
      return {
        counts: { total, active: total - suppressed, suppressed },
        members: rows.flatMap((row) =>
          row.id === null || row.contact_id === null || row.email === null || row.status === null
            || row.added_at === null || row.subscribed_at === null || row.created_at === null
            ? []
            : [{
              id: row.id,
              contactId: row.contact_id,
              contact: {
                id: row.contact_id,
                email: row.email,
                firstName: row.first_name,
                lastName: row.last_name,
                status: row.status,
                subscribedAt: row.subscribed_at,
                createdAt: row.created_at,
              },
              addedAt: row.added_at,
              removedAt: row.removed_at,
              suppression: row.suppression_reason,
              optedOutOfTopic: (row.opted_out ?? 0) !== 0,
            }]),
      }
    }),
  )

/** Adds or restores memberships in one upsert per chunk, answering the (list, contact) pairs inserted or restored. The
 *  VALUES list carries the id the service minted for each pair, used only when the row is new. The joins drop foreign
 *  contacts and lists; the WHERE of DO UPDATE leaves current members untouched, so RETURNING answers exactly the rows
 *  inserted or restored. (SQLite needs the WHERE true: without it, ON CONFLICT would parse as a join constraint.) */
const upsertMembers = (
  sql: SqlClient.SqlClient,
  accountId: AccountId,
  rows: ReadonlyArray<{ readonly id: string; readonly listId: string; readonly contactId: string }>,
  at: Date,
) =>
  forEachChunk(sql, rows, membershipsPerStatement, (chunk) =>
    sql`WITH v (id, list_id, contact_id) AS (VALUES ${sql.join(", ", false)(chunk.map((row) => sql`(${row.id}, ${row.listId}, ${row.contactId})`))})
      INSERT INTO list_members (id, account_id, list_id, contact_id, added_at, removed_at)
      SELECT v.id, c.account_id, l.id, c.id, CAST(${toMillis(at)} AS BIGINT), NULL
      FROM v
      JOIN contacts c ON c.id = v.contact_id AND c.account_id = ${accountId}
      JOIN contact_lists l ON l.id = v.list_id AND l.account_id = ${accountId}
      WHERE true
      ON CONFLICT (list_id, contact_id) DO UPDATE SET added_at = excluded.added_at, removed_at = NULL
        WHERE list_members.removed_at IS NOT NULL
      RETURNING list_id, contact_id`.pipe(Effect.flatMap(decodeMemberPairs)))

/** The first of `memberships` for each list. */
const oncePerList = (memberships: ReadonlyArray<NewListMembership>): ReadonlyArray<NewListMembership> => {
  const seen = new Set<string>()
  return memberships.filter((membership) => !seen.has(membership.listId) && seen.add(membership.listId) !== undefined)
}

/** The first of `members` for each contact. */
const oncePerContact = (members: ReadonlyArray<NewMember>): ReadonlyArray<NewMember> => {
  const seen = new Set<string>()
  return members.filter((member) => !seen.has(member.contactId) && seen.add(member.contactId) !== undefined)
}

export const makeMemberRepository = (sql: SqlClient.SqlClient): MemberRepository => ({
  page: (accountId, listId, query) =>
    pageQuery(sql, {
      from: sql`list_members lm JOIN contacts c ON c.id = lm.contact_id ${addressJoins(sql, accountId, listId)}`,
      where: sql`lm.account_id = ${accountId} AND lm.list_id = ${listId}`,
      columns: sql`lm.id, lm.contact_id, lm.added_at, lm.removed_at, c.email, c.first_name, c.last_name, c.status,
        c.subscribed_at, c.created_at`,
      order: "lm.added_at DESC, lm.id DESC",
      facts: factsOf(sql, true),
    }, query).pipe(orStoreError("members.page")),

  pageMatching: (accountId, listId, rules, query, now) =>
    pageQuery(sql, {
      from: sql`contacts c ${addressJoins(sql, accountId, listId)}`,
      where: sql`c.account_id = ${accountId} AND (${segmentSql(sql, rules, now)})`,
      columns: sql`c.id, c.id AS contact_id, c.created_at AS added_at, CAST(NULL AS BIGINT) AS removed_at, c.email,
        c.first_name, c.last_name, c.status, c.subscribed_at, c.created_at`,
      order: "c.created_at DESC, c.id DESC",
      facts: factsOf(sql, false),
    }, query).pipe(
      Effect.map((page): MemberPage => ({
        counts: page.counts,
        members: page.members.map((member) => ({ ...member, id: dynamicMemberId(listId, member.contactId) })),
      })),
      orStoreError("members.pageMatching"),
    ),

  find: (accountId, listId, contactId) =>
    sql`SELECT lm.* FROM list_members lm
      WHERE lm.account_id = ${accountId} AND lm.list_id = ${listId} AND lm.contact_id = ${contactId}`.pipe(
      Effect.flatMap(decodeMemberships),
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row): ListMembership => ({
        id: row.id,
        accountId: row.account_id,
        listId: row.list_id,
        contactId: row.contact_id,
        addedAt: row.added_at,
        removedAt: row.removed_at,
      }))),
      orStoreError("members.find"),
    ),

  ofContact: (accountId, contactId) =>
    sql`SELECT lm.*, l.name AS list_name, l.suppression_group_id FROM list_members lm
      JOIN contact_lists l ON l.id = lm.list_id AND l.account_id = lm.account_id
      WHERE lm.account_id = ${accountId} AND lm.contact_id = ${contactId}
      ORDER BY lm.added_at DESC, lm.id DESC`.pipe(
      Effect.flatMap(decodeContactMemberships),
      Effect.map((rows) => rows.map((row): ContactMembership => ({
        membership: {
          id: row.id,
          accountId: row.account_id,
          listId: row.list_id,
          contactId: row.contact_id,
          addedAt: row.added_at,
          removedAt: row.removed_at,
        },
        listName: row.list_name,
        suppressionGroupId: row.suppression_group_id,
      }))),
      orStoreError("members.ofContact"),
    ),

  addCurrent: (accountId, listId, members, at) =>
    upsertMembers(sql, accountId, oncePerContact(members).map((member) => ({ ...member, listId })), at).pipe(
      Effect.map((rows) => rows.map((row) => row.contact_id)),
      orStoreError("members.addCurrent"),
    ),

  addToLists: (accountId, contactId, memberships, at) =>
    upsertMembers(sql, accountId, oncePerList(memberships).map((membership) => ({ ...membership, contactId })), at).pipe(
      Effect.map((rows) => rows.map((row) => row.list_id)),
      orStoreError("members.addToLists"),
    ),

  // No join with contacts and no ON CONFLICT: the contact is the caller's new one, so neither can change the answer,
  // and on Postgres they cost the planner more than the rest of the statement.
  addNewContactToLists: (accountId, contactId, memberships, at) => {
    const rows = oncePerList(memberships)
    if (rows.length === 0) return Effect.succeed([])
    return forEachChunk(sql, rows, membershipsPerStatement, (chunk) =>
      sql`WITH v (id, list_id) AS (VALUES ${sql.join(", ", false)(chunk.map((row) => sql`(${row.id}, ${row.listId})`))})
        INSERT INTO list_members (id, account_id, list_id, contact_id, added_at, removed_at)
        SELECT v.id, l.account_id, l.id, ${contactId}, CAST(${toMillis(at)} AS BIGINT), NULL
        FROM v JOIN contact_lists l ON l.id = v.list_id AND l.account_id = ${accountId}
        RETURNING list_id`.pipe(Effect.flatMap(decodeListIds))).pipe(
      Effect.map((found) => found.map((row) => row.list_id)),
      orStoreError("members.addNewContactToLists"),
    )
  },

  remove: (accountId, listId, contactIds) =>
    forEachChunk(sql, [...new Set(contactIds)], contactsPerStatement, (chunk) =>
      sql`DELETE FROM list_members
        WHERE account_id = ${accountId} AND list_id = ${listId} AND removed_at IS NULL AND contact_id IN ${sql.in(chunk)}
        RETURNING contact_id`.pipe(Effect.flatMap(decodeContactIds))).pipe(
      Effect.map((rows) => rows.map((row) => row.contact_id)),
      orStoreError("members.remove"),
    ),

  markRemoved: (accountId, listId, contactIds, at) =>
    forEachChunk(sql, [...new Set(contactIds)], contactsPerStatement, (chunk) =>
      sql`UPDATE list_members SET removed_at = ${toMillis(at)}
        WHERE account_id = ${accountId} AND list_id = ${listId} AND removed_at IS NULL AND contact_id IN ${sql.in(chunk)}
        RETURNING contact_id`.pipe(Effect.flatMap(decodeContactIds))).pipe(
      Effect.map((rows) => rows.map((row) => row.contact_id)),
      orStoreError("members.markRemoved"),
    ),
})
