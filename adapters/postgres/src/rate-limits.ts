/** Request rates counted in Postgres, so that every instance of the host service on one database shares them: the
 *  store Mailroom's rate limits use on Postgres (rate-limiter-flexible's RateLimiterPostgres), in place of the
 *  in-process count that memory and SQLite keep. Without it, each instance counts a key's requests on its own, and N
 *  instances let a key make N times the spec's rate.
 *
 *  The counters live in one table, `mailroom_rate_limits` (key, points, expire: rate-limiter-flexible's layout), one row
 *  per limit and key (`mailroom:requests:<api key id>`, …). The store creates it (CREATE UNLOGGED TABLE IF NOT EXISTS)
 *  before its first count, so that it exists whether or not the backend has migrated yet, and deletes rows expired for
 *  an hour every five minutes. It has a small pool of its own, and writes counts one statement at a time: an INSERT …
 *  ON CONFLICT DO UPDATE of the keys' rows, carrying every count that arrived while the previous statement ran
 *  (CountBatcher). Counts need no durability: the table is unlogged (no WAL; a crash of the server empties it, and
 *  standbys do not have it) and the pool's sessions commit without waiting for the disk, so a counted request costs
 *  at most two round trips and no flush. Kept out of the package's main entry: it loads pg and
 *  rate-limiter-flexible only. */
