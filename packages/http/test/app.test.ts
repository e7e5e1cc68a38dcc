import { Store, StoreError } from "@mailroom/core"
import { MemoryStore } from "@mailroom/memory"
import { Effect, Layer, LogLevel, TestClock } from "effect"
import { describe, expect, it } from "vitest"
import { call, makeTestApp, newAccount } from "./support.js"

/** The memory store with `ping` (and nothing else) replaced. */
const storeWithPing = (ping: Effect.Effect<void, StoreError>) =>
  Layer.effect(Store, Effect.map(Store, (store) => ({ ...store, ping }))).pipe(Layer.provide(MemoryStore.layer))

/** The memory store whose contact listing dies, as a driver bug would. */
const storeWithBrokenList = Layer.effect(Store, Effect.map(Store, (store) => ({
  ...store,
  contacts: {
    ...store.contacts,
    list: () => Effect.fail(new StoreError({ operation: "contacts.list", cause: new Error("connection reset by db-host-7") })),
    tagCounts: () => Effect.die(new Error("SECRET internal detail")),
  },
}))).pipe(Layer.provide(MemoryStore.layer))

describe("the router", () => {
  const app = makeTestApp()

  it("answers unknown routes 404 NOT_FOUND in the standard envelope", async () => {
    const answer = await call(app, "GET", "/nowhere")
    expect(answer.status).toBe(404)
    expect(answer.json).toEqual({
      success: false,
      error: expect.objectContaining({ code: "NOT_FOUND", message: "no route for GET /nowhere" }),
    })
    expect(answer.json.error.fix_action).toEqual(expect.any(String))
    expect(answer.json.error.docs_url).toMatch(/^https:\/\/.+#not_found$/)
  })

  it("answers an unknown /v1 route 404 NOT_FOUND once the key is valid, 401 before", async () => {
    const { key } = await newAccount(app)
    expect((await call(app, "GET", "/v1/nothing-here")).status).toBe(401)
    const answer = await call(app, "GET", "/v1/nothing-here", { key })
    expect(answer.status).toBe(404)
    expect(answer.json.error.code).toBe("NOT_FOUND")
  })

  it("tags every answer with a request id", async () => {
    const answer = await call(app, "GET", "/api/health")
    expect(answer.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
  })

  it.each(["tags", "bulk", "export", "import", "lists"])("never lets /contacts/{id} capture /contacts/%s", async (path) => {
    const { key } = await newAccount(app)
    for (const method of ["GET", "PATCH", "DELETE"]) {
      const answer = await call(app, method, `/v1/contacts/${path}`, { key, ...(method === "GET" ? {} : { body: {} }) })
      expect(answer.json?.error?.message ?? "").not.toContain(`contact ${path}`)
    }
  })

  it("answers /contacts/{id} for any other id", async () => {
    const { key } = await newAccount(app)
    const answer = await call(app, "GET", "/v1/contacts/listsx", { key })
    expect(answer.json.error).toMatchObject({ code: "RESOURCE_NOT_FOUND", message: "contact listsx was not found" })
  })
})

describe("the operator API switch", () => {
  const app = makeTestApp({ adminToken: undefined })

  it("answers /admin 404 NOT_FOUND when no admin token is configured", async () => {
    const answer = await call(app, "POST", "/admin/accounts", { body: {} })
    expect(answer.status).toBe(404)
    expect(answer.json.error.code).toBe("NOT_FOUND")
  })
})

describe("GET /api/health", () => {
  it("answers ok with the database connected", async () => {
    const app = makeTestApp()
    const answer = await call(app, "GET", "/api/health")
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({ status: "ok", database: "connected", timestamp: expect.any(String) })
    expect(new Date(answer.json.timestamp).toISOString()).toBe(answer.json.timestamp)
  })

  it("answers 503 with the database disconnected when the store does not answer", async () => {
    const app = makeTestApp({}, storeWithPing(Effect.fail(new StoreError({ operation: "ping", cause: new Error("ECONNREFUSED") }))))
    const answer = await call(app, "GET", "/api/health")
    expect(answer.status).toBe(503)
    expect(answer.json).toEqual({ status: "error", database: "disconnected", timestamp: expect.any(String) })
    expect(answer.text).not.toContain("ECONNREFUSED")
  })

  it("needs no API key", async () => {
    const app = makeTestApp({ adminToken: undefined })
    expect((await call(app, "GET", "/api/health")).status).toBe(200)
  })

  it("stamps its answer with Mailroom's Clock (a TestClock here), connected or not", async () => {
    const at = Date.UTC(2039, 6, 14, 12, 30, 5, 250)
    const up = makeTestApp({}, undefined, { testClock: true })
    await up.runtime.runPromise(TestClock.setTime(at))
    expect((await call(up, "GET", "/api/health")).json).toEqual({ status: "ok", database: "connected", timestamp: "2039-07-14T12:30:05.250Z" })
    const down = makeTestApp({}, storeWithPing(Effect.fail(new StoreError({ operation: "ping", cause: new Error("ECONNREFUSED") }))),
      { testClock: true })
    await down.runtime.runPromise(TestClock.setTime(at))
    expect((await call(down, "GET", "/api/health")).json).toEqual({ status: "error", database: "disconnected", timestamp: "2039-07-14T12:30:05.250Z" })
  })
})

describe("what a failed request logs, with every level down to Debug kept", () => {
  const app = makeTestApp({}, storeWithBrokenList, { logLevel: LogLevel.Debug })
  const linesOf = (requestId: string) => app.logs.filter((line) => line.annotations.requestId === requestId)

  it("a 400 logs its request line only: a client error is not a fault", async () => {
    const { key } = await newAccount(app)
    const before = app.logs.length
    const answer = await call(app, "POST", "/v1/contacts", { key, body: { email: "not an address" } })
    expect(answer.status).toBe(400)
    await expect.poll(() => linesOf(answer.headers.get("x-request-id")!).map((line) => `${line.level} ${line.message}`))
      .toEqual(["INFO request"])
    expect(app.logs.slice(before).filter((line) => /unhandled/i.test(line.message))).toEqual([])
  })

  it("a 500 logs once, at Error, with the request id", async () => {
    const { key } = await newAccount(app)
    const before = app.logs.length
    const answer = await call(app, "GET", "/v1/contacts", { key })
    expect(answer.status).toBe(500)
    await expect.poll(() => linesOf(answer.headers.get("x-request-id")!).map((line) => `${line.level} ${line.message}`))
      .toEqual(["ERROR request failed with an internal error", "INFO request"])
    expect(app.logs.slice(before).filter((line) => /unhandled/i.test(line.message))).toEqual([])
  })
})

describe("internal errors", () => {
  const app = makeTestApp({}, storeWithBrokenList)

  it("answers a StoreError 500 INTERNAL_ERROR without the cause, and logs it with the request id", async () => {
    const { key } = await newAccount(app)
    const answer = await call(app, "GET", "/v1/contacts", { key })
    expect(answer.status).toBe(500)
    expect(answer.json.error.code).toBe("INTERNAL_ERROR")
    expect(answer.text).not.toMatch(/db-host-7|contacts\.list|StoreError/)
    const requestId = answer.headers.get("x-request-id")!
    expect(answer.json.error.message).toContain(requestId)
    const logged = app.logs.find((line) => line.annotations.requestId === requestId)
    expect(logged?.level).toBe("ERROR")
    expect(logged?.annotations).toMatchObject({ operation: "contacts.list", storeCause: expect.stringContaining("db-host-7") })
  })

  it("answers a defect 500 INTERNAL_ERROR without its message", async () => {
    const { key } = await newAccount(app)
    const answer = await call(app, "GET", "/v1/contacts/tags", { key })
    expect(answer.status).toBe(500)
    expect(answer.json.error.code).toBe("INTERNAL_ERROR")
    expect(answer.text).not.toContain("SECRET")
    expect(app.logs.some((line) => line.cause.includes("SECRET internal detail"))).toBe(true)
  })
})
