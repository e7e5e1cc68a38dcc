/** The events table behind `Store.events`: the outbox, written in the caller's transaction, read oldest first, and
 *  relayed to consumers in order (see migration 0007 for how the order is kept on each dialect). */
import type { SqlClient } from "@effect/sql"
import { AccountId, type DomainEvent, type EventOutbox, EventType } from "@mailroom/core"
import { Clock, Effect, Schema } from "effect"
import { insertRows } from "./internal/batch.js"
import { EpochMillis, IntegerColumn, JsonColumn, toJson, toMillis } from "./internal/columns.js"
import type { CommitSignal } from "./internal/commit-signal.js"
import { isSqlError, orStoreError, storeError } from "./internal/errors.js"

const EventRow = Schema.Struct({
  id: Schema.String,
  account_id: AccountId,
  type: EventType,
  recipient: Schema.NullOr(Schema.String),
  details: JsonColumn(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  occurred_at: EpochMillis,
})
const decodeEventRows = Schema.decodeUnknown(Schema.Array(EventRow))

/** An event as the relay reads it: with its place in the order. `xid` is the Postgres transaction id (as text, it
 *  is a 64-bit xid8); SQLite answers 0. */
const RelayRow = Schema.Struct({ ...EventRow.fields, seq: IntegerColumn, xid: Schema.Union(Schema.String, Schema.Number) })
const decodeRelayRows = Schema.decodeUnknown(Schema.Array(RelayRow))
const Cursor = Schema.Struct({ xid: Schema.Union(Schema.String, Schema.Number), seq: Schema.Union(Schema.String, Schema.Number) })
const decodeCursors = Schema.decodeUnknown(Schema.Array(Cursor))

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

/** The events after `cursor` that the relay may hand out now. Postgres: only events of transactions older than the
 *  oldest transaction of this database still running when this statement's snapshot was taken, in (xid, seq) order,
 *  so that a transaction committing late can never add an event behind the cursor. Transaction ids are server-wide:
 *  the running ones (the snapshot's xip) that pg_stat_activity shows in another database are left out, so that a
 *  long transaction of another application on the server (a dump, a migration, a benchmark) does not hold the relay
 *  back. A running id it cannot place (the transaction ended meanwhile, a prepared transaction) counts as this
 *  database's: the relay waits for it as before. SQLite: one writer at a time, so seq order. */
const eventsAfter = (sql: SqlClient.SqlClient, cursor: typeof Cursor.Type, limit: number) =>
  sql.onDialectOrElse({
    pg: () =>
      sql`SELECT seq, xid::text AS xid, id, account_id, type, recipient, details, occurred_at FROM events
        WHERE (xid, seq) > (${String(cursor.xid)}::xid8, ${cursor.seq})
          AND xid < (SELECT COALESCE(
            (SELECT min(running) FROM pg_snapshot_xip(snapshot) AS running
              WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity AS elsewhere
                WHERE elsewhere.backend_xid = running::xid AND elsewhere.datname <> current_database())),
            pg_snapshot_xmax(snapshot)) FROM (SELECT pg_current_snapshot() AS snapshot) AS now)
        ORDER BY xid, seq LIMIT ${limit}`,
    orElse: () =>
      sql`SELECT seq, 0 AS xid, id, account_id, type, recipient, details, occurred_at FROM events
        WHERE seq > ${cursor.seq} ORDER BY seq LIMIT ${limit}`,
  }).pipe(Effect.flatMap(decodeRelayRows))

/** Takes the consumer's cursor for this transaction, or answers none when another process holds it. Postgres: a
 *  transaction-level advisory lock, which (unlike a row lock) gives the transaction no xid of its own, so the relay
 *  does not hold back its own reads. SQLite: one process, one writer. */
const lockCursor = (sql: SqlClient.SqlClient, consumer: string) =>
  sql.onDialectOrElse({
    pg: () =>
      sql<{ readonly locked: boolean }>`SELECT pg_try_advisory_xact_lock(hashtext('mailroom_relay'), hashtext(${consumer})) AS locked`.pipe(
        Effect.map((rows) => rows[0]?.locked === true),
      ),
    orElse: () => Effect.succeed(true),
  }).pipe(
    Effect.flatMap((locked) => locked
      ? sql`SELECT xid, seq FROM event_relay_cursors WHERE consumer = ${consumer}`.pipe(Effect.flatMap(decodeCursors))
      : Effect.succeed([])),
  )

export const makeEventOutbox = (sql: SqlClient.SqlClient, commits: CommitSignal): EventOutbox => {
  /** Consumers whose cursor row this process has seen exist (rows are never deleted). */
  const knownCursors = new Set<string>()
  const ensureCursor = (consumer: string) =>
    knownCursors.has(consumer)
      ? Effect.void
      : sql`INSERT INTO event_relay_cursors (consumer, xid, seq, updated_at) VALUES (${consumer}, 0, 0, 0)
          ON CONFLICT (consumer) DO NOTHING`.pipe(
        Effect.tap(() => Effect.sync(() => knownCursors.add(consumer))),
        orStoreError("events.relay"),
      )
  return {
    append: (events) =>
      insertRows(sql, "events", events.map(eventRow)).pipe(
        Effect.zipRight(events.length > 0 ? commits.appended : Effect.void),
        orStoreError("events.append"),
      ),

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

    relay: (consumer, limit, handle) =>
      Effect.gen(function* () {
        // Outside the transaction: on Postgres, a write would give the relay's transaction an xid of its own.
        yield* ensureCursor(consumer)
        return yield* commits.track(sql.withTransaction(Effect.gen(function* () {
          const [cursor] = yield* lockCursor(sql, consumer).pipe(orStoreError("events.relay"))
          if (cursor === undefined) return 0
          const rows = yield* eventsAfter(sql, cursor, limit).pipe(orStoreError("events.relay"))
          const last = rows.at(-1)
          if (last === undefined) return 0
          yield* handle(rows.map(toEvent))
          const updatedAt = yield* Clock.currentTimeMillis
          yield* sql`UPDATE event_relay_cursors SET xid = ${Number(last.xid)}, seq = ${last.seq}, updated_at = ${updatedAt}
            WHERE consumer = ${consumer}`.pipe(orStoreError("events.relay"))
          return rows.length
        }))).pipe(Effect.catchIf(isSqlError, (cause) => Effect.fail(storeError("events.relay")(cause))))
      }),

    appended: commits.next,
  }
}
