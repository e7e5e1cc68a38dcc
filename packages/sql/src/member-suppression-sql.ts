/** Core's member suppression rules (memberSuppressionRules) compiled to SQL over the facts of a member query. Each
 *  query says how it reads every fact (a boolean condition, or the expression of the contact's status); the rules
 *  say which facts suppress. Values are bound parameters; only the query's own fact expressions are spliced in. */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import {
  type BooleanMemberFact, type ContactStatus, type MemberFacts, memberSuppressionRules, type SuppressionRule,
} from "@mailroom/core"

/** How a member query reads each fact: a condition for a boolean fact (or `false` when the query knows it never
 *  holds, as for the members of a DYNAMIC list, which keep no membership rows), an expression for an enumerated one. */
export type MemberFactsSql = { readonly [K in BooleanMemberFact]: Fragment | false } & {
  readonly [K in Exclude<keyof MemberFacts, BooleanMemberFact>]: Fragment
}

/** The condition of one rule, or undefined when it can never hold. */
export const suppressionRuleSql = (
  sql: SqlClient.SqlClient,
  facts: MemberFactsSql,
  rule: SuppressionRule,
): Fragment | undefined => {
  if ("is" in rule.when) return sql`${facts[rule.when.fact]} = ${rule.when.is}`
  const condition = facts[rule.when.fact]
  return condition === false ? undefined : condition
}

/** The condition of having at least one suppression status, in parentheses (it may follow NOT). Rules that compare
 *  the same enumerated fact are merged into one IN list, so that the contact's status is tested once. */
export const suppressedSql = (
  sql: SqlClient.SqlClient,
  facts: MemberFactsSql,
  rules: ReadonlyArray<SuppressionRule> = memberSuppressionRules,
): Fragment => {
  const clauses: Array<Fragment> = []
  const statuses: Array<ContactStatus> = []
  for (const rule of rules) {
    if ("is" in rule.when) statuses.push(rule.when.is)
    else {
      const clause = suppressionRuleSql(sql, facts, rule)
      if (clause !== undefined) clauses.push(clause)
    }
  }
  if (statuses.length > 0) clauses.push(sql`${facts.contactStatus} IN ${sql.in(statuses)}`)
  return clauses.length === 0 ? sql.literal("(1 = 0)") : sql`(${sql.join(" OR ", false)(clauses)})`
}
