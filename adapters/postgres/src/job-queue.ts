/** The JobQueue over pg-boss 10, for one or many instances of the host service on one Postgres database: pg-boss
 *  claims each job for one worker (FOR UPDATE SKIP LOCKED), and a job whose worker died is failed by pg-boss's
 *  maintenance once it has been active longer than its expiry, then retried.
 *
 *  How the port maps onto pg-boss: attempt = retry_count + 1 (pg-boss counts a retry whenever it hands out a job that
 *  was started before). retry_limit = the policy's number of delays. pg-boss waits one fixed retry_delay (seconds)
 *  after a failure, so each claim (pg-boss's fetch, as one statement of our own) sets the job's retry_delay to the
 *  delay that follows *this* attempt; the failure,
 *  whether reported by the worker or found by maintenance after a crash, then waits exactly the policy's delay
 *  (rounded up to whole seconds). expire_in = the job's timeout plus `expiryMargin`. Dedupe keys are pg-boss
 *  singleton keys, checked under an advisory lock against the job's unfinished states.
 *
 *  Jobs claimed at creation (enqueueClaimed) are inserted active, through the Store's SqlClient in the caller's
 *  transaction, when the Store is on the queue's database; their expiry allows for one run of waiting before theirs
 *  starts (twice the timeout, plus the margin), and past it pg-boss's maintenance retries them as any job whose worker
 *  died. */
import { SqlClient } from "@effect/sql"
import {
  type ClaimedJob, CommitDurability, type Durability, type EnqueueOptions, type JobDefinition, JobQueue, type JobQueueService, makeClaimWakeup, makeKeyedWakeSignals,
  makeWorkerHandoffs, runJobWorker, StoreError,
} from "@mailroom/core"
import { Duration, Effect, Layer, Schema } from "effect"
import { randomUUID } from "node:crypto"
import pg from "pg"
import PgBoss from "pg-boss"
import { beginTransaction } from "./durability.js"

export interface PgBossJobQueueOptions {
  /** `postgres://…` of the database whose `pgboss` schema holds the jobs. */
  readonly url: string
  /** How often an idle worker asks for due jobs (default 1 second); an enqueue in this process wakes it at once. */
  readonly pollInterval?: Duration.DurationInput
  /** How long closing a worker's scope waits for its runs in flight (default 30 seconds). */
  readonly shutdownGrace?: Duration.DurationInput
  /** How often pg-boss's maintenance looks for jobs whose worker died (default 30 seconds). */
  readonly maintenanceInterval?: Duration.DurationInput
  /** Added to a job's timeout before pg-boss takes its worker for dead (default 30 seconds). */
  readonly expiryMargin?: Duration.DurationInput
  /** Most connections of the queue's own pool (default 5). */
  readonly maxConnections?: number
}

const wholeSeconds = (duration: Duration.DurationInput) => Math.ceil(Duration.toSeconds(Duration.decode(duration)))

const failure = (operation: string) => (cause: unknown) => new StoreError({ operation, cause })

const ClaimedRow = Schema.Struct({ id: Schema.String, retry_count: Schema.Number, data: Schema.Struct({ payload: Schema.Unknown }) })
const decodeClaimed = Schema.decodeUnknown(Schema.Array(ClaimedRow))

/** The queue's own index on pg-boss's job table (Postgres adds it to every queue's partition): finds the unfinished
 *  job of a dedupe key without scanning the queue. */
const dedupeIndex = `CREATE INDEX IF NOT EXISTS job_mailroom_dedupe ON pgboss.job (name, singleton_key)
  WHERE singleton_key IS NOT NULL AND state < 'completed'`

// The queue's own statements below have constant texts and run as named prepared statements: Postgres parses and
// analyses each once per connection instead of on every claim.

/** pg-boss's fetch of a standard queue (its `fetchNextJob`: the oldest due jobs, highest priority first, skipping
 *  those another worker holds; a job started before counts a retry), which also sets each job's retry_delay to the
 *  delay that follows this attempt ($3, whole seconds; a job past the schedule keeps its own), in one statement. */
