import { Store } from "@mailroom/core"
import { MemoryStore } from "@mailroom/memory"
import { Effect, Layer, Option, TestClock } from "effect"
import { RateLimiterMemory } from "rate-limiter-flexible"
import { describe, expect, it } from "vitest"
import { credentialOf } from "../src/index.js"
import { adminToken, call, makeTestApp, newAccount } from "./support.js"

/** The memory Store, counting the key lookups that reach it. Once `lookups.revoked` is set, every key reads as
 *  revoked, as after a revocation by another process sharing the database. */
const countingStore = () => {
  const lookups = { count: 0, revoked: false }
  const layer = Layer.effect(Store, Effect.map(Store, (store) => ({
    ...store,
    apiKeys: {
      ...store.apiKeys,
      findByHash: (hash: string) => Effect.suspend(() => {
        lookups.count++
        return store.apiKeys.findByHash(hash).pipe(Effect.map(Option.map((key) =>
          lookups.revoked ? { ...key, revokedAt: new Date(0) } : key)))
      }),
    },
  }))).pipe(Layer.provide(MemoryStore.layer))
  return { layer, lookups }
}

/** Waits (in real time) until `done` holds: for work the app does in the background. */
const eventually = async (done: () => boolean) => {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  expect(done()).toBe(true)
}

describe("credentialOf", () => {
  it.each([
    [undefined, { kind: "none" }],
    ["", { kind: "none" }],
    ["Bearer", { kind: "none" }],
    ["bearer  ", { kind: "none" }],
    ["Bearer abc", { kind: "bearer", token: "abc" }],
    ["BEARER    abc", { kind: "bearer", token: "abc" }],
    ["abc", { kind: "malformed" }],
    ["Basic abc", { kind: "malformed" }],
    ["Token abc", { kind: "malformed" }],
    ["Bearer abc def", { kind: "malformed" }],
    ["Bearer\tabc", { kind: "malformed" }],
    ["Bearerabc", { kind: "malformed" }],
    ["Bearer abc,", { kind: "bearer", token: "abc," }],
  ] as const)("reads %j as %j", (header, credential) => {
    expect(credentialOf(header)).toEqual(credential)
  })
})

describe("failed authentications", () => {
  it("cost the database at most the limit per client address, however many invalid keys arrive", async () => {
    const { layer, lookups } = countingStore()
    const app = makeTestApp({ rateLimits: { failedAuthenticationsPerMinute: 10 } }, layer)
    const statuses: Array<number> = []
    for (let i = 0; i < 100; i++) {
      const key = `svc_live_${i.toString(16).padStart(48, "0")}`
      statuses.push((await call(app, "GET", "/v1/contacts", { key })).status)
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401))
    expect(statuses.slice(10)).toEqual(Array(90).fill(429))
    expect(lookups.count).toBe(10)
  })

  it("refuse a key of the wrong prefix, length or alphabet without a lookup", async () => {
    const { layer, lookups } = countingStore()
    const app = makeTestApp({}, layer)
    for (const key of ["svc_live_short", `svc_live_${"g".repeat(48)}`, `svc_live_${"0".repeat(49)}`, `sk_live_${"0".repeat(48)}`]) {
      expect((await call(app, "GET", "/v1/contacts", { key })).status).toBe(401)
    }
    expect(lookups.count).toBe(0)
  })

  it("are counted apart from successes, and a burst of good keys is never refused", async () => {
    const app = makeTestApp({ rateLimits: { failedAuthenticationsPerMinute: 3 } })
    const { key } = await newAccount(app)
    expect((await call(app, "GET", "/v1/contacts", { key })).status).toBe(200)
    for (let i = 0; i < 10; i++) expect((await call(app, "GET", "/admin/accounts/acc_unknown", { key: adminToken })).status).toBe(404)
    const other = await newAccount(app)
    const burst = await Promise.all(Array.from({ length: 50 }, () => call(app, "GET", "/v1/contacts", { key: other.key })))
    expect(burst.map((answer) => answer.status)).toEqual(Array(50).fill(200))
    for (let i = 0; i < 3; i++) expect((await call(app, "GET", "/v1/contacts", { key: "nope" })).status).toBe(401)
    expect((await call(app, "GET", "/v1/contacts", { key: "nope" })).status).toBe(429)
    // A key that authenticated recently is known without an attempt, so its owner is not locked out by the flood.
    expect((await call(app, "GET", "/v1/contacts", { key })).status).toBe(200)
  })

  it("answer 500 when the limiter's store fails, and log it", async () => {
    const failing = new RateLimiterMemory({ points: 1, duration: 1 })
    failing.get = () => Promise.reject(new Error("redis unreachable"))
    const app = makeTestApp({
      rateLimits: { store: (spec) => spec.keyPrefix === "mailroom:failed-authentications" ? failing : new RateLimiterMemory(spec) },
    })
    const answer = await call(app, "GET", "/v1/contacts", { key: "nope" })
    expect(answer.status).toBe(500)
    expect(answer.text).not.toContain("redis")
    expect(app.logs.some((line) => line.cause.includes("redis unreachable"))).toBe(true)
  })
})

