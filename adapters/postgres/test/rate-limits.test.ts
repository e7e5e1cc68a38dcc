/** The Postgres rate-limit store: counts shared by every store on one database (each with a pool of its own, as two
 *  instances have), in the table it creates before its first count. */
import { findTestPostgres, scratchPostgres } from "@mailroom/testing"
import pg from "pg"
import { RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible"
import { afterAll, describe, expect, it } from "vitest"
import { postgresRateLimitStore, rateLimitTable } from "../src/rate-limits.js"

const serverUrl = await findTestPostgres()
const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const tableExists = async (url: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query("SELECT to_regclass($1) AS name", [rateLimitTable])).rows[0]?.name !== null
  } finally {
    await client.end()
  }
}

/** Whether the limiter let the request through (false when it refused it with a RateLimiterRes). */
const allowed = (consumed: Promise<unknown>) =>
  consumed.then(() => true, (rejection: unknown) => {
    if (rejection instanceof RateLimiterRes) return false
    throw rejection
  })

describe.skipIf(serverUrl === undefined)("postgresRateLimitStore", () => {
  it("two stores on one database, each with its own pool, share one key's count; the table is made on first use", async () => {
    const { url, drop } = await scratchPostgres(serverUrl!)
    cleanups.push(drop)
    expect(await tableExists(url)).toBe(false)
    const stores = [postgresRateLimitStore({ url }), postgresRateLimitStore({ url })]
    cleanups.push(async () => { for (const store of stores) await store.close() })
    const spec = { keyPrefix: "mailroom:test", points: 5, duration: 60 }
    const limiters = stores.map((store) => store.limiter(spec))
    // Eight requests of one key through each store, all at once.
    const answers = await Promise.all(limiters.flatMap((limiter) => Array.from({ length: 8 }, () => allowed(limiter.consume("key-1")))))
    expect(answers.filter(Boolean)).toHaveLength(5)
    expect(await tableExists(url)).toBe(true)
    // Another key has a count of its own; `get` reads the shared count from either store.
    expect(await allowed(limiters[0]!.consume("key-2"))).toBe(true)
    expect((await limiters[1]!.get("key-1"))?.consumedPoints).toBe(16)
    expect((await limiters[1]!.get("key-2"))?.consumedPoints).toBe(1)
    // Counts need no durability: the table writes no WAL.
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const table = await client.query("SELECT relpersistence FROM pg_class WHERE relname = $1", [rateLimitTable])
      expect(table.rows).toEqual([{ relpersistence: "u" }])
    } finally {
      await client.end()
    }
  })

  it("consumes that arrive together are counted in batches and answered as rate-limiter-flexible's own Postgres limiter answers them one by one", async () => {
    const { url, drop } = await scratchPostgres(serverUrl!)
    cleanups.push(drop)
    const store = postgresRateLimitStore({ url })
    cleanups.push(() => store.close())
    const reference = new pg.Pool({ connectionString: url, max: 1 })
    cleanups.push(() => reference.end())
    const specs = [
      { keyPrefix: "mailroom:second", points: 7, duration: 1 },
      { keyPrefix: "mailroom:minute", points: 12, duration: 60 },
    ]
    const limiters = specs.map((spec) => store.limiter(spec))
    // The reference counts in a table of its own, one statement per consume, in the same order.
    const referenceLimiters = await Promise.all(specs.map((spec) => new Promise<RateLimiterPostgres>((resolve, reject) => {
      const limiter: RateLimiterPostgres = new RateLimiterPostgres(
        { storeClient: reference, storeType: "pool", tableName: "reference_limits", clearExpiredByTimeout: false, ...spec },
        (error?: unknown) => (error === undefined ? resolve(limiter) : reject(error instanceof Error ? error : new Error("the reference limiter could not be made", { cause: error }))),
      )
    })))
    const answerOf = (consumed: Promise<RateLimiterRes>) => consumed.then(
      (res) => ({ allowed: true, consumedPoints: res.consumedPoints, remainingPoints: res.remainingPoints, isFirstInDuration: res.isFirstInDuration }),
      (res: unknown) => {
        if (!(res instanceof RateLimiterRes)) throw res
        return { allowed: false, consumedPoints: res.consumedPoints, remainingPoints: res.remainingPoints, isFirstInDuration: res.isFirstInDuration }
      })
    // Calls of several keys, limits and weights; a burst at once (one statement alone, then the rest batched), twice.
    const calls = Array.from({ length: 60 }, (_, i) => ({ limiter: i % 2, key: `k${i % 3}`, points: 1 + (i % 4 === 0 ? 2 : 0) }))
    for (let burst = 0; burst < 2; burst++) {
      const batched = await Promise.all(calls.map((call) => answerOf(limiters[call.limiter]!.consume(call.key, call.points))))
      const sequential = []
      for (const call of calls) sequential.push(await answerOf(referenceLimiters[call.limiter]!.consume(call.key, call.points)))
      expect(batched).toEqual(sequential)
      expect(batched.some((answer) => !answer.allowed)).toBe(true)
      expect(batched.some((answer) => answer.allowed)).toBe(true)
    }
    // A new window restarts the count, as the reference's does.
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    const afterWindow = await answerOf(limiters[0]!.consume("k0"))
    expect(afterWindow).toEqual(await answerOf(referenceLimiters[0]!.consume("k0")))
    expect(afterWindow).toMatchObject({ allowed: true, consumedPoints: 1, isFirstInDuration: true })
  }, 60_000)

  it("stores that make the table at the same moment all count: losing the race to create it is not an error", async () => {
    // Each round, eight stores on a fresh database count at once, so that their CREATE TABLE statements race; the
    // losers meet the catalog's unique indexes (23505, 42710) and must go on counting.
    for (let round = 0; round < 5; round++) {
      const { url, drop } = await scratchPostgres(serverUrl!)
      cleanups.push(drop)
      const stores = Array.from({ length: 8 }, () => postgresRateLimitStore({ url }))
      cleanups.push(async () => { for (const store of stores) await store.close() })
      const spec = { keyPrefix: "mailroom:race", points: 100, duration: 60 }
      const answers = await Promise.all(stores.map((store) => allowed(store.limiter(spec).consume("key"))))
      expect(answers).toEqual(Array.from({ length: 8 }, () => true))
    }
  }, 60_000)
})