const claimJobs = `WITH next AS (
    SELECT id FROM pgboss.job
    WHERE name = $1 AND state < 'active' AND start_after < now()
    ORDER BY priority DESC, created_on, id
    LIMIT $2
    FOR UPDATE SKIP LOCKED
  )
  UPDATE pgboss.job j SET
    state = 'active',
    started_on = now(),
    retry_count = CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END,
    retry_delay = COALESCE(($3::int[])[CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 2 ELSE j.retry_count + 1 END], j.retry_delay)
  FROM next
  WHERE j.name = $1 AND j.id = next.id
  RETURNING j.id, j.retry_count, j.data`

/** The dedupe keys of a batch, locked in order (so that two batches cannot deadlock), then their unfinished jobs. */
const lockDedupeKeys = "SELECT pg_advisory_xact_lock(hashtext($1), hashtext(key)) FROM unnest($2::text[]) AS key ORDER BY key"
const findUnfinished = "SELECT id, singleton_key FROM pgboss.job WHERE name = $1 AND singleton_key = ANY($2::text[]) AND state < 'completed'"

/** Jobs claimed at creation: active from now, attempt 1 (retry_count 0), waiting the policy's first delay after a
 *  failure. The queue's partition exists: its worker created it before it started. */
const insertClaimed = `INSERT INTO pgboss.job (id, name, data, state, retry_limit, retry_delay, retry_backoff, expire_in, started_on, policy)
  SELECT j.id, $1, j.data, 'active', $2::int, $3::int, false, $4::int * interval '1 second', now(), 'standard'
  FROM jsonb_to_recordset($5::jsonb) AS j (id uuid, data jsonb)`

/** What tells two connections they are on one database: its name, its server's start, and the queue's table. */
const databaseIdentity = "SELECT current_database() || ' ' || pg_postmaster_start_time()::text || ' ' || 'pgboss.job'::regclass::oid::text AS identity"

/** pg-boss's `complete` of jobs by id. */
const completeJobs = `UPDATE pgboss.job SET completed_on = now(), state = 'completed'
  WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'active'`

/** The queue; with `store` (the Store's SqlClient), jobs claimed at creation are written in the Store's transactions
 *  when it is on the queue's database. */