describe("a key lookup that fails on the database's side", () => {
  it("answers 500 and is not counted as a failed authentication of the client", async () => {
    const failing = Layer.effect(Store, Effect.map(Store, (store) => ({
      ...store,
      apiKeys: { ...store.apiKeys, findByHash: () => Effect.die(new Error("connection lost")) },
    }))).pipe(Layer.provide(MemoryStore.layer))
    const app = makeTestApp({ rateLimits: { failedAuthenticationsPerMinute: 2 } }, failing)
    for (let i = 0; i < 5; i++) {
      expect((await call(app, "GET", "/v1/contacts", { key: `svc_live_${"a".repeat(48)}` })).status).toBe(500)
    }
    expect((await call(app, "GET", "/v1/contacts", { key: "nope" })).status).toBe(401)
  })
})

/** An app on a counting store under a TestClock set far from the system's time (so that a cache read against the
 *  system clock could not agree with this one), and a key of a new account. */
const underTestClock = async () => {
  const { layer, lookups } = countingStore()
  const app = makeTestApp({}, layer, { testClock: true })
  await app.runtime.runPromise(TestClock.setTime(Date.UTC(2040, 0, 1)))
  const { key } = await newAccount(app)
  return { app, lookups, key }
}

describe("the cache of recent authentications", () => {
  it("expires by Mailroom's Clock: under a TestClock, a key is looked up again once the clock passes its lifetime", async () => {
    const { app, lookups, key } = await underTestClock()
    expect((await call(app, "GET", "/v1/contacts", { key })).status).toBe(200)
    expect((await call(app, "GET", "/v1/contacts", { key })).status).toBe(200)
    expect(lookups.count).toBe(1)
    await app.runtime.runPromise(TestClock.adjust("1 second"))
    expect((await call(app, "GET", "/v1/contacts", { key })).status).toBe(200)
    expect(lookups.count).toBe(1)
    // Past the cache's lifetime (two seconds) by the TestClock alone: no real time has passed.
    await app.runtime.runPromise(TestClock.adjust("2 seconds"))
    expect((await call(app, "GET", "/v1/contacts", { key })).status).toBe(200)
    expect(lookups.count).toBe(2)
  })
})

describe("the lookup of a key in use ahead of its expiry", () => {
  it("happens once, in the background, so that the key's requests never miss the cache", async () => {
    const { app, lookups, key } = await underTestClock()
    expect((await call(app, "GET", "/v1/contacts", { key })).status).toBe(200)
    expect(lookups.count).toBe(1)
    // In the last quarter of the entry's two seconds: answered from the cache, and one lookup starts behind it.
    await app.runtime.runPromise(TestClock.adjust("1600 millis"))
    const burst = await Promise.all(Array.from({ length: 10 }, () => call(app, "GET", "/v1/contacts", { key })))
    expect(burst.map((answer) => answer.status)).toEqual(Array(10).fill(200))
    await eventually(() => lookups.count === 2)
    // Past the first entry's expiry, within the refreshed one's: no lookup.
    await app.runtime.runPromise(TestClock.adjust("600 millis"))
    expect((await call(app, "GET", "/v1/contacts", { key })).status).toBe(200)
    expect(lookups.count).toBe(2)
  })

  it("drops the key at once when it reads as revoked", async () => {
    const { app, lookups, key } = await underTestClock()
    expect((await call(app, "GET", "/v1/contacts", { key })).status).toBe(200)
    lookups.revoked = true
    await app.runtime.runPromise(TestClock.adjust("1600 millis"))
    expect((await call(app, "GET", "/v1/contacts", { key })).status).toBe(200)
    await eventually(() => lookups.count === 2)
    await new Promise((resolve) => setTimeout(resolve, 10))
    const answer = await call(app, "GET", "/v1/contacts", { key })
    expect(answer.status).toBe(401)
    expect(answer.json).toMatchObject({ error: { code: "INVALID_CREDENTIALS" } })
  })
})