import pg from "pg"
import { type RateLimiterAbstract, RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible"

/** The table of the counters. */
export const rateLimitTable = "mailroom_rate_limits"

/** Connections of the store's own pool, unless told otherwise. */
export const defaultRateLimitConnections = 4

/** How often expired counters are deleted, and how long after expiring. */
const purgeIntervalMs = 5 * 60_000
const purgeAfterMs = 60 * 60_000

export interface PostgresRateLimitStoreOptions {
  /** `postgres://user:password@host:port/database`: the database the instances share. */
  readonly url: string
  /** Most connections the store's pool opens (default 4). */
  readonly maxConnections?: number
}

/** What one limiter enforces: `points` requests per `duration` seconds per key, under `keyPrefix`. */
export interface RateLimitSpec {
  readonly keyPrefix: string
  readonly points: number
  readonly duration: number
}

export interface PostgresRateLimitStore {
  /** One limiter counting in the shared table (the `store` of Mailroom's rate limits). */
  readonly limiter: (spec: RateLimitSpec) => RateLimiterAbstract
  /** Stops the purge and closes the pool. */
  readonly close: () => Promise<void>
}

const createTable = `CREATE UNLOGGED TABLE IF NOT EXISTS ${rateLimitTable} (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
)`

/** Sessions creating the table at once: the losers fail on a catalog's unique index (23505), on the primary key's
 *  name (42710) or on the table's (42P07), once the winner has committed. The table then exists. */
const concurrentCreateCodes: ReadonlySet<unknown> = new Set(["23505", "42710", "42P07"])
const isConcurrentCreate = (error: unknown) => concurrentCreateCodes.has((error as { code?: unknown } | null)?.code)

/** One `consume` waiting for the next count statement. */
interface PendingCount {
  readonly points: number
  readonly resolve: (row: CountedRow) => void
  readonly reject: (error: unknown) => void
}

/** A key's count after one consume, as RateLimiterPostgres reads its upsert's row. */
interface CountedRow {
  readonly points: number
  readonly expire: string | number | null
}

/**
 * Counts of every limiter of one store, written together: the consumes that arrive while a count statement is in
 * flight wait for it, and then go in one statement, a multi-row upsert of one row per key carrying the sum of its
 * consumes (rate-limiter-flexible's upsert, with its window rule, applied to many keys at once). Each consume is then
 * answered as if it had run alone, in order: its key's count after the statement, less what the consumes after it in
 * the batch added. Under load a statement carries the counts of many requests, so that counting costs the database a
 * statement per batch rather than one per request (measured in docs/performance.md); alone, a consume waits for
 * nothing more than its own statement.
 */
class CountBatcher {
  #pending = new Map<string, { readonly windowMs: number; readonly counts: Array<PendingCount> }>()
  #inFlight = false

  constructor(private readonly pool: pg.Pool, private readonly ready: () => Promise<void>) {}

  /** Adds `points` to `key`'s count in a window of `windowMs` (a new window starts once the last has expired). */
  count(key: string, points: number, windowMs: number): Promise<CountedRow> {
    return new Promise<CountedRow>((resolve, reject) => {
      const entry = this.#pending.get(key) ?? { windowMs, counts: [] }
      entry.counts.push({ points, resolve, reject })
      this.#pending.set(key, entry)
      if (!this.#inFlight) this.#flush()
    })
  }

  #flush(): void {
    if (this.#pending.size === 0) return
    const batch = [...this.#pending].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    this.#pending = new Map()
    this.#inFlight = true
    const now = Date.now()
    const totals = batch.map(([, { counts }]) => counts.reduce((sum, count) => sum + count.points, 0))
    this.ready()
      .then(() => this.pool.query<{ key: string; points: number; expire: string | null }>(upsertCounts, [
        batch.map(([key]) => key),
        totals,
        batch.map(([, { windowMs }]) => (windowMs > 0 ? now + windowMs : null)),
        now,
      ]))
      .then((result) => {
        const rows = new Map(result.rows.map((row) => [row.key, row]))
        batch.forEach(([key, { counts }], index) => {
          const row = rows.get(key)
          if (row === undefined) {
            for (const count of counts) count.reject(new Error(`the rate-limit count of ${key} was not returned`))
            return
          }
          let before = row.points - totals[index]!
          for (const count of counts) {
            before += count.points
            count.resolve({ points: before, expire: row.expire })
          }
        })
      }, (error: unknown) => {
        for (const [, { counts }] of batch) for (const count of counts) count.reject(error)
      })
      .finally(() => {
        this.#inFlight = false
        this.#flush()
      })
  }
}

/** RateLimiterPostgres's upsert (the count restarts once the row's window has expired), for many keys at once, in key
 *  order so that stores of several instances lock rows in the same order. */
const upsertCounts = `INSERT INTO ${rateLimitTable} AS t (key, points, expire)
  SELECT key, points, expire FROM unnest($1::varchar[], $2::integer[], $3::bigint[]) AS c (key, points, expire) ORDER BY key
  ON CONFLICT (key) DO UPDATE SET
    points = CASE WHEN t.expire <= $4 THEN EXCLUDED.points ELSE t.points + EXCLUDED.points END,
    expire = CASE WHEN t.expire <= $4 THEN EXCLUDED.expire ELSE t.expire END
  RETURNING key, points, expire`

/** A RateLimiterPostgres (its table, its `get`) whose counts go through the store's batcher. `consume` answers as
 *  RateLimiterPostgres's does (without blocks, which Mailroom does not use): the RateLimiterRes of the key's count,
 *  rejected once the count is past the limit's points. */
class SharedLimiter extends RateLimiterPostgres {
  readonly #ready: () => Promise<void>
  readonly #batcher: CountBatcher
  readonly #limit: number
  readonly #windowMs: number

  constructor(spec: RateLimitSpec, options: ConstructorParameters<typeof RateLimiterPostgres>[0], ready: () => Promise<void>, batcher: CountBatcher) {
    super(options)
    this.#ready = ready
    this.#batcher = batcher
    this.#limit = spec.points
    this.#windowMs = spec.duration * 1000
  }

  override consume(key: string | number, points = 1): Promise<RateLimiterRes> {
    return this.#batcher.count(this.getKey(key), points, this.#windowMs).then((row) => {
      const first = row.points === points
      const consumed = first ? points : row.points
      const expire = row.expire === null ? null : Number(row.expire)
      const answer = new RateLimiterRes(
        Math.max(this.#limit - consumed, 0),
        expire === null ? -1 : Math.max(expire - Date.now(), 0),
        consumed,
        first,
      )
      // rate-limiter-flexible's contract: a refused consume rejects with its RateLimiterRes.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      if (consumed > this.#limit) throw answer
      return answer
    })
  }

  override get(key: string | number, options?: Record<string, unknown>): Promise<RateLimiterRes | null> {
    return this.#ready().then(() => super.get(key, options))
  }
}

export const postgresRateLimitStore = (options: PostgresRateLimitStoreOptions): PostgresRateLimitStore => {
  const pool = new pg.Pool({
    connectionString: options.url,
    application_name: "mailroom rate limits",
    max: options.maxConnections ?? defaultRateLimitConnections,
    options: "-c synchronous_commit=off",
  })
  // An idle connection that breaks is dropped by the pool; the next query opens another.
  pool.on("error", () => undefined)

  // The table, made once; a failure (the database unreachable) is tried again by the next count.
  let table: Promise<void> | undefined
  const ready = () => {
    table ??= pool.query(createTable).then(
      () => undefined,
      (error: unknown) => {
        if (isConcurrentCreate(error)) return
        table = undefined
        throw error
      },
    )
    return table
  }

  const purge = setInterval(() => {
    pool.query(`DELETE FROM ${rateLimitTable} WHERE expire < $1`, [Date.now() - purgeAfterMs]).catch(() => undefined)
  }, purgeIntervalMs)
  purge.unref()

  const batcher = new CountBatcher(pool, ready)
  let closing: Promise<void> | undefined
  return {
    limiter: (spec) => new SharedLimiter(spec, {
      storeClient: pool,
      storeType: "pool",
      tableName: rateLimitTable,
      tableCreated: true,
      clearExpiredByTimeout: false,
      keyPrefix: spec.keyPrefix,
      points: spec.points,
      duration: spec.duration,
    }, ready, batcher),
    close: () => {
      clearInterval(purge)
      closing ??= pool.end()
      return closing
    },
  }
}
