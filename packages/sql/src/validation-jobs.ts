/** The validation_jobs and validation_job_chunks tables behind `Store.validationJobs`: a job's addresses are one JSON
 *  column, its results one JSON array per chunk, each stored in one statement with the job's progress. */
import type { SqlClient } from "@effect/sql"
import {
  AccountId, type AddressVerdict, type ValidationJob, ValidationJobError, ValidationJobId, type ValidationJobRepository,
  ValidationJobStatus,
} from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { EpochMillis, IntegerColumn, JsonColumn, toJson, toMillisOrNull } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"
import { booleanParam } from "./lists.js"

const BooleanColumn = Schema.Union(
  Schema.Boolean,
  Schema.transform(IntegerColumn, Schema.Boolean, { strict: true, decode: (n) => n !== 0, encode: (b) => (b ? 1 : 0) }),
)

const JobRow = Schema.Struct({
  id: ValidationJobId,
  account_id: AccountId,
  status: ValidationJobStatus,
  emails: JsonColumn(Schema.Array(Schema.String)),
  extended: BooleanColumn,
  timeout_ms: IntegerColumn,
  continue_on_error: BooleanColumn,
  processed: IntegerColumn,
  error: Schema.NullOr(JsonColumn(ValidationJobError)),
  created_at: EpochMillis,
  started_at: Schema.NullOr(EpochMillis),
  completed_at: Schema.NullOr(EpochMillis),
})
type JobRow = typeof JobRow.Type
const ProgressRow = Schema.Struct({ ...JobRow.omit("emails").fields, total: IntegerColumn })
/** Every column but the addresses, which a progress read leaves in the database. */
const progressColumns = Object.keys(ProgressRow.fields).filter((column) => column !== "total").join(", ")
const decodeProgress = Schema.decodeUnknown(Schema.Array(ProgressRow))
const decodeJobs = Schema.decodeUnknown(Schema.Array(JobRow))
/** A chunk's results are read as JSON and taken as written: only saveChunk writes them, from AddressVerdicts. Their
 *  Schema decode took longer than the whole job's checks (10,000 verdicts: 25-80 ms), on every read of a job. */
const decodeChunks = Schema.decodeUnknown(Schema.Array(Schema.Struct({ results: JsonColumn(Schema.Array(Schema.Unknown)) })))

/** A verdict as a chunk stores it: one array of its values in a fixed order, not an object that repeats every field
 *  name (a third of the bytes: 10,000 results are 0.8 MB instead of 2.3 MB, written once and read on every finished
 *  job's read). */
type StoredVerdict = readonly [
  email: string, valid: boolean, syntax: boolean, mxRecords: boolean | null, smtpHandshake: boolean | null,
  disposable: boolean, roleAccount: boolean, catchAll: boolean | null, suggestion: string | null, reason: string | null,
  errorCode: string | null, errorMessage: string | null,
]

const toStored = (verdict: AddressVerdict): StoredVerdict => [
  verdict.email, verdict.valid, verdict.checks.syntax, verdict.checks.mxRecords, verdict.checks.smtpHandshake,
  verdict.checks.disposable, verdict.checks.roleAccount, verdict.checks.catchAll, verdict.suggestion, verdict.reason,
  verdict.error?.code ?? null, verdict.error?.message ?? null,
]

/** A stored verdict back as an AddressVerdict; a verdict stored as an object (before the arrays) is taken as it is. */
const fromStored = (stored: unknown): AddressVerdict => {
  if (!Array.isArray(stored)) return stored as AddressVerdict
  const [email, valid, syntax, mxRecords, smtpHandshake, disposable, roleAccount, catchAll, suggestion, reason, errorCode, errorMessage] =
    stored as unknown as StoredVerdict
  return {
    email, valid, checks: { syntax, mxRecords, smtpHandshake, disposable, roleAccount, catchAll }, suggestion, reason,
    error: errorCode === null ? null : { code: errorCode, message: errorMessage ?? "" },
  }
}

const fromRow = (row: JobRow): ValidationJob => ({ ...progressFields(row), emails: row.emails })

const progressFields = (row: Omit<JobRow, "emails">): Omit<ValidationJob, "emails"> => ({
  id: row.id,
  accountId: row.account_id,
  status: row.status,
  extended: row.extended,
  timeoutMs: row.timeout_ms,
  continueOnError: row.continue_on_error,
  processed: row.processed,
  error: row.error,
  createdAt: row.created_at,
  startedAt: row.started_at,
  completedAt: row.completed_at,
})

export const makeValidationJobRepository = (sql: SqlClient.SqlClient): ValidationJobRepository => ({
  insert: (job) =>
    sql`INSERT INTO validation_jobs ${sql.insert({
      id: job.id,
      account_id: job.accountId,
      status: job.status,
      emails: toJson(job.emails),
      extended: booleanParam(sql, job.extended),
      timeout_ms: job.timeoutMs,
      continue_on_error: booleanParam(sql, job.continueOnError),
      processed: job.processed,
      error: job.error === null ? null : toJson(job.error),
      created_at: job.createdAt.getTime(),
      started_at: toMillisOrNull(job.startedAt),
      completed_at: toMillisOrNull(job.completedAt),
    })}`.pipe(Effect.asVoid, orStoreError("validationJobs.insert")),

  findById: (accountId, id) =>
    sql`SELECT * FROM validation_jobs WHERE account_id = ${accountId} AND id = ${id}`.pipe(
      Effect.flatMap(decodeJobs),
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), fromRow)),
      orStoreError("validationJobs.findById"),
    ),

  findProgress: (accountId, id) =>
    sql`SELECT ${sql.literal(progressColumns)}, json_array_length(emails) AS total
      FROM validation_jobs WHERE account_id = ${accountId} AND id = ${id}`.pipe(
      Effect.flatMap(decodeProgress),
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), ({ total, ...row }) => ({ ...progressFields(row), total }))),
      orStoreError("validationJobs.findProgress"),
    ),

  results: (accountId, id) =>
    sql`SELECT c.results FROM validation_job_chunks c JOIN validation_jobs j ON j.id = c.job_id
      WHERE j.account_id = ${accountId} AND c.job_id = ${id} ORDER BY c.chunk_index`.pipe(
      Effect.flatMap(decodeChunks),
      Effect.map((rows) => rows.flatMap((row) => row.results.map(fromStored))),
      orStoreError("validationJobs.results"),
    ),

  // The progress moves only when the chunk went in (the service runs both in one transaction).
  saveChunk: (accountId, id, index, results) =>
    Effect.gen(function* () {
      const added = yield* sql`INSERT INTO validation_job_chunks (job_id, chunk_index, results)
        SELECT id, ${index}, ${toJson(results.map(toStored))} FROM validation_jobs WHERE account_id = ${accountId} AND id = ${id}
        ON CONFLICT (job_id, chunk_index) DO NOTHING
        RETURNING job_id`
      if (added.length === 0) return
      yield* sql`UPDATE validation_jobs SET processed = processed + ${results.length} WHERE id = ${id}`
    }).pipe(orStoreError("validationJobs.saveChunk")),

  setState: (job) =>
    sql`UPDATE validation_jobs SET ${sql.update({
      status: job.status,
      started_at: toMillisOrNull(job.startedAt),
      completed_at: toMillisOrNull(job.completedAt),
      error: job.error === null ? null : toJson(job.error),
    })} WHERE account_id = ${job.accountId} AND id = ${job.id} RETURNING id`.pipe(
      Effect.map((rows) => rows.length > 0),
      orStoreError("validationJobs.setState"),
    ),
})
