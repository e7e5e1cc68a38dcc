/** The canary_runs table behind `Store.canaryRuns`: one row per finished run of the delivery canary. */
import type { SqlClient } from "@effect/sql"
import type { CanaryRun, CanaryRunRepository } from "@mailroom/core"
import { Effect, Schema } from "effect"
import { EpochMillis, IntegerColumn, toMillis } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"

const RunRow = Schema.Struct({
  id: Schema.String,
  status: Schema.Literal("passed", "failed"),
  recipient: Schema.String,
  message_id: Schema.NullOr(Schema.String),
  started_at: EpochMillis,
  finished_at: EpochMillis,
  latency_ms: Schema.NullOr(IntegerColumn),
  spf: Schema.NullOr(Schema.String),
  dkim: Schema.NullOr(Schema.String),
  dmarc: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
})
const decodeRuns = Schema.decodeUnknown(Schema.Array(RunRow))

const toRun = (row: typeof RunRow.Type): CanaryRun => ({
  id: row.id,
  status: row.status,
  recipient: row.recipient,
  messageId: row.message_id,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  latencyMs: row.latency_ms,
  // The three results are written together: one set means all are.
  authentication: row.spf === null ? null : { spf: row.spf, dkim: row.dkim ?? "none", dmarc: row.dmarc ?? "none" },
  error: row.error,
})

export const makeCanaryRunRepository = (sql: SqlClient.SqlClient): CanaryRunRepository => ({
  insert: (run) =>
    sql`INSERT INTO canary_runs ${sql.insert({
      id: run.id,
      status: run.status,
      recipient: run.recipient,
      message_id: run.messageId,
      started_at: toMillis(run.startedAt),
      finished_at: toMillis(run.finishedAt),
      latency_ms: run.latencyMs,
      spf: run.authentication?.spf ?? null,
      dkim: run.authentication?.dkim ?? null,
      dmarc: run.authentication?.dmarc ?? null,
      error: run.error,
    })}`.pipe(Effect.asVoid, orStoreError("canaryRuns.insert")),

  list: (limit) =>
    sql`SELECT * FROM canary_runs ORDER BY finished_at DESC, id DESC LIMIT ${limit}`.pipe(
      Effect.flatMap(decodeRuns), Effect.map((rows) => rows.map(toRun)), orStoreError("canaryRuns.list"),
    ),
})
