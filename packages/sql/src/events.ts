/** The events table behind `Store.events`: the outbox, written in the caller's transaction, read oldest first, and
 *  relayed to consumers in order (see migration 0007 for how the order is kept on each dialect). */
import type { SqlClient } from "@effect/sql"
import { AccountId, type DomainEvent, type EventOutbox, EventType, relayPassWindow } from "@mailroom/core"
import { Clock, Effect, Schema } from "effect"
import { insertColumns } from "./internal/batch.js"
import { EpochMillis, IntegerColumn, JsonColumn, LiteralColumn, toJson, toMillis } from "./internal/columns.js"
import type { CommitSignal } from "./internal/commit-signal.js"
import { isSqlError, orStoreError, storeError } from "./internal/errors.js"

const EventRow = Schema.Struct({
  id: Schema.String,
  account_id: AccountId,
  type: LiteralColumn(EventType),
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
const decodeLocked = Schema.decodeUnknown(Schema.Array(Schema.Struct({ locked: Schema.Boolean })))
const decodeWindowEnds = Schema.decodeUnknown(Schema.Array(Schema.Struct({ ...Cursor.fields, passed: IntegerColumn, wanted: IntegerColumn })))

const toEvent = (row: typeof EventRow.Type): DomainEvent => ({
  id: row.id,
  accountId: row.account_id,
  type: row.type,
  recipient: row.recipient,
  details: row.details,
  occurredAt: row.occurred_at,
})

/** An event's values, in the order of `eventInsertColumns`. */
const eventRow = (event: DomainEvent) =>
  [event.id, event.accountId, event.type, event.recipient, toJson(event.details), toMillis(event.occurredAt)]

const eventInsertColumns = [
  ["id", "text"], ["account_id", "text"], ["type", "text"], ["recipient", "text"], ["details", "json"], ["occurred_at", "bigint"],
] as const

const eventColumns = "id, account_id, type, recipient, details, occurred_at"

/** The cursor as the statement reads it from its `c` CTE (the consumer's stored cursor): see takeWindow. */
const storedCursor = Symbol("storedCursor")
type StoredCursor = typeof storedCursor

/** The events after `cursor` that the relay may hand out now, oldest first, at most `limit` (`columns` of them).
 *  Postgres: only events of transactions older than the oldest transaction of this database still running when this
 *  statement's snapshot was taken, in (xid, seq) order, so that a transaction committing late can never add an event
 *  behind the cursor. Transaction ids are server-wide: the running ones (the snapshot's xip) that pg_stat_activity
 *  shows in another database are left out, so that a long transaction of another application on the server (a dump, a
 *  migration, a benchmark) does not hold the relay back. A running id it cannot place (the transaction ended
 *  meanwhile, a prepared transaction) counts as this database's: the relay waits for it as before. SQLite: one writer
 *  at a time, so seq order. Both answer `xid` as text on Postgres (a 64-bit xid8) and 0 on SQLite; the order is the
 *  column's (`events.xid`), since a bare `xid` would name the text (where "10" sorts before "9"). */
const windowAfter = (
  sql: SqlClient.SqlClient,
  cursor: typeof Cursor.Type | StoredCursor,
  limit: number,
  columns: string,
  alsoAfter?: typeof Cursor.Type,
) =>
  sql.onDialectOrElse({
    pg: () =>
      sql`SELECT seq, xid::text AS xid, ${sql.literal(columns)} FROM events
        WHERE (xid, seq) > ${cursor === storedCursor ? sql.literal("((SELECT xid FROM c)::text::xid8, (SELECT seq FROM c))") : sql`(${String(cursor.xid)}::xid8, ${cursor.seq})`}
          ${alsoAfter === undefined ? sql.literal("") : sql`AND (xid, seq) > (${String(alsoAfter.xid)}::xid8, ${alsoAfter.seq})`}
          AND xid < (SELECT COALESCE(
            (SELECT min(running) FROM pg_snapshot_xip(snapshot) AS running
              WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity AS elsewhere
                WHERE elsewhere.backend_xid = running::xid AND elsewhere.datname <> current_database())),
            pg_snapshot_xmax(snapshot)) FROM (SELECT pg_current_snapshot() AS snapshot) AS now)
        ORDER BY events.xid, events.seq LIMIT ${limit}`,
    orElse: () =>
      cursor === storedCursor
        ? Effect.dieMessage("a window after the stored cursor is read in one statement on Postgres only")
        : sql`SELECT seq, 0 AS xid, ${sql.literal(columns)} FROM events
          WHERE seq > ${cursor.seq} ORDER BY seq LIMIT ${limit}`,
  })

const eventsAfter = (sql: SqlClient.SqlClient, cursor: typeof Cursor.Type, limit: number) =>
  windowAfter(sql, cursor, limit, eventColumns).pipe(Effect.flatMap(decodeRelayRows))

/** The end of the window after `cursor` (see windowAfter), how many events it holds and how many of them are of
 *  `types`; none when it is empty. */
const windowEnd = (sql: SqlClient.SqlClient, cursor: typeof Cursor.Type, limit: number, types: ReadonlyArray<EventType>) =>
  sql`WITH ${endOfWindow(sql, windowAfter(sql, cursor, limit, "type"), types)}`.pipe(Effect.flatMap(decodeWindowEnds))

/** The CTEs and the query of windowEnd, over `window` (a windowAfter of the column `type`). */
const endOfWindow = (sql: SqlClient.SqlClient, window: ReturnType<typeof windowAfter>, types: ReadonlyArray<EventType>) =>
  sql`w AS (${window}),
    counted AS (SELECT count(*) AS passed,
      ${types.length === 0 ? sql.literal("0") : sql`COALESCE(sum(CASE WHEN type IN ${sql.in(types)} THEN 1 ELSE 0 END), 0)`} AS wanted
      FROM w)
    SELECT xid, seq, passed, wanted FROM w, counted
    ORDER BY ${sql.onDialectOrElse({ pg: () => sql.literal("xid::xid8 DESC, seq DESC"), orElse: () => sql.literal("seq DESC") })}
    LIMIT 1`

/** The end of the window a consumer of `types` may pass (see passBy), after its stored cursor and after `kept` (the
 *  cursor this process got to, when it has one): Postgres reads the stored cursor in the same statement, one round trip
 *  where a read of the cursor and one of the window took two; SQLite reads the cursor, then the window. None when the
 *  window is empty, or the consumer has no cursor stored. */
const passWindowEnd = (
  sql: SqlClient.SqlClient,
  consumer: string,
  kept: typeof Cursor.Type | undefined,
  limit: number,
  types: ReadonlyArray<EventType>,
) =>
  sql.onDialectOrElse({
    pg: () =>
      sql`WITH c AS (SELECT xid, seq FROM event_relay_cursors WHERE consumer = ${consumer}),
        ${endOfWindow(sql, windowAfter(sql, storedCursor, limit, "type", kept), types)}`.pipe(Effect.flatMap(decodeWindowEnds)),
    orElse: () =>
      readCursor(sql, consumer).pipe(Effect.flatMap(([stored]) =>
        stored === undefined ? Effect.succeed([]) : windowEnd(sql, laterCursor(stored, kept), limit, types))),
  })

/** Where an events row (aliased `e`) lies after `cursor` and up to `end` (included), in the relay's order. */
const between = (sql: SqlClient.SqlClient, cursor: typeof Cursor.Type, end: typeof Cursor.Type, e: string) =>
  sql.onDialectOrElse({
    pg: () =>
      sql`(${sql.literal(e)}.xid, ${sql.literal(e)}.seq) > (${String(cursor.xid)}::xid8, ${cursor.seq})
        AND (${sql.literal(e)}.xid, ${sql.literal(e)}.seq) <= (${String(end.xid)}::xid8, ${end.seq})`,
    orElse: () => sql`${sql.literal(e)}.seq > ${cursor.seq} AND ${sql.literal(e)}.seq <= ${end.seq}`,
  })

/** The events of `types` after `cursor` up to `end` (included), in the relay's order. Every event up to `end` was in
 *  the window that `end` closes: on Postgres every transaction with a smaller xid had ended when that window was read. */
const eventsThrough = (
  sql: SqlClient.SqlClient,
  cursor: typeof Cursor.Type,
  end: typeof Cursor.Type,
  types: ReadonlyArray<EventType>,
) =>
  sql`SELECT seq, ${sql.onDialectOrElse({ pg: () => sql.literal("xid::text"), orElse: () => sql.literal("0") })} AS xid,
      ${sql.literal(eventColumns)} FROM events e
    WHERE ${between(sql, cursor, end, "e")} AND type IN ${sql.in(types)}
    ORDER BY ${sql.onDialectOrElse({ pg: () => sql.literal("e.xid, e.seq"), orElse: () => sql.literal("e.seq") })}`.pipe(Effect.flatMap(decodeRelayRows))

/** The batch of the window after `cursor`: the events to hand out (of `types` only, when given), where the cursor
 *  moves and how many events it moves past; none when the window is empty. */
const relayBatch = (sql: SqlClient.SqlClient, cursor: typeof Cursor.Type, limit: number, types: ReadonlyArray<EventType> | undefined) =>
  Effect.gen(function* () {
    if (types === undefined) {
      const rows = yield* eventsAfter(sql, cursor, limit)
      const last = rows.at(-1)
      return last === undefined ? undefined : { rows, end: last, passed: rows.length }
    }
    const [end] = yield* windowEnd(sql, cursor, limit, types)
    if (end === undefined) return undefined
    const rows = end.wanted === 0 ? [] : yield* eventsThrough(sql, cursor, end, types)
    return { rows, end, passed: end.passed }
  })

/** How often a consumer of some types stores the cursor it moved by passing windows without its types. */
const storeCursorEvery = 5_000

/** The later of a stored cursor and one kept in this process (see passBy): in (xid, seq) order. */
const laterCursor = (stored: typeof Cursor.Type, kept: typeof Cursor.Type | undefined): typeof Cursor.Type => {
  if (kept === undefined) return stored
  const [a, b] = [BigInt(String(stored.xid)), BigInt(String(kept.xid))]
  return a > b || (a === b && Number(stored.seq) >= Number(kept.seq)) ? stored : kept
}

/** Takes the consumer's cursor for this transaction, or answers none when another process holds it. Postgres: a
 *  transaction-level advisory lock, which (unlike a row lock) gives the transaction no xid of its own, so the relay
 *  does not hold back its own reads. SQLite: one process, one writer. */
const lockCursor = (sql: SqlClient.SqlClient, consumer: string) =>
  sql.onDialectOrElse({
    // The lock first, then the cursor, in a statement of its own: a statement reads as of its start, so a cursor read
    // in the statement that takes the lock could be the one from before the commit of the transaction that just
    // released it, and the same batch would be handed out twice.
    pg: () =>
      sql`SELECT pg_try_advisory_xact_lock(hashtext('mailroom_relay'), hashtext(${consumer})) AS locked`.pipe(
        Effect.flatMap(decodeLocked),
        Effect.flatMap((rows) => rows[0]?.locked === true ? readCursor(sql, consumer) : Effect.succeed([])),
      ),
    orElse: () => readCursor(sql, consumer),
  })

/** The consumer's stored cursor, without taking it. */
const readCursor = (sql: SqlClient.SqlClient, consumer: string) =>
  sql`SELECT xid, seq FROM event_relay_cursors WHERE consumer = ${consumer}`.pipe(Effect.flatMap(decodeCursors))

export const makeEventOutbox = (sql: SqlClient.SqlClient, commits: CommitSignal): EventOutbox => {
  const insertEvents = insertColumns(sql, "events", eventInsertColumns)
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
  /** Where each consumer of some types got to by passing windows that held none of its types (see passBy), and when
   *  its stored cursor last caught up. */
  const passedBy = new Map<string, { end: typeof Cursor.Type; storedAt: number }>()
  /** A consumer of some types whose next window (up to `relayPassWindow` events) holds none of them passes it by
   *  without a transaction: one read of its cursor and the window's end (passWindowEnd; one statement on Postgres). The
   *  end is kept in this process and stored at most every `storeCursorEvery`: nothing of its types lies before it, so
   *  any process may start from it, and a process that starts from the stored cursor instead reads those windows again
   *  and finds nothing in them. Answers how many events were passed (0 when the consumer has no cursor stored), or
   *  undefined when the window holds some of its types, or the stored cursor is due (the transaction does both). */
  const passBy = (consumer: string, limit: number, types: ReadonlyArray<EventType>) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const kept = passedBy.get(consumer)
      const [end] = yield* passWindowEnd(sql, consumer, kept?.end, Math.max(limit, relayPassWindow), types)
      if (end === undefined) return 0
      if (end.wanted > 0) return undefined
      if (kept === undefined) passedBy.set(consumer, { end, storedAt: now })
      else if (now - kept.storedAt >= storeCursorEvery) return undefined
      else kept.end = end
      return end.passed
    })

  /** Stores the consumer's cursor at `end`; answers when. */
  const moveCursor = (consumer: string, end: typeof Cursor.Type) =>
    Effect.gen(function* () {
      const updatedAt = yield* Clock.currentTimeMillis
      yield* sql`UPDATE event_relay_cursors SET xid = ${Number(end.xid)}, seq = ${end.seq}, updated_at = ${updatedAt}
        WHERE consumer = ${consumer}`.pipe(orStoreError("events.relay"))
      return updatedAt
    })

  return {
    append: (events) =>
      insertEvents(events.map(eventRow)).pipe(
        Effect.zipRight(events.length > 0 ? commits.appended(events.map((event) => event.type)) : Effect.void),
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

    relay: (consumer, limit, handle, types) =>
      Effect.gen(function* () {
        // Outside the transaction: on Postgres, a write would give the relay's transaction an xid of its own.
        yield* ensureCursor(consumer)
        if (types !== undefined) {
          const passed = yield* passBy(consumer, limit, types).pipe(orStoreError("events.relay"))
          if (passed !== undefined) return passed
        }
        const moved = yield* commits.track(sql.withTransaction(Effect.gen(function* () {
          const [stored] = yield* lockCursor(sql, consumer).pipe(orStoreError("events.relay"))
          if (stored === undefined) return undefined
          const cursor = laterCursor(stored, passedBy.get(consumer)?.end)
          const batch = yield* relayBatch(sql, cursor, limit, types).pipe(orStoreError("events.relay"))
          if (batch === undefined) return undefined
          if (types === undefined || batch.rows.length > 0) yield* handle(batch.rows.map(toEvent))
          const updatedAt = yield* moveCursor(consumer, batch.end)
          return { end: batch.end, passed: batch.passed, at: updatedAt }
        }))).pipe(Effect.catchIf(isSqlError, (cause) => Effect.fail(storeError("events.relay")(cause))))
        if (moved === undefined) return 0
        // Committed: the stored cursor is where this process got to.
        if (types !== undefined) passedBy.set(consumer, { end: moved.end, storedAt: moved.at })
        return moved.passed
      }),

    appended: commits.next,
  }
}
