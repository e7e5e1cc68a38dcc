/** The webhook tables behind `Store.webhooks`: endpoints (secrets sealed), one subscription row per endpoint and event
 *  type, deliveries unique per (event, endpoint) and their attempts. Fan-out is one INSERT … SELECT for a whole batch
 *  of events, computing each delivery's id as core's deliveryIdFor does. */
import type { SqlClient } from "@effect/sql"
import {
  AccountId, DeliveryId, type DeliveryOutcome, DeliveryStatus, type EndpointStreak, EventType, fannedOutDelivery, ReceivedEventType, type WebhookAttempt,
  type WebhookDelivery, type WebhookEndpoint, WebhookId, type WebhookRepository,
} from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { atomically, forEachChunk, insertColumns, insertRows, maxInList, pgRowsStatementOfTwo, rowsStatement } from "./internal/batch.js"
import { EpochMillis, IntegerColumn, JsonColumn, LiteralColumn, toJson, toMillis, toMillisOrNull } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"
import { BooleanColumn, booleanParam } from "./lists.js"

const FailureSettingsColumn = JsonColumn(Schema.Struct({
  enabled: Schema.Boolean,
  notifyEmails: Schema.Array(Schema.String),
  failureThreshold: Schema.Number,
  autoDisableAfter: Schema.Number,
}))

const EndpointRow = Schema.Struct({
  id: WebhookId,
  account_id: AccountId,
  url: Schema.String,
  events: JsonColumn(Schema.Array(Schema.String)),
  description: Schema.NullOr(Schema.String),
  active: BooleanColumn,
  secret_prefix: Schema.String,
  sealed_secret: Schema.String,
  sealed_previous_secret: Schema.NullOr(Schema.String),
  previous_secret_expires_at: Schema.NullOr(EpochMillis),
  failure_settings: FailureSettingsColumn,
  consecutive_failures: IntegerColumn,
  streak_notified: BooleanColumn,
  disabled_reason: Schema.NullOr(Schema.String),
  disabled_at: Schema.NullOr(EpochMillis),
  created_at: EpochMillis,
  updated_at: EpochMillis,
})
type EndpointRow = typeof EndpointRow.Type

