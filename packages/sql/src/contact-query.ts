/** The WHERE and ORDER BY of contact listings, with the semantics of core's matchesContactFilter and compareContacts.
 *  Every value is a bound parameter; only column names and directions from fixed tables are spliced in. */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { type AccountId, type ContactFilter, type ContactSortKey, likeContains } from "@mailroom/core"

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
    const pattern = likeContains(filter.search)
    clauses.push(sql`(lower(c.email) LIKE ${pattern} ESCAPE '\\'
      OR lower(c.first_name) LIKE ${pattern} ESCAPE '\\'
      OR lower(c.last_name) LIKE ${pattern} ESCAPE '\\')`)
  }
  return sql.and(clauses)
}

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
