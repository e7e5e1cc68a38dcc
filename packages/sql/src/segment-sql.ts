/** Segment rules compiled to one SQL condition over the contacts table (alias `c`), with the semantics of core's
 *  matchesSegment. Every value is a bound parameter; only column names from the fixed table below are spliced in. */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import {
  foldText, type LikeShape, likePattern, type PresenceOperator, type SegmentCondition, type SegmentNode, type TextField,
  type TextOperator, withinLastDaysStart,
} from "@mailroom/core"

/** Each text field's column and its folded column (core's foldText, written by the store). An address is its own
 *  folding. */
const textColumns: Record<TextField, { readonly text: string; readonly folded: string }> = {
  email: { text: "c.email", folded: "c.email" },
  firstName: { text: "c.first_name", folded: "c.first_name_folded" },
  lastName: { text: "c.last_name", folded: "c.last_name_folded" },
  phone: { text: "c.phone", folded: "c.phone_folded" },
}

const dateColumns = { createdAt: "c.created_at", subscribedAt: "c.subscribed_at" } as const

/** The text a text condition reads, absent and null as "" (core's conditionText), as written and folded. */
const subject = (sql: SqlClient.SqlClient, condition: SegmentCondition & { readonly field: TextField | "customField" }) => {
  if (condition.field === "customField") {
    const column = (name: string) => sql`coalesce((SELECT ${sql.literal(name)} FROM contact_custom_fields f
        WHERE f.contact_id = c.id AND f.key = ${condition.key}), '')`
    return { text: column("f.value"), folded: column("f.value_folded") }
  }
  const columns = textColumns[condition.field]
  return {
    text: sql`coalesce(${sql.literal(columns.text)}, '')`,
    folded: sql`coalesce(${sql.literal(columns.folded)}, '')`,
  }
}

/** `folded LIKE pattern`, the pattern of core's likePattern for the folded value. */
const like = (sql: SqlClient.SqlClient, folded: Fragment, value: string, shape: LikeShape): Fragment =>
  sql`${folded} LIKE ${likePattern(foldText(value), shape)} ESCAPE '\\'`

const textCondition = (
  sql: SqlClient.SqlClient,
  text: { readonly text: Fragment; readonly folded: Fragment },
  operator: TextOperator | PresenceOperator,
  value: string,
): Fragment => {
  switch (operator) {
    case "equals": return sql`${text.folded} = ${foldText(value)}`
    case "notEquals": return sql`${text.folded} <> ${foldText(value)}`
    case "contains": return like(sql, text.folded, value, "contains")
    case "notContains": return sql`NOT (${like(sql, text.folded, value, "contains")})`
    case "startsWith": return like(sql, text.folded, value, "startsWith")
    case "endsWith": return like(sql, text.folded, value, "endsWith")
    case "isSet": return sql`${text.text} <> ''`
    case "isNotSet": return sql`${text.text} = ''`
  }
}

const conditionSql = (sql: SqlClient.SqlClient, condition: SegmentCondition, now: Date): Fragment => {
  switch (condition.field) {
    case "status":
      return condition.operator === "in"
        ? sql`c.status IN ${sql.in(condition.value)}`
        : sql`c.status NOT IN ${sql.in(condition.value)}`
    case "source":
      return condition.operator === "in"
        ? sql`c.source IN ${sql.in(condition.value)}`
        : sql`c.source NOT IN ${sql.in(condition.value)}`
    case "tag": {
      const tagged = sql`EXISTS (SELECT 1 FROM contact_tags t WHERE t.contact_id = c.id AND t.tag = ${condition.value})`
      return condition.operator === "has" ? tagged : sql`NOT ${tagged}`
    }
    case "createdAt":
    case "subscribedAt": {
      const column = sql.literal(dateColumns[condition.field])
      if (condition.operator === "withinLastDays") return sql`${column} >= ${withinLastDaysStart(now, condition.value)}`
      const bound = Date.parse(condition.value)
      return condition.operator === "before" ? sql`${column} < ${bound}` : sql`${column} > ${bound}`
    }
    default:
      return textCondition(sql, subject(sql, condition), condition.operator, "value" in condition ? condition.value : "")
  }
}

/** Clauses joined by AND or OR, each in parentheses so that no operator precedence leaks between them. An empty group
 *  (which the rules schema refuses) would read as true for AND and false for OR. */
const joined = (sql: SqlClient.SqlClient, separator: " AND " | " OR ", clauses: ReadonlyArray<Fragment>): Fragment =>
  sql.join(separator, true, separator === " AND " ? "1=1" : "1=0")(clauses.map((clause) => sql`(${clause})`))

/** The condition selecting the contacts (alias `c`) that `rules` match at `now`. */
export const segmentSql = (sql: SqlClient.SqlClient, rules: SegmentNode, now: Date): Fragment =>
  "all" in rules ? joined(sql, " AND ", rules.all.map((node) => segmentSql(sql, node, now)))
  : "any" in rules ? joined(sql, " OR ", rules.any.map((node) => segmentSql(sql, node, now)))
  : conditionSql(sql, rules, now)