const fromEndpointRow = (row: EndpointRow): WebhookEndpoint => ({
  id: row.id,
  accountId: row.account_id,
  url: row.url,
  events: row.events as ReadonlyArray<EventType>,
  description: row.description,
  active: row.active,
  secretPrefix: row.secret_prefix,
  sealedSecret: row.sealed_secret,
  sealedPreviousSecret: row.sealed_previous_secret,
  previousSecretExpiresAt: row.previous_secret_expires_at,
  failureSettings: row.failure_settings,
  streak: { consecutiveFailures: row.consecutive_failures, notified: row.streak_notified },
  disabledReason: row.disabled_reason,
  disabledAt: row.disabled_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const DeliveryRow = Schema.Struct({
  id: DeliveryId,
  account_id: AccountId,
  endpoint_id: WebhookId,
  event_id: Schema.NullOr(Schema.String),
  event_type: LiteralColumn(ReceivedEventType),
  kind: Schema.Literal("event", "test", "retry"),
  payload: Schema.String,
  status: DeliveryStatus,
  attempts: IntegerColumn,
  last_status_code: Schema.NullOr(IntegerColumn),
  last_error: Schema.NullOr(Schema.String),
  created_at: EpochMillis,
  updated_at: EpochMillis,
  completed_at: Schema.NullOr(EpochMillis),
})
type DeliveryRow = typeof DeliveryRow.Type

const fromDeliveryRow = (row: DeliveryRow): WebhookDelivery => ({
  id: row.id,
  accountId: row.account_id,
  endpointId: row.endpoint_id,
  eventId: row.event_id,
  eventType: row.event_type,
  kind: row.kind,
  payload: row.payload,
  status: row.status,
  attempts: row.attempts,
  lastStatusCode: row.last_status_code,
  lastError: row.last_error,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  completedAt: row.completed_at,
})

const AttemptRow = Schema.Struct({
  id: Schema.String,
  account_id: AccountId,
  delivery_id: DeliveryId,
  endpoint_id: WebhookId,
  attempt: IntegerColumn,
  succeeded: BooleanColumn,
  status_code: Schema.NullOr(IntegerColumn),
  duration_ms: IntegerColumn,
  response_snippet: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  started_at: EpochMillis,
})

const fromAttemptRow = (row: typeof AttemptRow.Type): WebhookAttempt => ({
  id: row.id,
  accountId: row.account_id,
  deliveryId: row.delivery_id,
  endpointId: row.endpoint_id,
  attempt: row.attempt,
  succeeded: row.succeeded,
  statusCode: row.status_code,
  durationMs: row.duration_ms,
  responseSnippet: row.response_snippet,
  error: row.error,
  startedAt: row.started_at,
})

const decodeEndpoints = Schema.decodeUnknown(Schema.Array(EndpointRow))
const decodeEndpointsWithCount = Schema.decodeUnknown(Schema.Array(Schema.extend(EndpointRow, Schema.Struct({ total_deliveries: IntegerColumn }))))
const decodeDeliveries = Schema.decodeUnknown(Schema.Array(DeliveryRow))
const decodeMadePairs = Schema.decodeUnknown(Schema.Array(Schema.Struct({ event_id: Schema.String, endpoint_id: WebhookId })))
const decodeAttempts = Schema.decodeUnknown(Schema.Array(AttemptRow))
const decodeCount = Schema.decodeUnknown(Schema.Array(Schema.Struct({ total: IntegerColumn })))
const decodeStats = Schema.decodeUnknown(Schema.Array(Schema.Struct({ total: IntegerColumn, succeeded: Schema.NullOr(IntegerColumn) })))

const endpointColumns = "id, account_id, url, events, description, active, secret_prefix, sealed_secret, sealed_previous_secret, " +
  "previous_secret_expires_at, failure_settings, consecutive_failures, streak_notified, disabled_reason, disabled_at, created_at, updated_at"
const deliveryColumns = "id, account_id, endpoint_id, event_id, event_type, kind, payload, status, attempts, last_status_code, " +
  "last_error, created_at, updated_at, completed_at"

const endpointColumnList = endpointColumns.split(", ")

/** Postgres: the deliveries named by $1 (an array of ids), each endpoint's columns (prefixed `w_`) on the first row of
 *  its deliveries and NULL on the others. */
const deliveriesWithEndpointsPg = `WITH d AS (
    SELECT ${deliveryColumns}, row_number() OVER (PARTITION BY endpoint_id) AS n FROM webhook_deliveries WHERE id = ANY($1::text[]))
  SELECT ${deliveryColumns.split(", ").map((column) => `d.${column}`).join(", ")},
    ${endpointColumnList.map((column) => `w.${column} AS w_${column}`).join(", ")}
  FROM d LEFT JOIN webhook_endpoints w ON w.id = d.endpoint_id AND d.n = 1`

export const makeWebhookRepository = (sql: SqlClient.SqlClient): WebhookRepository => {
  const bool = (value: boolean) => booleanParam(sql, value)
  /** `true` as each dialect binds it, written into a statement's text. */
  const activeTrue = String(bool(true))

  /** SQLite: the rows of `table` whose id is among `ids`, as IN lists chunked under the parameter limit. */
  const rowsById = (table: "webhook_deliveries" | "webhook_endpoints", columns: string, ids: ReadonlyArray<string>) =>
    forEachChunk(sql, ids, maxInList, (chunk) =>
      sql<Record<string, unknown>>`SELECT ${sql.literal(columns)} FROM ${sql.literal(table)} WHERE id IN ${sql.in(chunk)}`)

  /** The named endpoints of their accounts, in id order; `lock` takes their row locks until commit (Postgres: FOR NO KEY
   *  UPDATE; SQLite's one writer needs none). */
  const endpointsOf = (refs: ReadonlyArray<{ readonly accountId: AccountId; readonly endpointId: string }>, lock: boolean) =>
    refs.length === 0 ? Effect.succeed([]) : sql`SELECT ${sql.literal(endpointColumns)} FROM webhook_endpoints
      WHERE id IN ${sql.in([...new Set(refs.map((ref) => ref.endpointId))])} ORDER BY id
      ${lock ? sql.onDialectOrElse({ pg: () => sql.literal("FOR NO KEY UPDATE"), orElse: () => sql.literal("") }) : sql.literal("")}`.pipe(
      Effect.flatMap(decodeEndpoints),
      Effect.map((rows) => {
        const wanted = new Set(refs.map((ref) => `${ref.accountId} ${ref.endpointId}`))
        return rows.filter((row) => wanted.has(`${row.account_id} ${row.id}`)).map(fromEndpointRow)
      }),
    )

  /** The columns that updateEndpoint rewrites: all but id, account_id and created_at. */
  const mutableColumns = (endpoint: WebhookEndpoint) => ({
    url: endpoint.url,
    events: toJson(endpoint.events),
    description: endpoint.description,
    active: bool(endpoint.active),
    secret_prefix: endpoint.secretPrefix,
    sealed_secret: endpoint.sealedSecret,
    sealed_previous_secret: endpoint.sealedPreviousSecret,
    previous_secret_expires_at: toMillisOrNull(endpoint.previousSecretExpiresAt),
    failure_settings: toJson(endpoint.failureSettings),
    consecutive_failures: endpoint.streak.consecutiveFailures,
    streak_notified: bool(endpoint.streak.notified),
    disabled_reason: endpoint.disabledReason,
    disabled_at: toMillisOrNull(endpoint.disabledAt),
    updated_at: toMillis(endpoint.updatedAt),
  })

  const subscriptionRows = (endpoint: WebhookEndpoint) =>
    endpoint.events.map((type) => ({ endpoint_id: endpoint.id, account_id: endpoint.accountId, event_type: type }))

  const writeSubscriptions = (endpoint: WebhookEndpoint) =>
    endpoint.events.length === 0 ? Effect.void : insertRows(sql, "webhook_subscriptions", subscriptionRows(endpoint))

  /** Moves each delivery of the rows of `v` to its attempt's outcome (one attempt counted): `v` names the delivery in
   *  column `delivery`, its account_id, status, code, the error in column `error`, and at. */
  const moveDeliveries = (delivery: string, error: string) =>
    `UPDATE webhook_deliveries SET status = v.status, attempts = webhook_deliveries.attempts + 1,
        last_status_code = v.code, last_error = v.${error}, updated_at = v.at,
        completed_at = CASE WHEN v.status = 'pending' THEN NULL ELSE v.at END
      FROM v WHERE webhook_deliveries.id = v.${delivery} AND webhook_deliveries.account_id = v.account_id`

  /** The deliveries' new state, one row per attempt: `(id, account_id, status, code, error, at)`. */
  const updateDeliveries = rowsStatement(sql, [
    ["id", "text"], ["account_id", "text"], ["status", "text"], ["code", "integer"], ["error", "text"], ["at", "bigint"],
  ], (source) => `WITH v (id, account_id, status, code, error, at) AS (${source}) ${moveDeliveries("id", "error")}`)

  const attemptColumns = [
    ["id", "text"], ["account_id", "text"], ["delivery_id", "text"], ["endpoint_id", "text"], ["attempt", "integer"],
    ["succeeded", "boolean"], ["status_code", "integer"], ["duration_ms", "integer"], ["response_snippet", "text"],
    ["error", "text"], ["started_at", "bigint"],
  ] as const
  const insertAttempts = insertColumns(sql, "webhook_attempts", attemptColumns)
  const attemptValues = (attempt: WebhookAttempt) => [
    attempt.id, attempt.accountId, attempt.deliveryId, attempt.endpointId, attempt.attempt, bool(attempt.succeeded),
    attempt.statusCode, attempt.durationMs, attempt.responseSnippet, attempt.error, toMillis(attempt.startedAt),
  ]

  /** Postgres: the attempts inserted and their deliveries moved in one statement (a data-modifying CTE), one round trip
   *  instead of two; each row is an attempt's values followed by its outcome's `(status, code, error, at)`. */
  const recordColumns = [...attemptColumns, ["status", "text"], ["code", "integer"], ["outcome_error", "text"], ["at", "bigint"]] as const
  const recordCtes = (source: string) => `WITH v (${recordColumns.map(([name]) => name).join(", ")}) AS (${source}),
      inserted AS (INSERT INTO webhook_attempts (${attemptColumns.map(([name]) => `"${name}"`).join(", ")})
        SELECT ${attemptColumns.map(([name]) => name).join(", ")} FROM v)`
  const recordAttemptsPg = rowsStatement(sql, recordColumns, (source) => `${recordCtes(source)}
      ${moveDeliveries("delivery_id", "outcome_error")}`)

  /** An endpoint's streak set only where it differs (most records of successes find it at zero already): `s` names the
   *  endpoint in `id`, with `account_id`, `consecutive_failures` and `notified`. */
  const setStreaksWhere = "w.id = s.id AND w.account_id = s.account_id AND " +
    "(w.consecutive_failures <> s.consecutive_failures OR w.streak_notified <> s.notified)"
  const streakColumns = [["id", "text"], ["account_id", "text"], ["consecutive_failures", "integer"], ["notified", "boolean"]] as const
  const streakValues = (streaks: ReadonlyArray<EndpointStreak>) =>
    streaks.map(({ accountId, endpointId, streak }) => [endpointId, accountId, streak.consecutiveFailures, bool(streak.notified)])

  /** Postgres: recordAttemptsPg and the endpoints' streaks in one statement (a third CTE). */
  const recordWithStreaksPg = pgRowsStatementOfTwo(sql, recordColumns, streakColumns, (records, streaks) => `${recordCtes(records)},
      streaks AS (UPDATE webhook_endpoints w SET consecutive_failures = s.consecutive_failures, streak_notified = s.notified
        FROM (${streaks}) AS s (id, account_id, consecutive_failures, notified) WHERE ${setStreaksWhere})
      ${moveDeliveries("delivery_id", "outcome_error")}`)

  const recordAttempts = (
    records: ReadonlyArray<{ readonly attempt: WebhookAttempt; readonly outcome: DeliveryOutcome }>,
    streaks: ReadonlyArray<EndpointStreak> = [],
  ) =>
    records.length === 0 && streaks.length === 0 ? Effect.void : sql.onDialectOrElse({
      pg: () => {
        const rows = records.map(({ attempt, outcome }) => [
          ...attemptValues(attempt), outcome.status, outcome.lastStatusCode, outcome.lastError, toMillis(outcome.at),
        ])
        return (streaks.length === 0 ? recordAttemptsPg(rows) : recordWithStreaksPg(rows, streakValues(streaks))).pipe(Effect.asVoid)
      },
      orElse: () => atomically(sql, Effect.gen(function* () {
        yield* insertAttempts(records.map(({ attempt }) => attemptValues(attempt)))
        yield* updateDeliveries(records.map(({ attempt, outcome }) => [
          attempt.deliveryId, attempt.accountId, outcome.status, outcome.lastStatusCode, outcome.lastError, toMillis(outcome.at),
        ]))
        for (const [id, accountId, consecutiveFailures, notified] of streakValues(streaks)) {
          yield* sql`UPDATE webhook_endpoints AS w SET consecutive_failures = s.consecutive_failures, streak_notified = s.notified
            FROM (SELECT ${id} AS id, ${accountId} AS account_id, ${consecutiveFailures} AS consecutive_failures, ${notified} AS notified) AS s
            WHERE ${sql.literal(setStreaksWhere)}`
        }
      })),
    }).pipe(orStoreError("webhooks.recordAttempts"))

  /** The fan-out of a batch of events: one delivery per subscribed active endpoint, the pairs that have one already
   *  skipped. `WHERE true` lets SQLite tell the upsert's ON CONFLICT from a join's ON. */
  const fanOutRows = rowsStatement(sql, [["id", "text"], ["account_id", "text"], ["type", "text"], ["payload", "text"], ["at", "bigint"]],
    (source) => `WITH e (id, account_id, type, payload, at) AS (${source})
      INSERT INTO webhook_deliveries (${deliveryColumns})
      SELECT 'whd_' || e.id || '_' || w.id, e.account_id, w.id, e.id, e.type, 'event', e.payload, 'pending', 0, NULL, NULL,
        e.at, e.at, NULL
      FROM e
      JOIN webhook_subscriptions s ON s.account_id = e.account_id AND s.event_type = e.type
      JOIN webhook_endpoints w ON w.id = s.endpoint_id AND w.active = ${activeTrue}
      WHERE true
      ON CONFLICT (event_id, endpoint_id) DO NOTHING
      RETURNING event_id, endpoint_id`)

  return {
    insertEndpoint: (endpoint) =>
      sql.withTransaction(Effect.gen(function* () {
        yield* sql`INSERT INTO webhook_endpoints ${sql.insert({
          id: endpoint.id,
          account_id: endpoint.accountId,
          created_at: toMillis(endpoint.createdAt),
          ...mutableColumns(endpoint),
        })}`
        yield* writeSubscriptions(endpoint)
      })).pipe(orStoreError("webhooks.insertEndpoint")),

    updateEndpoint: (endpoint) =>
      sql.withTransaction(Effect.gen(function* () {
        const rows = yield* sql`UPDATE webhook_endpoints SET ${sql.update(mutableColumns(endpoint))}
          WHERE account_id = ${endpoint.accountId} AND id = ${endpoint.id} RETURNING id`
        if (rows.length === 0) return false
        yield* sql`DELETE FROM webhook_subscriptions WHERE endpoint_id = ${endpoint.id}`
        yield* writeSubscriptions(endpoint)
        return true
      })).pipe(orStoreError("webhooks.updateEndpoint")),

    findEndpoint: (accountId, id, options) =>
      sql`SELECT ${sql.literal(endpointColumns)} FROM webhook_endpoints WHERE account_id = ${accountId} AND id = ${id}
        ${options?.forUpdate === true ? sql.onDialectOrElse({ pg: () => sql.literal("FOR NO KEY UPDATE"), orElse: () => sql.literal("") }) : sql.literal("")}`.pipe(
        Effect.flatMap(decodeEndpoints),
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), fromEndpointRow)),
        orStoreError("webhooks.findEndpoint"),
      ),

    listEndpoints: (accountId) =>
      sql`SELECT ${sql.literal(endpointColumns.split(", ").map((c) => `w.${c}`).join(", "))},
          (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = w.id) AS total_deliveries
        FROM webhook_endpoints w WHERE w.account_id = ${accountId} ORDER BY w.created_at, w.id`.pipe(
        Effect.flatMap(decodeEndpointsWithCount),
        Effect.map((rows) => rows.map((row) => ({ endpoint: fromEndpointRow(row), totalDeliveries: row.total_deliveries }))),
        orStoreError("webhooks.listEndpoints"),
      ),

    countEndpoints: (accountId) =>
      sql`SELECT count(*) AS total FROM webhook_endpoints WHERE account_id = ${accountId}`.pipe(
        Effect.flatMap(decodeCount),
        Effect.map((rows) => rows[0]?.total ?? 0),
        orStoreError("webhooks.countEndpoints"),
      ),

    deleteEndpoint: (accountId, id) =>
      sql`DELETE FROM webhook_endpoints WHERE account_id = ${accountId} AND id = ${id} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orStoreError("webhooks.deleteEndpoint"),
      ),

    // The statement answers which pairs it made; the deliveries are those pairs' (fannedOutDelivery), as inserted.
    fanOut: (events, at) =>
      fanOutRows(events.map((event) => [event.id, event.accountId, event.type, event.payload, toMillis(at)])).pipe(
        Effect.flatMap(decodeMadePairs),
        Effect.map((rows) => {
          const byId = new Map(events.map((event) => [event.id, event]))
          return rows.map((row) => fannedOutDelivery(byId.get(row.event_id)!, row.endpoint_id, at))
        }),
        orStoreError("webhooks.fanOut"),
      ),

    insertDelivery: (delivery) =>
      sql`INSERT INTO webhook_deliveries ${sql.insert({
        id: delivery.id,
        account_id: delivery.accountId,
        endpoint_id: delivery.endpointId,
        event_id: delivery.eventId,
        event_type: delivery.eventType,
        kind: delivery.kind,
        payload: delivery.payload,
        status: delivery.status,
        attempts: delivery.attempts,
        last_status_code: delivery.lastStatusCode,
        last_error: delivery.lastError,
        created_at: toMillis(delivery.createdAt),
        updated_at: toMillis(delivery.updatedAt),
        completed_at: toMillisOrNull(delivery.completedAt),
      })}`.pipe(Effect.asVoid, orStoreError("webhooks.insertDelivery")),

    findDelivery: (accountId, id) =>
      sql`SELECT ${sql.literal(deliveryColumns)} FROM webhook_deliveries WHERE account_id = ${accountId} AND id = ${id}`.pipe(
        Effect.flatMap(decodeDeliveries),
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), fromDeliveryRow)),
        orStoreError("webhooks.findDelivery"),
      ),

    listDeliveries: (accountId, endpointId, query) => {
      const where = sql.and([
        sql`account_id = ${accountId}`,
        sql`endpoint_id = ${endpointId}`,
        ...(query.status === undefined ? [] : [sql`status = ${query.status}`]),
        ...(query.eventType === undefined ? [] : [sql`event_type = ${query.eventType}`]),
      ])
      return Effect.all({
        total: sql`SELECT count(*) AS total FROM webhook_deliveries WHERE ${where}`.pipe(
          Effect.flatMap(decodeCount), Effect.map((rows) => rows[0]?.total ?? 0)),
        rows: sql`SELECT ${sql.literal(deliveryColumns)} FROM webhook_deliveries WHERE ${where}
          ORDER BY created_at DESC, id DESC LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`.pipe(
          Effect.flatMap(decodeDeliveries)),
      }).pipe(
        Effect.map(({ total, rows }) => ({ deliveries: rows.map(fromDeliveryRow), total })),
        orStoreError("webhooks.listDeliveries"),
      )
    },

    // The deliveries with their endpoints (a few for many deliveries), without a join that repeats the endpoint's
    // columns on every row. Postgres: one statement (a round trip less on the way from commit to POST), whose first row
    // of each endpoint carries that endpoint's columns; SQLite: the deliveries, then their endpoints. A delivery whose
    // endpoint is gone is gone too (the delete cascades), and is left out.
    findDeliveriesWithEndpoints: (refs) =>
      refs.length === 0 ? Effect.succeed([]) : Effect.gen(function* () {
        const wanted = new Set(refs.map((ref) => `${ref.accountId} ${ref.deliveryId}`))
        const ids = [...new Set(refs.map((ref) => ref.deliveryId))]
        const { deliveryRows, endpointRows } = yield* sql.onDialectOrElse({
          pg: () => Effect.gen(function* () {
            const rows = yield* sql.unsafe<Record<string, unknown>>(deliveriesWithEndpointsPg, [ids])
            const endpointRows = rows.flatMap((row) => row.w_id === null ? [] : [Object.fromEntries(endpointColumnList.map((column) => [column, row[`w_${column}`]]))])
            return { deliveryRows: yield* decodeDeliveries(rows), endpointRows: yield* decodeEndpoints(endpointRows) }
          }),
          orElse: () => Effect.gen(function* () {
            const deliveryRows = yield* Effect.flatMap(rowsById("webhook_deliveries", deliveryColumns, ids), decodeDeliveries)
            const endpointIds = [...new Set(deliveryRows.map((row) => row.endpoint_id))]
            const endpointRows = endpointIds.length === 0 ? [] : yield* Effect.flatMap(rowsById("webhook_endpoints", endpointColumns, endpointIds), decodeEndpoints)
            return { deliveryRows, endpointRows }
          }),
        })
        const byId = new Map(endpointRows.map((row) => [row.id as string, fromEndpointRow(row)]))
        return deliveryRows.filter((row) => wanted.has(`${row.account_id} ${row.id}`)).flatMap((row) => {
          const endpoint = byId.get(row.endpoint_id)
          return endpoint !== undefined && endpoint.accountId === row.account_id ? [{ delivery: fromDeliveryRow(row), endpoint }] : []
        })
      }).pipe(orStoreError("webhooks.findDeliveriesWithEndpoints")),

    findEndpoints: (refs) => endpointsOf(refs, false).pipe(orStoreError("webhooks.findEndpoints")),

    lockEndpoints: (refs) => endpointsOf(refs, true).pipe(orStoreError("webhooks.lockEndpoints")),

    recordAttempts: (records, streaks) => recordAttempts(records, streaks),

    listAttempts: (accountId, deliveryId) =>
      sql`SELECT id, account_id, delivery_id, endpoint_id, attempt, succeeded, status_code, duration_ms, response_snippet,
          error, started_at
        FROM webhook_attempts WHERE account_id = ${accountId} AND delivery_id = ${deliveryId} ORDER BY attempt, started_at`.pipe(
        Effect.flatMap(decodeAttempts),
        Effect.map((rows) => rows.map(fromAttemptRow)),
        orStoreError("webhooks.listAttempts"),
      ),

    attemptStats: (accountId, endpointId, since) =>
      sql`SELECT count(*) AS total, sum(CASE WHEN succeeded = ${bool(true)} THEN 1 ELSE 0 END) AS succeeded
        FROM webhook_attempts
        WHERE account_id = ${accountId} AND endpoint_id = ${endpointId} AND started_at >= ${toMillis(since)}`.pipe(
        Effect.flatMap(decodeStats),
        Effect.map((rows) => ({ totalDeliveries: rows[0]?.total ?? 0, successfulDeliveries: rows[0]?.succeeded ?? 0 })),
        orStoreError("webhooks.attemptStats"),
      ),

    setStreak: (accountId, endpointId, streak) =>
      sql`UPDATE webhook_endpoints SET consecutive_failures = ${streak.consecutiveFailures},
          streak_notified = ${bool(streak.notified)}
        WHERE account_id = ${accountId} AND id = ${endpointId}`.pipe(Effect.asVoid, orStoreError("webhooks.setStreak")),

    pendingDeliveries: (afterId, limit) =>
      sql<{ readonly id: string; readonly account_id: string; readonly endpoint_id: string; readonly attempts: number | string; readonly updated_at: number | string }>`SELECT d.id, d.account_id, d.endpoint_id, d.attempts, d.updated_at FROM webhook_deliveries d
        JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.active = ${bool(true)}
        WHERE d.status = 'pending' ${afterId === undefined ? sql.literal("") : sql`AND d.id > ${afterId}`}
        ORDER BY d.id LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map((row) => ({
          id: row.id as DeliveryId, accountId: row.account_id as AccountId, endpointId: row.endpoint_id as WebhookId, attempts: Number(row.attempts),
          updatedAt: new Date(Number(row.updated_at)),
        }))),
        orStoreError("webhooks.pendingDeliveries"),
      ),

    purgeAttempts: (before) =>
      // Every attempt has its endpoint: one DELETE per endpoint, each a range of (endpoint_id, started_at), the only
      // index on attempts by time (migrations 12 and 13), whatever statistics the planner has.
      sql<{ readonly id: string }>`SELECT id FROM webhook_endpoints ORDER BY id`.pipe(
        Effect.flatMap((endpoints) =>
          Effect.reduce(endpoints, 0, (purged, endpoint) =>
            sql`DELETE FROM webhook_attempts WHERE endpoint_id = ${endpoint.id} AND started_at < ${toMillis(before)} RETURNING id`.pipe(
              Effect.map((rows) => purged + rows.length),
            ))
        ),
        orStoreError("webhooks.purgeAttempts"),
      ),
  }
}
