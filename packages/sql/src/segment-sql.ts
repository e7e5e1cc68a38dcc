/** Segment rules compiled to one SQL condition over the contacts table (alias `c`), with the semantics of core's
 *  matchesSegment. Every value is a bound parameter; only column names from the fixed table below are spliced in. */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import {
  foldCase, type PresenceOperator, type SegmentCondition, type SegmentNode, type TextField, type TextOperator,
  withinLastDaysStart,
} from "@mailroom/core"

const textColumns: Record<TextField, string> = {
  email: "c.email",
  firstName: "c.first_name",
  lastName: "c.last_name",
  phone: "c.phone",
}

const dateColumns = { createdAt: "c.created_at", subscribedAt: "c.subscribed_at" } as const

/** `text` with ASCII letters lower-cased and nothing else, as core's foldCase does. SQLite's lower() folds only ASCII;
 *  Postgres's folds every letter of the locale, so Postgres translates A-Z instead. */
export const foldedSql = (sql: SqlClient.SqlClient, text: Fragment): Fragment =>
  sql.onDialectOrElse({
    pg: () => sql`translate(${text}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`,
    orElse: () => sql`lower(${text})`,
  })

/** `text` as a LIKE pattern that matches it literally (with ESCAPE '\'). */
export const likeLiteral = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/** The text a text condition reads, absent and null as "" (core's conditionText). */
const subject = (sql: SqlClient.SqlClient, condition: SegmentCondition & { readonly field: TextField | "customField" }) =>
  condition.field === "customField"
    ? sql`coalesce((SELECT f.value FROM contact_custom_fields f
        WHERE f.contact_id = c.id AND f.key = ${condition.key}), '')`
    : sql`coalesce(${sql.literal(textColumns[condition.field])}, '')`

const textCondition = (
  sql: SqlClient.SqlClient,
  text: Fragment,
  operator: TextOperator | PresenceOperator,
  value: string,
): Fragment => {
  const folded = foldedSql(sql, text)
  const needle = likeLiteral(foldCase(value))
  switch (operator) {
    case "equals": return sql`${folded} = ${foldCase(value)}`
    case "notEquals": return sql`${folded} <> ${foldCase(value)}`
    case "contains": return sql`${folded} LIKE ${`%${needle}%`} ESCAPE '\\'`
    case "notContains": return sql`${folded} NOT LIKE ${`%${needle}%`} ESCAPE '\\'`
    case "startsWith": return sql`${folded} LIKE ${`${needle}%`} ESCAPE '\\'`
    case "endsWith": return sql`${folded} LIKE ${`%${needle}`} ESCAPE '\\'`
    case "isSet": return sql`${text} <> ''`
    case "isNotSet": return sql`${text} = ''`
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
