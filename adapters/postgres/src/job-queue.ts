/** The JobQueue over pg-boss 10, for one or many instances of the host service on one Postgres database: pg-boss
 *  claims each job for one worker (FOR UPDATE SKIP LOCKED), and a job whose worker died is failed by pg-boss's
 *  maintenance once it has been active longer than its expiry, then retried.
 *
 *  How the port maps onto pg-boss: attempt = retry_count + 1 (pg-boss counts a retry whenever it hands out a job that
 *  was started before). retry_limit = the policy's number of delays. pg-boss waits one fixed retry_delay (seconds)
 *  after a failure, so each claim sets the job's retry_delay to the delay that follows *this* attempt; the failure,
 *  whether reported by the worker or found by maintenance after a crash, then waits exactly the policy's delay
 *  (rounded up to whole seconds). expire_in = the job's timeout plus `expiryMargin`. Dedupe keys are pg-boss
 *  singleton keys, checked under an advisory lock against the job's unfinished states. */
import { type ClaimedJob, type EnqueueOptions, type JobDefinition, JobQueue, type JobQueueService, runJobWorker, StoreError } from "@mailroom/core"
import { Deferred, Duration, Effect, Layer, Schema } from "effect"
import pg from "pg"
import PgBoss from "pg-boss"

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

const MetaJob = Schema.Struct({ id: Schema.String, retryCount: Schema.Number, data: Schema.Struct({ payload: Schema.Unknown }) })
const decodeJobs = Schema.decodeUnknown(Schema.Array(MetaJob))

/** The queue's own index on pg-boss's job table (Postgres adds it to every queue's partition): finds the unfinished
 *  job of a dedupe key without scanning the queue. */
const dedupeIndex = `CREATE INDEX IF NOT EXISTS job_mailroom_dedupe ON pgboss.job (name, singleton_key)
  WHERE singleton_key IS NOT NULL AND state < 'completed'`

export const makePgBossJobQueue = (options: PgBossJobQueueOptions) =>
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

    let changed = yield* Deferred.make<void>()
    const wake = Effect.flatMap(Deferred.make<void>(), (next) => {
      const previous = changed
      changed = next
      return Deferred.succeed(previous, undefined)
    })

    const sendOptions = (job: JobDefinition<unknown, unknown>, enqueueOptions: EnqueueOptions): PgBoss.SendOptions => ({
      retryLimit: job.retry.delays.length,
      retryDelay: job.retry.delays.length === 0 ? 0 : wholeSeconds(job.retry.delays[0]!),
      retryBackoff: false,
      expireInSeconds: wholeSeconds(job.timeout) + wholeSeconds(options.expiryMargin ?? "30 seconds"),
      ...(enqueueOptions.runAt === undefined ? {} : { startAfter: enqueueOptions.runAt }),
    })

    const send = async (name: string, data: object, sendOpts: PgBoss.SendOptions, key: string | undefined): Promise<string> => {
      await ensureQueue(name)
      if (key === undefined) {
        const id = await boss.send(name, data, sendOpts)
        if (id === null) throw new Error(`pg-boss did not store the job of queue ${name}`)
        return id
      }
      const client = await pool.connect()
      try {
        await client.query("BEGIN")
        await client.query("SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))", [name, key])
        const existing = await client.query<{ id: string }>(
          "SELECT id FROM pgboss.job WHERE name = $1 AND singleton_key = $2 AND state < 'completed' LIMIT 1", [name, key])
        const id = existing.rows[0]?.id ?? await boss.send(name, data, {
          ...sendOpts, singletonKey: key, db: { executeSql: (text, values) => client.query(text, values) },
        })
        await client.query("COMMIT")
        if (id === null) throw new Error(`pg-boss did not store the job of queue ${name}`)
        return id
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined)
        throw error
      } finally {
        client.release()
      }
    }

    const enqueue = <A, I>(job: JobDefinition<A, I>, payload: A, enqueueOptions: EnqueueOptions = {}) =>
      Effect.gen(function* () {
        const encoded = yield* Schema.encode(job.payload)(payload).pipe(Effect.mapError(failure("jobs.enqueue")))
        const id = yield* Effect.tryPromise({
          try: () => send(job.name, { payload: encoded }, sendOptions(job as JobDefinition<unknown, unknown>, enqueueOptions), enqueueOptions.dedupeKey),
          catch: failure("jobs.enqueue"),
        })
        yield* wake
        return id
      })

    const work: JobQueueService["work"] = (job, handler, workOptions) => {
      const delays = job.retry.delays.map(wholeSeconds)
      // Only a schedule whose delays differ needs the per-attempt delay written at each claim.
      const varying = delays.some((delay) => delay !== delays[0])
      return Effect.zipRight(
        Effect.tryPromise({ try: () => ensureQueue(job.name), catch: failure("jobs.work") }),
        runJobWorker(job, handler, {
          claim: (max) =>
            Effect.tryPromise({
              try: async () => {
                const fetched = await boss.fetch(job.name, { batchSize: max, includeMetadata: true })
                if (varying && fetched.length > 0) {
                  await pool.query(
                    "UPDATE pgboss.job SET retry_delay = COALESCE(($3::int[])[retry_count + 1], 0) WHERE name = $1 AND id = ANY($2::uuid[])",
                    [job.name, fetched.map((one) => one.id), delays],
                  )
                }
                return fetched
              },
              catch: failure("jobs.claim"),
            }).pipe(
              Effect.flatMap((fetched) => Effect.mapError(decodeJobs(fetched), failure("jobs.claim"))),
              Effect.map((fetched) => fetched.map((one): ClaimedJob => ({ id: one.id, attempt: one.retryCount + 1, payload: one.data.payload }))),
            ),
          complete: (claimed) =>
            Effect.tryPromise({ try: () => boss.complete(job.name, claimed.id), catch: failure("jobs.complete") }).pipe(Effect.asVoid),
          fail: (claimed, _retryIn, error) =>
            Effect.tryPromise({ try: () => boss.fail(job.name, claimed.id, { message: error }), catch: failure("jobs.fail") }).pipe(
              Effect.zipLeft(wake), Effect.asVoid),
          idle: Effect.suspend(() => Effect.race(Deferred.await(changed), Effect.sleep(options.pollInterval ?? "1 second"))),
        }, { concurrency: workOptions?.concurrency ?? 1, shutdownGrace: options.shutdownGrace ?? "30 seconds" }),
      )
    }

    return JobQueue.of({ enqueue, work })
  })

export const PgBossJobQueue = {
  /** The pg-boss JobQueue on the database at `url`; creates (or migrates) the `pgboss` schema when built and stops
   *  pg-boss when the layer's scope closes. */
  layer: (options: PgBossJobQueueOptions): Layer.Layer<JobQueue, StoreError> => Layer.scoped(JobQueue, makePgBossJobQueue(options)),
} as const
