/** The events table behind `Store.events`: the outbox, written in the caller's transaction and read oldest first. */
import type { SqlClient } from "@effect/sql"
import { AccountId, type DomainEvent, type EventOutbox, EventType } from "@mailroom/core"
import { Effect, Schema } from "effect"
import { insertRows } from "./internal/batch.js"
import { EpochMillis, JsonColumn, toJson, toMillis } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"

const EventRow = Schema.Struct({
  id: Schema.String,
  account_id: AccountId,
  type: EventType,
  recipient: Schema.NullOr(Schema.String),
  details: JsonColumn(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  occurred_at: EpochMillis,
})
const decodeEventRows = Schema.decodeUnknown(Schema.Array(EventRow))

const toEvent = (row: typeof EventRow.Type): DomainEvent => ({
  id: row.id,
  accountId: row.account_id,
  type: row.type,
  recipient: row.recipient,
  details: row.details,
  occurredAt: row.occurred_at,
})

const eventRow = (event: DomainEvent) => ({
  id: event.id,
  account_id: event.accountId,
  type: event.type,
  recipient: event.recipient,
  details: toJson(event.details),
  occurred_at: toMillis(event.occurredAt),
})

export const makeEventOutbox = (sql: SqlClient.SqlClient): EventOutbox => ({
  append: (events) => insertRows(sql, "events", events.map(eventRow)).pipe(Effect.asVoid, orStoreError("events.append")),

  // Oldest first; events of the same millisecond keep the order they were appended in.
  list: (accountId, options) =>
    sql`SELECT id, account_id, type, recipient, details, occurred_at FROM events
      WHERE account_id = ${accountId}
      ${options?.type === undefined ? sql.literal("") : sql`AND type = ${options.type}`}
      ORDER BY occurred_at, seq
      ${options?.limit === undefined ? sql.literal("") : sql`LIMIT ${options.limit}`}`.pipe(
      Effect.flatMap(decodeEventRows),
      Effect.map((rows) => rows.map(toEvent)),
      orStoreError("events.list"),
    ),
})
