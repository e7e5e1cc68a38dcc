/** The JobQueue over the `jobs` table, for one process (SQLite, the embedded default). Due times come from Effect's
 *  Clock. Jobs survive a restart: pending ones wait in the table, and a job still marked running when the queue
 *  starts was cut short by the previous process, so it counts as a failed attempt and follows the retry policy.
 *  Several processes must not share one table: runs would be recovered under each other's feet (pg-boss is the
 *  engine for that). The table is in the Store's database, on the same SqlClient: an enqueue made inside a Store
 *  transaction is a savepoint of it, and commits with it or not at all; its workers are woken once it committed. */
import { SqlClient } from "@effect/sql"
import {
  afterCommit, type ClaimedJob, type EnqueueOptions, Ids, type JobDefinition, JobQueue, type JobQueueService, retryDelay, runJobWorker,
} from "@mailroom/core"
import { makeClaimWakeup, makeKeyedWakeSignals } from "@mailroom/core/internal"
import { Clock, Duration, Effect, Layer, Schema } from "effect"
import { IntegerColumn } from "./internal/columns.js"
import { chunksOf, insertRows, maxInList } from "./internal/batch.js"
import { orStoreError } from "./internal/errors.js"

export interface SqlJobQueueOptions {
  /** How often an idle worker looks for due jobs (default 500 ms); an enqueue of its job in this process
   *  wakes it at once. */
  readonly pollInterval?: Duration.DurationInput
  /** How long closing a worker's scope waits for its runs in flight (default 30 seconds). */
  readonly shutdownGrace?: Duration.DurationInput
}

const ClaimedRow = Schema.Struct({ id: Schema.String, attempts: IntegerColumn, payload: Schema.String })
const decodeClaimed = Schema.decodeUnknown(Schema.Array(ClaimedRow))
const RunningRow = Schema.Struct({ id: Schema.String, attempts: IntegerColumn })
const decodeRunning = Schema.decodeUnknown(Schema.Array(RunningRow))

