/** The JobQueue over pg-boss 10, for one or many instances of the host service on one Postgres database, through
 *  pg-boss's public API only (createQueue, insert, fetch, complete, fail, deleteJob, getJobById, each given a `db` when
 *  it must run in a transaction of Mailroom's). pg-boss claims each job for one worker (FOR UPDATE SKIP LOCKED), and a
 *  job whose worker died is failed by pg-boss's maintenance once it has been active longer than its expiry, then
 *  retried.
 *
 *  How the port maps onto pg-boss (docs/jobs.md, "pg-boss: what Mailroom adds"):
 *  - Retries follow the policy's schedule, delay by delay. pg-boss waits one fixed `retryDelay` after every failure of
 *    a job, so a failed run is not handed to pg-boss's `fail`: in one transaction the job is deleted and inserted
 *    again under the same id, due after the policy's next delay, with its next attempt number in its data. Each job
 *    is inserted with `retryLimit` = the attempts it has left and `retryDelay` = the delay after its own attempt, so
 *    that a run cut short (its process died), which only pg-boss's maintenance sees, is retried after that delay too.
 *    attempt = the attempt in the job's data + pg-boss's retryCount (the runs of that row cut short).
 *  - Dedupe keys: pg-boss's singletonKey drops a second job only under the "short", "singleton" and "stately"
 *    policies, each of which lets a second job in while the first is active (or while it is queued); the port drops it
 *    while the first is waiting, retrying or running. The queue keeps its keys in a table of its own
 *    (`mailroom_job_keys`, beside the `pgboss` schema): a key's row names its job until the job finishes.
 *  - Enqueues made inside a transaction of the Store, when the Store is on the queue's database, run in that
 *    transaction (pg-boss's `db` option over the Store's connection): the jobs commit with its changes, or not at all,
 *    and the workers of this process are woken once it committed. */
import { SqlClient } from "@effect/sql"
import {
  afterCommit, type ClaimedJob, CommitDurability, type Durability, type EnqueueOptions, type JobDefinition, JobQueue, type JobQueueService, runJobWorker, StoreError,
} from "@mailroom/core"
import { makeClaimWakeup, makeKeyedWakeSignals } from "@mailroom/core/internal"
import { Duration, Effect, Layer, Option, Runtime, Schema } from "effect"
import { randomUUID } from "node:crypto"
import pg from "pg"
import PgBoss from "pg-boss"
import { beginTransaction, relaxedSessionOptions } from "./durability.js"

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

/** What the queue stores in a pg-boss job's data: the payload (encoded), the attempt its row was inserted for (1 when
 *  absent), and its dedupe key. */
const JobData = Schema.Struct({ payload: Schema.Unknown, attempt: Schema.optional(Schema.Number), key: Schema.optional(Schema.String) })
type JobData = typeof JobData.Type
const FetchedJob = Schema.Struct({ id: Schema.String, retryCount: Schema.Number, data: JobData })
const decodeFetched = Schema.decodeUnknown(Schema.Array(FetchedJob))

/** A job claimed by this process, with what its settlement needs. */
interface Claimed extends ClaimedJob {
  readonly data: JobData
}

/** The queue's own table of dedupe keys, created when the queue starts (instances starting at once take turns on an
 *  advisory lock). The index Mailroom once added to pg-boss's job table is dropped: the keys live here now. */
const createKeyTable = `CREATE TABLE IF NOT EXISTS mailroom_job_keys (
    name text NOT NULL,
    key text NOT NULL,
    job_id uuid NOT NULL,
    PRIMARY KEY (name, key)
  );
  DROP INDEX IF EXISTS pgboss.job_mailroom_dedupe`

/** Takes the keys not taken yet (in key order, so that two enqueues cannot deadlock); answers those it took. */
const takeKeys = `INSERT INTO mailroom_job_keys (name, key, job_id)
  SELECT $1, key, job_id FROM unnest($2::text[], $3::uuid[]) AS t (key, job_id) ORDER BY key
  ON CONFLICT (name, key) DO NOTHING
  RETURNING key`
const findKeys = "SELECT key, job_id FROM mailroom_job_keys WHERE name = $1 AND key = ANY($2::text[])"
const moveKey = "UPDATE mailroom_job_keys SET job_id = $3 WHERE name = $1 AND key = $2"
const freeKeys = "DELETE FROM mailroom_job_keys WHERE name = $1 AND job_id = ANY($2::uuid[])"

/** A pg-boss job that is still to run, or running. */
const unfinished = (state: string | undefined) => state === "created" || state === "retry" || state === "active"

