import { RateLimiterMemory } from "rate-limiter-flexible"
import { describe, expect, it } from "vitest"
import type { RateLimiterSpec } from "../src/index.js"
import { call, makeTestApp, newAccount } from "./support.js"

describe("rate limits", () => {
  it("takes its numbers from the options: the general per-second limit", async () => {
    const app = makeTestApp({ rateLimits: { requestsPerSecond: 3 } })
    const { key } = await newAccount(app)
    for (let i = 0; i < 3; i++) expect((await call(app, "GET", "/v1/contacts", { key })).status).toBe(200)
    const limited = await call(app, "GET", "/v1/contacts", { key })
    expect(limited.status).toBe(429)
    expect(limited.json.error).toMatchObject({ code: "RATE_LIMIT_EXCEEDED", context: { retry_after: 1 } })
    expect(limited.headers.get("retry-after")).toBe("1")
  })

  it("takes its numbers from the options: POST /contacts per minute, counted per API key", async () => {
    const app = makeTestApp({ rateLimits: { contactsCreatePerMinute: 2 } })
    const { id, key } = await newAccount(app, { plan: "pro" })
    for (const email of ["a@example.com", "b@example.com"]) {
      expect((await call(app, "POST", "/v1/contacts", { key, body: { email } })).status).toBe(201)
    }
    const limited = await call(app, "POST", "/v1/contacts", { key, body: { email: "c@example.com" } })
    expect(limited.status).toBe(429)
    expect(limited.json.error.context.retry_after).toBeGreaterThan(50)
    const second = await call(app, "POST", `/admin/accounts/${id}/api-keys`, { key: "test-admin-token", body: {} })
    expect((await call(app, "POST", "/v1/contacts", { key: second.json.key, body: { email: "c@example.com" } })).status).toBe(201)
  })

  it("builds its limiters with the factory it is given", async () => {
    const specs: Array<RateLimiterSpec> = []
    const app = makeTestApp({
      rateLimits: {
        contactsCreatePerMinute: 5,
        requestsPerSecond: 9,
        store: (spec) => {
          specs.push(spec)
          return new RateLimiterMemory({ ...spec, points: spec.keyPrefix.includes("contacts") ? 1 : spec.points })
        },
      },
    })
    expect(specs).toEqual([
      { keyPrefix: "mailroom:requests", points: 9, duration: 1 },
      { keyPrefix: "mailroom:contacts-create", points: 5, duration: 60 },
      { keyPrefix: "mailroom:failed-authentications", points: 30, duration: 60 },
      { keyPrefix: "mailroom:emails-send", points: 100, duration: 1 },
      { keyPrefix: "mailroom:emails-batch", points: 10, duration: 1 },
      { keyPrefix: "mailroom:form-submissions-ip", points: 10, duration: 60 },
      { keyPrefix: "mailroom:form-submissions-address", points: 5, duration: 3600 },
    ])
    const { key } = await newAccount(app, { plan: "pro" })
    expect((await call(app, "POST", "/v1/contacts", { key, body: { email: "a@example.com" } })).status).toBe(201)
    expect((await call(app, "POST", "/v1/contacts", { key, body: { email: "b@example.com" } })).status).toBe(429)
  })

  it("answers 500 and logs when the limiter's store fails", async () => {
    const failing = new RateLimiterMemory({ points: 1, duration: 1 })
    failing.consume = () => Promise.reject(new Error("redis unreachable"))
    const app = makeTestApp({
      rateLimits: { store: (spec) => spec.keyPrefix === "mailroom:requests" ? failing : new RateLimiterMemory(spec) },
    })
    const { key } = await newAccount(app)
    const answer = await call(app, "GET", "/v1/contacts", { key })
    expect(answer.status).toBe(500)
    expect(answer.text).not.toContain("redis")
    expect(app.logs.some((line) => line.cause.includes("redis unreachable"))).toBe(true)
  })

  it("does not count requests refused for a missing key", async () => {
    const app = makeTestApp({ rateLimits: { requestsPerSecond: 1 } })
    const { key } = await newAccount(app)
    for (let i = 0; i < 3; i++) expect((await call(app, "GET", "/v1/contacts")).status).toBe(401)
    expect((await call(app, "GET", "/v1/contacts", { key })).status).toBe(200)
  })
})