export const makeSqlJobQueue = (options: SqlJobQueueOptions = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ids = yield* Ids
    const pollInterval = options.pollInterval ?? Duration.millis(500)
    /** Per job name, what its idle workers wait on: enqueueing a job, or putting a failed run back, wakes only the
     *  workers of that name. */
    const signals = makeKeyedWakeSignals()
    const wake = signals.wake
    /** Definitions whose runs left over by an earlier process were already recovered. */
    const recovered = new Set<string>()

    /** One multi-row INSERT in one transaction (a savepoint of the Store's transaction in progress); a job whose
     *  dedupe key is taken by an unfinished job is not inserted (ON CONFLICT, against the partial unique index of those
     *  states) and answers that job's id instead. The workers are woken once the outermost transaction committed. */
    const enqueueAll: JobQueueService["enqueueAll"] = (job, many) =>
      Effect.gen(function* () {
        if (many.length === 0) return []
        const now = yield* Clock.currentTimeMillis
        const rows = yield* Effect.forEach(many, (one) =>
          Effect.map(Schema.encode(job.payload)(one.payload), (encoded) => ({
            id: ids.make("job", new Date(now)), name: job.name, payload: JSON.stringify(encoded),
            dedupe_key: one.options?.dedupeKey ?? null, state: "pending", attempts: 0,
            run_at: one.options?.runAt?.getTime() ?? now, created_at: now,
          })))
        const answered = yield* sql.withTransaction(Effect.gen(function* () {
          const inserted = new Set((yield* insertRows(sql, "jobs", rows, sql.literal("ON CONFLICT DO NOTHING RETURNING id")))
            .map((row) => String(row.id)))
          const dropped = [...new Set(rows.filter((row) => !inserted.has(row.id) && row.dedupe_key !== null).map((row) => row.dedupe_key!))]
          const existing = new Map<string, string>()
          for (const keys of chunksOf(dropped, maxInList)) {
            const found = yield* sql<{ readonly id: string; readonly dedupe_key: string }>`SELECT id, dedupe_key FROM jobs
              WHERE name = ${job.name} AND dedupe_key IN ${sql.in(keys)} AND state IN ('pending', 'running')`
            for (const row of found) existing.set(row.dedupe_key, row.id)
          }
          return rows.map((row) => inserted.has(row.id) ? row.id : existing.get(row.dedupe_key ?? "") ?? row.id)
        }))
        // Jobs due within one poll interval wake the workers when they fall due.
        yield* afterCommit(signals.wakeAt(job.name, rows.map((row) => row.run_at), Duration.toMillis(pollInterval)))
        return answered
      }).pipe(orStoreError("jobs.enqueue"))

    const enqueue = <A, I>(job: JobDefinition<A, I>, payload: A, enqueueOptions: EnqueueOptions = {}) =>
      Effect.map(enqueueAll(job, [{ payload, options: enqueueOptions }]), (answered) => answered[0]!)

    /** Runs of `job` still marked running belong to a process that is gone: each counts as a failed attempt. */
    const recover = (job: JobDefinition<unknown, unknown>) =>
      Effect.gen(function* () {
        if (recovered.has(job.name)) return
        recovered.add(job.name)
        const now = yield* Clock.currentTimeMillis
        const running = yield* sql`SELECT id, attempts FROM jobs WHERE name = ${job.name} AND state = 'running'`.pipe(
          Effect.flatMap(decodeRunning))
        for (const row of running) {
          const delay = retryDelay(job.retry, row.attempts)
          yield* delay === undefined
            ? sql`UPDATE jobs SET state = 'failed', finished_at = ${now}, last_error = 'the process running it stopped'
                WHERE id = ${row.id}`
            : sql`UPDATE jobs SET state = 'pending', run_at = ${now + Duration.toMillis(delay)}, started_at = NULL,
                last_error = 'the process running it stopped' WHERE id = ${row.id}`
        }
      }).pipe(orStoreError("jobs.recover"))

    const deleteJobs = (ids: ReadonlyArray<string>) =>
      Effect.forEach(chunksOf(ids, maxInList), (chunk) => sql`DELETE FROM jobs WHERE id IN ${sql.in(chunk)}`, { discard: true })

    /** A finished job is deleted at once: until then its dedupe key still counts as taken, and an enqueue with it would
     *  be dropped. */
    const work: JobQueueService["work"] = (job, handler, workOptions) => {
      // An enqueue during a claim ends the idle wait after it (see makeClaimWakeup).
      const wakeup = makeClaimWakeup(signals.of(job.name), pollInterval)
      return Effect.zipRight(
        recover(job as JobDefinition<unknown, unknown>),
        runJobWorker(job, handler, {
          claim: (max) =>
            Effect.gen(function* () {
              yield* wakeup.arm
              const now = yield* Clock.currentTimeMillis
              const claim = sql`UPDATE jobs SET state = 'running', attempts = attempts + 1, started_at = ${now}
                WHERE id IN (SELECT id FROM jobs WHERE name = ${job.name} AND state = 'pending' AND run_at <= ${now}
                  ORDER BY run_at, id LIMIT ${max})
                RETURNING id, attempts, payload`
              // In a transaction of its own, so that it commits with the worker's durability (relaxed in Background).
              const rows = yield* Effect.flatMap(sql.withTransaction(claim), decodeClaimed)
              return rows.map((row): ClaimedJob => ({ id: row.id, attempt: row.attempts, payload: JSON.parse(row.payload) }))
            }).pipe(orStoreError("jobs.claim")),
          complete: (claimed) => sql.withTransaction(deleteJobs(claimed.map((one) => one.id))).pipe(orStoreError("jobs.complete")),
          fail: (claimed, retryIn, error) =>
            Effect.flatMap(Clock.currentTimeMillis, (now) => sql.withTransaction(
              retryIn === undefined
                ? sql`UPDATE jobs SET state = 'failed', finished_at = ${now}, last_error = ${error} WHERE id = ${claimed.id}`
                : sql`UPDATE jobs SET state = 'pending', run_at = ${now + Duration.toMillis(retryIn)}, started_at = NULL,
                    last_error = ${error} WHERE id = ${claimed.id}`).pipe(Effect.zipLeft(wake(job.name)))).pipe(
              Effect.asVoid, orStoreError("jobs.fail")),
          idle: wakeup.idle,
        }, { concurrency: workOptions?.concurrency ?? 1, shutdownGrace: options.shutdownGrace ?? "30 seconds" }),
      )
    }

    return JobQueue.of({ enqueue, enqueueAll, work })
  })

export const SqlJobQueue = {
  /** The jobs-table JobQueue over the SqlClient in context (migrated: the table comes with the schema). */
  layer: (options: SqlJobQueueOptions = {}): Layer.Layer<JobQueue, never, SqlClient.SqlClient | Ids> =>
    Layer.effect(JobQueue, makeSqlJobQueue(options)),
} as const