/** The queue; with `store` (the Store's SqlClient), enqueues made inside the Store's transactions run in them when the
 *  Store is on the queue's database. */
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
    // Claims, and the completions of background runs (CommitDurability "relaxed"), each one statement that commits on
    // its own, go through a small pool whose connections commit without waiting for the disk: a claim or a completion
    // that an operating-system crash undoes only makes the run again (delivery is at least once). On the main pool each
    // would wait for its WAL to reach the disk. Its connections open when first needed.
    const relaxedPool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const opened = new pg.Pool({ connectionString: options.url, max: 2, application_name: "mailroom-jobs", options: relaxedSessionOptions })
        opened.on("error", () => undefined)
        return opened
      }),
      (opened) => Effect.promise(() => opened.end()),
    )
    const relaxedDb: PgBoss.Db = { executeSql: (text, values) => relaxedPool.query(text, values) }
    const boss = new PgBoss({
      db: { executeSql: (text: string, values?: Array<unknown>) => pool.query(text, values) },
      schedule: false,
      supervise: true,
      maintenanceIntervalSeconds: wholeSeconds(options.maintenanceInterval ?? "30 seconds"),
    })
    boss.on("error", (error) => Effect.runFork(Effect.logError("pg-boss", error)))
    yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => boss.start(), catch: failure("pgboss.start") }),
      () => Effect.promise(() => boss.stop({ graceful: false, close: false, wait: true })),
    )

    /** Runs `use` in a transaction on a connection of the queue's pool, begun with `durability`. A transaction that
     *  fails discards its connection, and Postgres rolls the transaction back as the connection closes: no ROLLBACK is
     *  sent. After the database dropped the connection (a FATAL error), a ROLLBACK sent on it never settles, and the
     *  settlement of a failed run (its retry) would wait forever, leaving the job to pg-boss's expiry. */
    const inPoolTransaction = async <A>(durability: Durability, use: (db: PgBoss.Db) => Promise<A>): Promise<A> => {
      const client = await pool.connect()
      try {
        await client.query(beginTransaction(durability))
        const answer = await use({ executeSql: (text, values) => client.query(text, values) })
        await client.query("COMMIT")
        client.release()
        return answer
      } catch (error) {
        client.release(error instanceof Error ? error : new Error(String(error)))
        throw error
      }
    }

    yield* Effect.tryPromise({
      try: () => inPoolTransaction("full", async (db) => {
        await db.executeSql("SELECT pg_advisory_xact_lock(hashtext('mailroom_job_keys'))", [])
        for (const statement of createKeyTable.split(";")) await db.executeSql(statement, [])
      }),
      catch: failure("pgboss.keys"),
    })

    // The Store's connections join enqueues only when they reach the queue's database (pg-boss's version table is
    // the same relation on both sides).
    const identity = "SELECT current_database() || ' ' || pg_postmaster_start_time()::text || ' ' || to_regclass('pgboss.version')::oid::text AS identity"
    const sameDatabase = store === undefined ? Effect.succeed(false) : Effect.gen(function* () {
      const ours = yield* Effect.tryPromise({ try: () => pool.query<{ identity: string }>(identity), catch: failure("pgboss.identity") })
      const theirs = yield* Effect.either(store.unsafe<{ readonly identity: string }>(identity))
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
    /** Jobs due within one poll interval wake this process's workers when they fall due. */
    const wakeHorizon = Duration.toMillis(Duration.decode(options.pollInterval ?? "1 second"))

    /** The pg-boss job of attempt `attempt` of `job`: it may be retried by pg-boss (after its run was cut short) as
     *  many times as the policy has attempts left, each after the delay that follows its own attempt. */
    const jobInsert = (
      job: JobDefinition<unknown, unknown>,
      row: { readonly id: string; readonly data: JobData; readonly startAfter?: Date | string },
    ): PgBoss.JobInsert => {
      const attempt = row.data.attempt ?? 1
      const delay = job.retry.delays[attempt - 1]
      return {
        id: row.id,
        name: job.name,
        data: row.data,
        retryLimit: job.retry.delays.length + 1 - attempt,
        retryDelay: delay === undefined ? 0 : wholeSeconds(delay),
        retryBackoff: false,
        expireInSeconds: wholeSeconds(job.timeout) + wholeSeconds(options.expiryMargin ?? "30 seconds"),
        ...(row.startAfter === undefined ? {} : { startAfter: row.startAfter }),
      }
    }

    /** Stores jobs of one queue within the transaction of `db`. A job whose dedupe key names an unfinished job
     *  answers that job's id; a key whose job finished is taken over. */
    const insertJobs = async (
      db: PgBoss.Db,
      job: JobDefinition<unknown, unknown>,
      jobs: ReadonlyArray<{ readonly data: JobData; readonly runAt: Date | undefined }>,
    ): Promise<ReadonlyArray<string>> => {
      const proposed = new Map<string, string>()
      for (const one of jobs) if (one.data.key !== undefined && !proposed.has(one.data.key)) proposed.set(one.data.key, randomUUID())
      const owner = new Map(proposed)
      const skipped = new Set<string>()
      if (proposed.size > 0) {
        const keys = [...proposed.keys()]
        const tookRows = (await db.executeSql(takeKeys, [job.name, keys, keys.map((key) => proposed.get(key))])).rows as ReadonlyArray<{ readonly key: string }>
        const taken = new Set(tookRows.map((row) => row.key))
        const others = keys.filter((key) => !taken.has(key))
        if (others.length > 0) {
          const found = (await db.executeSql(findKeys, [job.name, others])).rows as ReadonlyArray<{ readonly key: string; readonly job_id: string }>
          for (const { key, job_id: id } of found) {
            const holder = await boss.getJobById(job.name, id, { db, includeArchive: false })
            if (unfinished(holder?.state)) {
              owner.set(key, id)
              skipped.add(key)
            } else {
              await db.executeSql(moveKey, [job.name, key, proposed.get(key)])
            }
          }
        }
      }
      const ids: Array<string> = []
      const inserts: Array<PgBoss.JobInsert> = []
      const inserted = new Set<string>()
      for (const one of jobs) {
        const key = one.data.key
        const id = key === undefined ? randomUUID() : owner.get(key)!
        ids.push(id)
        if ((key !== undefined && skipped.has(key)) || inserted.has(id)) continue
        inserted.add(id)
        inserts.push(jobInsert(job, { id, data: one.data, ...(one.runAt === undefined ? {} : { startAfter: one.runAt }) }))
      }
      if (inserts.length > 0) await boss.insert(inserts, { db })
      return ids
    }

    /** Runs `use` with a pg-boss `db` in a transaction: the Store's transaction in progress when the Store is on the
     *  queue's database, the queue's own otherwise. Answers whether it joined the Store's. Joined, the statements run
     *  on the transaction's connection as they are, without a savepoint (which would cost two round trips of every
     *  relay batch): a statement that fails fails the Store's transaction, which rolls back with its changes. */
    const inTransaction = <A>(operation: string, use: (db: PgBoss.Db) => Promise<A>) =>
      Effect.gen(function* () {
        if (storeSql !== undefined && Option.isSome(yield* Effect.serviceOption(SqlClient.TransactionConnection))) {
          const sql = storeSql
          return yield* Effect.flatMap(Effect.runtime<never>(), (runtime) => {
            const run = Runtime.runPromise(runtime)
            const db: PgBoss.Db = {
              executeSql: (text, values) => run(Effect.map(sql.unsafe(text, values.map((value: unknown) => value ?? null)), (rows) => ({ rows: [...rows] }))),
            }
            return Effect.tryPromise({ try: () => use(db), catch: failure(operation) })
          }).pipe(Effect.map((answer) => ({ answer, joined: true })))
        }
        const durability = yield* CommitDurability
        const answer = yield* Effect.tryPromise({ try: () => inPoolTransaction(durability, use), catch: failure(operation) })
        return { answer, joined: false }
      })

    const enqueueAll: JobQueueService["enqueueAll"] = (job, many) =>
      Effect.gen(function* () {
        if (many.length === 0) return []
        const jobs = yield* Effect.forEach(many, (one) =>
          Effect.map(Schema.encode(job.payload)(one.payload), (payload) => ({
            data: { payload, ...(one.options?.dedupeKey === undefined ? {} : { key: one.options.dedupeKey }) },
            runAt: one.options?.runAt,
          }))).pipe(Effect.mapError(failure("jobs.enqueue")))
        yield* Effect.tryPromise({ try: () => ensureQueue(job.name), catch: failure("jobs.enqueue") })
        const { answer, joined } = yield* inTransaction("jobs.enqueue", (db) => insertJobs(db, job as JobDefinition<unknown, unknown>, jobs))
        // Jobs written in the Store's transaction can be claimed once it committed.
        const woken = signals.wakeAt(job.name, jobs.map((one) => one.runAt?.getTime()), wakeHorizon)
        yield* joined ? afterCommit(woken) : woken
        return answer
      })

    const enqueue = <A, I>(job: JobDefinition<A, I>, payload: A, enqueueOptions: EnqueueOptions = {}) =>
      Effect.map(enqueueAll(job, [{ payload, options: enqueueOptions }]), (ids) => ids[0]!)

    /** Settles jobs in a transaction of the queue's own, with the worker's durability. */
    const settle = (operation: string, use: (db: PgBoss.Db) => Promise<void>) =>
      Effect.flatMap(CommitDurability, (durability) => Effect.tryPromise({ try: () => inPoolTransaction(durability, use), catch: failure(operation) }))

    /** pg-boss's complete of many jobs with a `db`: its typings offer (name, ids, options), but the function reads its
     *  options in fourth place, after the output data, for an array of ids as for one id. */
    const completeMany = (name: string, ids: Array<string>, connection: PgBoss.ConnectionOptions) =>
      (boss.complete as unknown as (name: string, ids: Array<string>, data: null, options: PgBoss.ConnectionOptions) => Promise<unknown>).call(boss, name, ids, null, connection)

    const keyed = (jobs: ReadonlyArray<Claimed>) => jobs.flatMap((one) => one.data.key === undefined ? [] : [one.id])

    const work: JobQueueService["work"] = (job, handler, workOptions) => {
      const definition = job as JobDefinition<unknown, unknown>
      // An enqueue during a claim's round trip ends the idle wait after it (see makeClaimWakeup).
      const wakeup = makeClaimWakeup(signals.of(job.name), options.pollInterval ?? "1 second")
      return Effect.zipRight(
        Effect.tryPromise({ try: () => ensureQueue(job.name), catch: failure("jobs.work") }),
        runJobWorker(job, handler, {
          claim: (max) =>
            Effect.zipRight(wakeup.arm, Effect.tryPromise({
              try: () => boss.fetch(job.name, { batchSize: max, includeMetadata: true, db: relaxedDb }),
              catch: failure("jobs.claim"),
            })).pipe(
              Effect.flatMap((fetched) => Effect.mapError(decodeFetched(fetched), failure("jobs.claim"))),
              Effect.map((fetched) => fetched.map((one): Claimed => ({
                id: one.id, attempt: (one.data.attempt ?? 1) + one.retryCount, payload: one.data.payload, data: one.data,
              }))),
            ),
          // A finished job frees its dedupe key in the same transaction.
          complete: (claimed) => {
            const ids = keyed(claimed as ReadonlyArray<Claimed>)
            const completeAll = (db: PgBoss.Db) => completeMany(job.name, claimed.map((one) => one.id), { db })
            // Without keys to free, one statement: a relaxed one commits on its own, on the relaxed pool.
            return ids.length === 0
              ? Effect.flatMap(CommitDurability, (durability) => durability === "relaxed"
                ? Effect.tryPromise({ try: () => completeAll(relaxedDb), catch: failure("jobs.complete") })
                : settle("jobs.complete", async (db) => { await completeAll(db) })).pipe(Effect.asVoid)
              : settle("jobs.complete", async (db) => {
                await completeAll(db)
                await db.executeSql(freeKeys, [job.name, ids])
              })
          },
          // The next attempt is the same job inserted again, due after the policy's delay; the last failure is
          // pg-boss's `fail` (the job stays failed in pg-boss's tables), and frees the key.
          fail: (claimed, retryIn, error) => {
            const one = claimed as Claimed
            return Effect.zipRight(settle("jobs.fail", async (db) => {
              if (retryIn === undefined) {
                await boss.fail(job.name, one.id, { message: error }, { db })
                if (one.data.key !== undefined) await db.executeSql(freeKeys, [job.name, [one.id]])
                return
              }
              await boss.deleteJob(job.name, one.id, { db })
              await boss.insert([jobInsert(definition, {
                id: one.id,
                data: { ...one.data, attempt: one.attempt + 1 },
                startAfter: String(wholeSeconds(retryIn)),
              })], { db })
            }), wake(job.name))
          },
          idle: wakeup.idle,
        }, { concurrency: workOptions?.concurrency ?? 1, shutdownGrace: options.shutdownGrace ?? "30 seconds" }),
      )
    }

    return JobQueue.of({ enqueue, enqueueAll, work })
  })

export const PgBossJobQueue = {
  /** The pg-boss JobQueue on the database at `url`; creates (or migrates) the `pgboss` schema when built and stops
   *  pg-boss when the layer's scope closes. */
  layer: (options: PgBossJobQueueOptions): Layer.Layer<JobQueue, StoreError> => Layer.scoped(JobQueue, makePgBossJobQueue(options)),
  /** As `layer`, beside the Store whose SqlClient it is given: when the Store is on the queue's database, enqueues made
   *  in the Store's transactions commit with them. */
  layerWithStore: (options: PgBossJobQueueOptions): Layer.Layer<JobQueue, StoreError, SqlClient.SqlClient> =>
    Layer.scoped(JobQueue, Effect.flatMap(SqlClient.SqlClient, (store) => makePgBossJobQueue(options, store))),
} as const
