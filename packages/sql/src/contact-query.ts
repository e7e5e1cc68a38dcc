/** Core's contact filter (matchesContactFilter) and order (compareContacts) compiled to SQL over contacts `c`. Search
 *  compares the folded columns (core's foldText, written by the store) with LIKE patterns from core's likePattern, so
 *  every backend answers the same whatever its locale. Every value is a bound parameter; only column names and
 *  directions from fixed tables are spliced in. */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { type AccountId, type ContactFilter, type ContactSortKey, foldText, likePattern } from "@mailroom/core"

/** The folded columns of core's contactSearchText, in its order: the address is its own folding. */
const searchColumns = ["c.email", "c.first_name_folded", "c.last_name_folded"] as const

/** The conditions selecting the account's contacts (alias `c`) that match `filter`, joined with AND. */
export const contactFilter = (sql: SqlClient.SqlClient, accountId: AccountId, filter: ContactFilter): Fragment => {
  const clauses: Array<Fragment> = [sql`c.account_id = ${accountId}`]
  if (filter.status !== undefined) clauses.push(sql`c.status = ${filter.status}`)
  if (filter.source !== undefined) clauses.push(sql`c.source = ${filter.source}`)
  if (filter.tag !== undefined) {
    clauses.push(sql`EXISTS (SELECT 1 FROM contact_tags t
      WHERE t.contact_id = c.id AND t.account_id = c.account_id AND t.tag = ${filter.tag})`)
  }
  if (filter.search !== undefined && filter.search !== "") {
    const pattern = likePattern(foldText(filter.search), "contains")
    clauses.push(sql`(${sql.join(" OR ", false)(searchColumns.map((column) =>
      sql`${sql.literal(column)} LIKE ${pattern} ESCAPE '\\'`))})`)
  }
  return sql.and(clauses)
}

/** Sort keys compare bytewise in every backend: addresses are ASCII and lower-case (their own folding), and Postgres
 *  declares the column with the "C" collation. */
const sortColumns: Record<ContactSortKey, string> = {
  createdAt: "c.created_at",
  email: "c.email",
  subscribedAt: "c.subscribed_at",
}

/** ORDER BY the sort key, ties broken by id in the same direction. */
export const contactOrder = (sql: SqlClient.SqlClient, sortBy: ContactSortKey, sortOrder: "asc" | "desc"): Fragment => {
  const direction = sortOrder === "asc" ? "ASC" : "DESC"
  return sql.literal(`ORDER BY ${sortColumns[sortBy]} ${direction}, c.id ${direction}`)
}
