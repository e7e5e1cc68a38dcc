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
      { keyPrefix: "mailroom:public-requests", points: 200, duration: 1 },
      { keyPrefix: "mailroom:contacts-create", points: 5, duration: 60 },
      { keyPrefix: "mailroom:failed-authentications", points: 30, duration: 60 },
      { keyPrefix: "mailroom:emails-send", points: 100, duration: 1 },
      { keyPrefix: "mailroom:emails-batch", points: 10, duration: 1 },
      { keyPrefix: "mailroom:emails-validate", points: 50, duration: 1 },
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

  describe("the public routes, per client address", () => {
    /** Limited to `points` a window; the window is stretched to a minute, so that no second boundary falls between
     *  the requests of a test. */
    const publicApp = (points: number) => makeTestApp({
      rateLimits: {
        publicRequestsPerSecond: points,
        store: (spec) => new RateLimiterMemory(spec.keyPrefix === "mailroom:public-requests" ? { ...spec, duration: 60 } : spec),
      },
    })
    const from = (app: ReturnType<typeof makeTestApp>, clientAddress: string | null, method: string, path: string, body?: unknown) =>
      app.app.fetch(new Request(`http://mailroom.test${path}`, {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
      }), { clientAddress })
    /** Every route that takes no API key, except form submissions. */
    const publicRequests: ReadonlyArray<readonly [string, string, unknown?]> = [
      ["POST", "/v1/unsubscribe", { token: "not-a-token" }],
      ["POST", "/v1/unsubscribe/one-click?token=not-a-token"],
      ["GET", "/v1/unsubscribe/one-click?token=not-a-token"],
      ["GET", "/u/not-a-token"],
      ["POST", "/u/not-a-token"],
      ["GET", "/c/not-a-token"],
      ["HEAD", "/c/not-a-token"],
      ["POST", "/c/not-a-token"],
      ["POST", "/c/not-a-token/resend"],
      ["GET", "/p/not-a-token"],
      ["POST", "/p/not-a-token"],
      ["GET", "/f/frm_unknown"],
      ["OPTIONS", "/v1/forms/frm_unknown/submit"],
    ]

    it("counts every public route together, and answers 429 past the limit: the JSON error on /v1, a page on the hosted pages", async () => {
      const app = publicApp(publicRequests.length)
      for (const [method, path, body] of publicRequests) {
        expect((await from(app, "198.51.100.20", method, path, body)).status, `${method} ${path}`).not.toBe(429)
      }
      for (const [method, path, body] of publicRequests) {
        const limited = await from(app, "198.51.100.20", method, path, body)
        expect(limited.status, `${method} ${path}`).toBe(429)
        const retryAfter = Number(limited.headers.get("retry-after"))
        expect(retryAfter >= 1 && retryAfter <= 60, `${method} ${path}`).toBe(true)
        if (path.startsWith("/v1/")) {
          const json = await limited.json()
          expect(json.error).toMatchObject({ code: "RATE_LIMIT_EXCEEDED", context: { retry_after: retryAfter } })
        } else {
          expect(limited.headers.get("content-type")).toBe("text/html; charset=utf-8")
          if (method !== "HEAD") expect(await limited.text()).toContain("Too many requests")
        }
      }
      // Another address has its own count.
      expect((await from(app, "198.51.100.21", "GET", "/u/not-a-token")).status).toBe(400)
    })

    it("does not count form submissions, which have their own limits, nor requests with an API key", async () => {
      const app = publicApp(1)
      const { key } = await newAccount(app)
      const contacts = await app.app.fetch(new Request("http://mailroom.test/v1/contacts", { headers: { authorization: `Bearer ${key}` } }), { clientAddress: "198.51.100.30" })
      expect(contacts.status).toBe(200)
      for (let i = 0; i < 3; i++) {
        expect((await from(app, "198.51.100.30", "POST", "/v1/forms/frm_unknown/submit", { email: "a@example.com" })).status).toBe(404)
      }
      expect((await from(app, "198.51.100.30", "GET", "/f/frm_unknown")).status).toBe(404)
      expect((await from(app, "198.51.100.30", "GET", "/f/frm_unknown")).status).toBe(429)
      expect((await from(app, "198.51.100.30", "POST", "/v1/forms/frm_unknown/submit", { email: "a@example.com" })).status).toBe(404)
    })

    it("counts clients whose address the transport does not tell together", async () => {
      const app = publicApp(1)
      expect((await from(app, null, "GET", "/u/not-a-token")).status).toBe(400)
      expect((await from(app, null, "GET", "/c/not-a-token")).status).toBe(429)
    })
  })
})
