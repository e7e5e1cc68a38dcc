/** Core's send-time eligibility table (eligibilityChecks) compiled to one set-based query: the candidate addresses,
 *  bound as one JSON array, are left-joined to the account's suppressions, contacts and opt-outs of the send's topic,
 *  and the query answers only the dropped addresses, each with the reason of the first row of the table that holds
 *  (a CASE in the table's order). Values are bound parameters; only fixed column names are spliced in. */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import {
  type AccountId, applicableChecks, type CampaignAudience, campaignChecks, type EligibilityFact, type EmailAddress, type SendScope,
} from "@mailroom/core"

/** The condition of one fact over candidates `x`, suppressions `s`, contacts `c` and opt-outs `o`. */
export const factSql = (sql: SqlClient.SqlClient, fact: EligibilityFact): Fragment =>
  fact.kind === "suppression" ? sql`s.reason = ${fact.reason}`
  : fact.kind === "status" ? sql`c.status = ${fact.status}`
  : sql`o.email IS NOT NULL`

/** The candidates as rows of one column `email`, from a single JSON-array parameter (each address once). */
const candidatesSql = (sql: SqlClient.SqlClient, addresses: ReadonlyArray<EmailAddress>): Fragment => {
  const json = JSON.stringify([...new Set(addresses)])
  return sql.onDialectOrElse({
    pg: () => sql`SELECT value AS email FROM json_array_elements_text(${json}::json)`,
    orElse: () => sql`SELECT value AS email FROM json_each(${json})`,
  })
}

/** The query answering `{ email, reason }` for every candidate that a send of `scope` drops. */
export const droppedRecipientsSql = (
  sql: SqlClient.SqlClient,
  accountId: AccountId,
  scope: SendScope,
  addresses: ReadonlyArray<EmailAddress>,
) => {
  const checks = applicableChecks(scope)
  const uses = (kind: EligibilityFact["kind"]) => checks.some((check) => check.fact.kind === kind)
  const joins: Array<Fragment> = []
  if (uses("suppression")) joins.push(sql`LEFT JOIN suppressions s ON s.account_id = ${accountId} AND s.email = x.email`)
  if (uses("status")) joins.push(sql`LEFT JOIN contacts c ON c.account_id = ${accountId} AND c.email = x.email`)
  if (uses("topicOptOut") && scope.topicId !== null) {
    joins.push(sql`LEFT JOIN topic_opt_outs o
      ON o.topic_id = ${scope.topicId} AND o.account_id = ${accountId} AND o.email = x.email`)
  }
  const reason = sql.join(" ", false)(checks.map((check) => sql`WHEN ${factSql(sql, check.fact)} THEN ${check.reason}`))
  const blocked = sql.join(" OR ", false)(checks.map((check) => sql`(${factSql(sql, check.fact)})`))
  return sql`SELECT x.email AS email, CASE ${reason} END AS reason
    FROM (${candidatesSql(sql, addresses)}) x
    ${sql.join(" ", false)(joins)}
    WHERE ${blocked}`
}

/** The reason a campaign drops an audience member (a CASE over contacts `c`, suppressions `s` and opt-outs `o`, in the
 *  table's order; NULL when it receives the campaign), and the joins it reads. The campaign's opt-out row holds when
 *  the address opted out of any of the audience's topics. */
export const campaignReasonSql = (sql: SqlClient.SqlClient, accountId: AccountId, audience: CampaignAudience) => {
  const checks = campaignChecks(audience)
  const joins: Array<Fragment> = [sql`LEFT JOIN suppressions s ON s.account_id = c.account_id AND s.email = c.email`]
  if (checks.some((check) => check.fact.kind === "topicOptOut")) {
    joins.push(sql`LEFT JOIN (SELECT DISTINCT email FROM topic_opt_outs
      WHERE account_id = ${accountId} AND topic_id IN ${sql.in(audience.topicIds)}) o ON o.email = c.email`)
  }
  return {
    reason: sql`CASE ${sql.join(" ", false)(checks.map((check) => sql`WHEN ${factSql(sql, check.fact)} THEN ${check.reason}`))} END`,
    joins: sql.join(" ", false)(joins),
  }
}
