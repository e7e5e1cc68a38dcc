/** Request rates counted in Postgres, so that every instance of the host service on one database shares them: the
 *  store Mailroom's rate limits use on Postgres (rate-limiter-flexible's RateLimiterPostgres), in place of the
 *  in-process count that memory and SQLite keep. Without it, each instance counts a key's requests on its own, and N
 *  instances let a key make N times the spec's rate.
 *
 *  The counters live in one table, `mailroom_rate_limits` (key, points, expire: rate-limiter-flexible's layout), one row
 *  per limit and key (`mailroom:requests:<api key id>`, …). The store creates it (CREATE UNLOGGED TABLE IF NOT EXISTS)
 *  before its first count, so that it exists whether or not the backend has migrated yet, and deletes rows expired for
 *  an hour every five minutes. It has a small pool of its own (one statement per counted request: an INSERT … ON
 *  CONFLICT DO UPDATE on the key's row). Counts need no durability: the table is unlogged (no WAL; a crash of the
 *  server empties it, and standbys do not have it) and the pool's sessions commit without waiting for the disk, so a
 *  counted request costs one round trip and no flush. Kept out of the package's main entry: it loads pg and
 *  rate-limiter-flexible only. */
import pg from "pg"
import { type RateLimiterAbstract, RateLimiterPostgres, type RateLimiterRes } from "rate-limiter-flexible"

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

/** A RateLimiterPostgres whose counts wait for the table. Mailroom counts with `consume` and reads with `get`. */
class SharedLimiter extends RateLimiterPostgres {
  readonly #ready: () => Promise<void>

  constructor(options: ConstructorParameters<typeof RateLimiterPostgres>[0], ready: () => Promise<void>) {
    super(options)
    this.#ready = ready
  }

  override consume(key: string | number, points?: number, options?: Record<string, unknown>): Promise<RateLimiterRes> {
    return this.#ready().then(() => super.consume(key, points, options))
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

  let closing: Promise<void> | undefined
  return {
    limiter: (spec) => new SharedLimiter({
      storeClient: pool,
      storeType: "pool",
      tableName: rateLimitTable,
      tableCreated: true,
      clearExpiredByTimeout: false,
      keyPrefix: spec.keyPrefix,
      points: spec.points,
      duration: spec.duration,
    }, ready),
    close: () => {
      clearInterval(purge)
      closing ??= pool.end()
      return closing
    },
  }
}
