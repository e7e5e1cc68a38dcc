/** The Postgres rate-limit store: counts shared by every store on one database (each with a pool of its own, as two
 *  instances have), in the table it creates before its first count. */
import { findTestPostgres, scratchPostgres } from "@mailroom/testing"
import pg from "pg"
import { RateLimiterRes } from "rate-limiter-flexible"
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
  })
})