export const makePgBossJobQueue = (options: PgBossJobQueueOptions, store?: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const opened = new pg.Pool({ connectionString: options.url, max: options.maxConnections ?? 5, application_name: "mailroom-jobs" })
        opened.on("error", () => undefined)
        return opened
      }),
      (opened) => Effect.promise(() => opened.end()),
    )
    const db = { executeSql: (text: string, values?: Array<unknown>) => pool.query(text, values) }
    const boss = new PgBoss({
      db,
      schedule: false,
      supervise: true,
      maintenanceIntervalSeconds: wholeSeconds(options.maintenanceInterval ?? "30 seconds"),
    })
    boss.on("error", (error) => Effect.runFork(Effect.logError("pg-boss", error)))
    yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => boss.start(), catch: failure("pgboss.start") }),
      () => Effect.promise(() => boss.stop({ graceful: false, close: false, wait: true })),
    )
    yield* Effect.tryPromise({
      try: async () => {
        const client = await pool.connect()
        try {
          await client.query("BEGIN")
          await client.query("SELECT pg_advisory_xact_lock(hashtext('mailroom_pgboss_index'))")
          await client.query(dedupeIndex)
          await client.query("COMMIT")
        } catch (error) {
          await client.query("ROLLBACK").catch(() => undefined)
          throw error
        } finally {
          client.release()
        }
      },
      catch: failure("pgboss.index"),
    })

    // The Store's connections write jobs only when they reach the queue's own table.
    const sameDatabase = store === undefined ? Effect.succeed(false) : Effect.gen(function* () {
      const ours = yield* Effect.tryPromise({ try: () => pool.query<{ identity: string }>(databaseIdentity), catch: failure("pgboss.identity") })
      const theirs = yield* Effect.either(store.unsafe<{ readonly identity: string }>(databaseIdentity))
      return theirs._tag === "Right" && theirs.right[0]?.identity === ours.rows[0]?.identity
    })
    const storeSql = (yield* sameDatabase) ? store : undefined

    const queues = new Map<string, Promise<void>>()
    /** Instances starting at once can deadlock in pg-boss's createQueue (each creates the queue's partition): a
     *  failure is tried again a few times, after a short random pause. */
    const createQueue = async (name: string) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await boss.createQueue(name, { name, policy: "standard" })
        } catch (error) {
          if (attempt >= 5) throw error
          await new Promise((resolve) => setTimeout(resolve, 100 * attempt + Math.random() * 200))
        }
      }
    }

    const ensureQueue = (name: string) => {
      let created = queues.get(name)
      if (created === undefined) {
        created = createQueue(name)
        created.catch(() => queues.delete(name))
        queues.set(name, created)
      }
      return created
    }

    /** Per job name, what its idle workers in this process wait on: enqueueing a job, or a failed run put back, wakes
     *  only the workers of that name. */
    const signals = makeKeyedWakeSignals()
    const wake = signals.wake

    /** A job's retry limit, its first retry delay and its expiry (the timeout plus the margin), in pg-boss's terms. */
    const retryAndExpiry = (job: JobDefinition<unknown, unknown>) => ({
      retryLimit: job.retry.delays.length,
      retryDelay: job.retry.delays.length === 0 ? 0 : wholeSeconds(job.retry.delays[0]!),
      expireInSeconds: wholeSeconds(job.timeout) + wholeSeconds(options.expiryMargin ?? "30 seconds"),
    })

    const sendOptions = (job: JobDefinition<unknown, unknown>, enqueueOptions: EnqueueOptions): PgBoss.SendOptions => ({
      ...retryAndExpiry(job),
      retryBackoff: false,
      ...(enqueueOptions.runAt === undefined ? {} : { startAfter: enqueueOptions.runAt }),
    })

    /** Stores jobs of one queue in one transaction. A job with a dedupe key whose unfinished job exists answers that
     *  job's id; the keys are checked under advisory locks (taken in order, so that two batches cannot deadlock). */
    const sendAll = async (
      name: string,
      jobs: ReadonlyArray<{ readonly data: object; readonly options: PgBoss.SendOptions; readonly key: string | undefined }>,
      durability: Durability,
    ): Promise<ReadonlyArray<string>> => {
      await ensureQueue(name)
      const client = await pool.connect()
      try {
        // A relaxed enqueue (background work, see CommitDurability) begins as a relaxed transaction of the Store does.
        await client.query(beginTransaction(durability))
        const keys = [...new Set(jobs.flatMap((job) => job.key === undefined ? [] : [job.key]))].sort()
        const existing = new Map<string, string>()
        if (keys.length > 0) {
          await client.query({ name: "mailroom_lock_dedupe_keys", text: lockDedupeKeys, values: [name, keys] })
          const found = await client.query<{ id: string; singleton_key: string }>({ name: "mailroom_find_unfinished", text: findUnfinished, values: [name, keys] })
          for (const row of found.rows) existing.set(row.singleton_key, row.id)
        }
        const answered: Array<string> = []
        const inserts: Array<PgBoss.JobInsert> = []
        for (const job of jobs) {
          const taken = job.key === undefined ? undefined : existing.get(job.key)
          if (taken !== undefined) {
            answered.push(taken)
            continue
          }
          const id = randomUUID()
          if (job.key !== undefined) existing.set(job.key, id)
          answered.push(id)
          inserts.push({
            id, name, data: job.data, retryLimit: job.options.retryLimit, retryDelay: job.options.retryDelay, retryBackoff: false,
            expireInSeconds: job.options.expireInSeconds,
            ...(job.options.startAfter === undefined ? {} : { startAfter: job.options.startAfter }),
            ...(job.key === undefined ? {} : { singletonKey: job.key }),
          } as PgBoss.JobInsert)
        }
        // pg-boss's insert text is the same every time: prepared once per connection, it is not planned again.
        if (inserts.length > 0) await boss.insert(inserts, { db: { executeSql: (text, values) => client.query({ name: "mailroom_insert_jobs", text, values }) } })
        await client.query("COMMIT")
        return answered
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined)
        throw error
      } finally {
        client.release()
      }
    }

    const enqueueAll: JobQueueService["enqueueAll"] = (job, many) =>
      Effect.gen(function* () {
        if (many.length === 0) return []
        const jobs = yield* Effect.forEach(many, (one) =>
          Effect.map(Schema.encode(job.payload)(one.payload), (encoded) => ({
            data: { payload: encoded },
            options: sendOptions(job as JobDefinition<unknown, unknown>, one.options ?? {}),
            key: one.options?.dedupeKey,
          }))).pipe(Effect.mapError(failure("jobs.enqueue")))
        const durability = yield* CommitDurability
        const ids = yield* Effect.tryPromise({ try: () => sendAll(job.name, jobs, durability), catch: failure("jobs.enqueue") })
        yield* wake(job.name)
        return ids
      })

    const enqueue = <A, I>(job: JobDefinition<A, I>, payload: A, enqueueOptions: EnqueueOptions = {}) =>
      Effect.map(enqueueAll(job, [{ payload, options: enqueueOptions }]), (ids) => ids[0]!)

    const handoffs = makeWorkerHandoffs()

    const enqueueClaimed: JobQueueService["enqueueClaimed"] = (job, payloads) => {
      if (storeSql === undefined) return Effect.succeedNone
      // An expiry that allows for one run of waiting before the job's own: the timeout once more.
      const { retryLimit, retryDelay, expireInSeconds } = retryAndExpiry(job as JobDefinition<unknown, unknown>)
      return handoffs.claim(job, payloads, (encoded) => {
        const jobs = encoded.map((payload) => ({ id: randomUUID(), data: { payload } }))
        return Effect.as(
          storeSql.unsafe(insertClaimed, [job.name, retryLimit, retryDelay, expireInSeconds + wholeSeconds(job.timeout), JSON.stringify(jobs)]),
          { ids: jobs.map((one) => one.id) },
        )
      }).pipe(Effect.mapError(failure("jobs.enqueue")))
    }

    /** A finished job is completed at once (the runs that finish together in one statement): until then its dedupe
     *  key still counts as taken, and an enqueue with it would be dropped. */
    const work: JobQueueService["work"] = (job, handler, workOptions) => {
      const delays = job.retry.delays.map(wholeSeconds)
      // An enqueue during a claim's round trip ends the idle wait after it (see makeClaimWakeup).
      const wakeup = makeClaimWakeup(signals.of(job.name), options.pollInterval ?? "1 second")
      return Effect.zipRight(
        Effect.tryPromise({ try: () => ensureQueue(job.name), catch: failure("jobs.work") }),
        handoffs.keep(job.name, runJobWorker(job, handler, {
          claim: (max) =>
            Effect.zipRight(wakeup.arm, Effect.tryPromise({
              try: async () => (await pool.query<Record<string, unknown>>({ name: "mailroom_claim_jobs", text: claimJobs, values: [job.name, max, delays] })).rows,
              catch: failure("jobs.claim"),
            })).pipe(
              Effect.flatMap((rows) => Effect.mapError(decodeClaimed(rows), failure("jobs.claim"))),
              Effect.map((rows) => rows.map((row): ClaimedJob => ({ id: row.id, attempt: row.retry_count + 1, payload: row.data.payload }))),
            ),
          complete: (claimed) => Effect.tryPromise({
            try: () => pool.query({ name: "mailroom_complete_jobs", text: completeJobs, values: [job.name, claimed.map((one) => one.id)] }),
            catch: failure("jobs.complete"),
          }).pipe(Effect.asVoid),
          fail: (claimed, _retryIn, error) =>
            Effect.tryPromise({ try: () => boss.fail(job.name, claimed.id, { message: error }), catch: failure("jobs.fail") }).pipe(
              Effect.zipLeft(wake(job.name)), Effect.asVoid),
          idle: wakeup.idle,
        }, {
          concurrency: workOptions?.concurrency ?? 1, shutdownGrace: options.shutdownGrace ?? "30 seconds",
          claimEvery: options.pollInterval ?? "1 second",
        })),
      )
    }

    return JobQueue.of({ enqueue, enqueueAll, enqueueClaimed, work })
  })

export const PgBossJobQueue = {
  /** The pg-boss JobQueue on the database at `url`; creates (or migrates) the `pgboss` schema when built and stops
   *  pg-boss when the layer's scope closes. */
  layer: (options: PgBossJobQueueOptions): Layer.Layer<JobQueue, StoreError> => Layer.scoped(JobQueue, makePgBossJobQueue(options)),
  /** As `layer`, beside the Store whose SqlClient it is given: when the Store is on the queue's database, jobs claimed at
   *  creation (enqueueClaimed) are written in the Store's transactions. */
  layerWithStore: (options: PgBossJobQueueOptions): Layer.Layer<JobQueue, StoreError, SqlClient.SqlClient> =>
    Layer.scoped(JobQueue, Effect.flatMap(SqlClient.SqlClient, (store) => makePgBossJobQueue(options, store))),
} as const
