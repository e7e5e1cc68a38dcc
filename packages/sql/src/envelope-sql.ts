/** The request body of a webhook delivery, built in SQL from a row of `events`, as webhookEnvelope builds it in core:
 *  one rule, compiled here for SQLite and Postgres, and held to webhookEnvelope by a differential test
 *  (test/envelope-sql.test.ts), so that fan-out makes its deliveries in one INSERT … SELECT without reading the events
 *  into memory. The text is built by concatenation, in webhookEnvelope's key order: eventType, messageId, timestamp,
 *  recipient (omitted when null), the lifted fields of delivery events (each when a non-empty string), details.
 *  Strings are quoted by the database's JSON functions, which escape as JSON.stringify does. `details` is the stored
 *  text; for delivery events, the stored object without messageId and the lifted fields (on Postgres through jsonb,
 *  whose text orders keys its own way: the same JSON, other bytes). */
import type { SqlClient } from "@effect/sql"
import { deliveryEventTypes, liftedEnvelopeFields } from "@mailroom/core"

/** A string constant of the SQL text (the values here are Mailroom's own: event types and field names). */
const literal = (value: string) => `'${value.replace(/'/g, "''")}'`

const isDeliveryEvent = (e: string) => `${e}.type IN (${deliveryEventTypes.map(literal).join(", ")})`

/** What differs between the dialects, over the events row aliased `e`. */
interface Dialect {
  /** The JSON string of a text expression. */
  readonly quote: (expression: string) => string
  /** The time of the event as toISOString writes it. */
  readonly timestamp: string
  /** A top-level field of the details, as text, and whether it is a JSON string. */
  readonly value: (field: string) => string
  readonly isString: (field: string) => string
  /** The details as stored, and without `fields`, as JSON text. */
  readonly details: string
  readonly detailsWithout: (fields: ReadonlyArray<string>) => string
}

const dialects = {
  pg: (e: string): Dialect => ({
    quote: (expression) => `to_json(${expression})::text`,
    timestamp: `to_char(to_timestamp(${e}.occurred_at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
    value: (field) => `(${e}.details ->> ${literal(field)})`,
    isString: (field) => `json_typeof(${e}.details -> ${literal(field)}) = 'string'`,
    details: `${e}.details::text`,
    detailsWithout: (fields) => `(${e}.details::jsonb ${fields.map((field) => `- ${literal(field)}`).join(" ")})::text`,
  }),
  sqlite: (e: string): Dialect => {
    const path = (field: string) => literal(`$.${field}`)
    return {
      quote: (expression) => `json_quote(${expression})`,
      timestamp: `strftime('%Y-%m-%dT%H:%M:%fZ', ${e}.occurred_at / 1000.0, 'unixepoch')`,
      value: (field) => `json_extract(${e}.details, ${path(field)})`,
      isString: (field) => `json_type(${e}.details, ${path(field)}) = 'text'`,
      details: `${e}.details`,
      detailsWithout: (fields) => `json_remove(${e}.details, ${fields.map(path).join(", ")})`,
    }
  },
}

/** The payload expression over the events row aliased `e`: one test of the type, then the envelope of a delivery
 *  event (messageId and the lifted fields taken from the details) or the plain one. An event type is one of
 *  Mailroom's (letters, dots and underscores): it needs no escaping. */
export const envelopeSql = (sql: SqlClient.SqlClient, e: string): string => {
  const d = sql.onDialectOrElse({ pg: () => dialects.pg(e), orElse: () => dialects.sqlite(e) })
  const envelope = (messageId: string, lifted: string, details: string) =>
    `'{"eventType":"' || ${e}.type || '","messageId":' || ${d.quote(messageId)} || ',"timestamp":"' || ${d.timestamp} || '"'
      || CASE WHEN ${e}.recipient IS NULL THEN '' ELSE ',"recipient":' || ${d.quote(`${e}.recipient`)} END
      ${lifted} || ',"details":' || ${details} || '}'`
  const liftable = (field: string) => `${d.isString(field)} AND ${d.value(field)} <> ''`
  const delivery = envelope(
    `CASE WHEN ${liftable("messageId")} THEN ${d.value("messageId")} ELSE ${e}.id END`,
    liftedEnvelopeFields.map((field) =>
      `|| CASE WHEN ${liftable(field)} THEN ${literal(`,"${field}":`)} || ${d.quote(d.value(field))} ELSE '' END`).join(" "),
    d.detailsWithout(["messageId", ...liftedEnvelopeFields]),
  )
  return `CASE WHEN ${isDeliveryEvent(e)} THEN ${delivery} ELSE ${envelope(`${e}.id`, "", d.details)} END`
}
