import { describe, expect, it } from "vitest"
import { adminToken, call, makeTestApp } from "../support.js"

describe("the operator API", () => {
  it("keeps GET /admin/outbox only while mail stays in the dev outbox", async () => {
    const withOutbox = makeTestApp()
    expect((await call(withOutbox, "GET", "/admin/outbox", { key: adminToken })).json).toEqual({ data: [] })
    const withRelay = makeTestApp({ devOutbox: false })
    const answer = await call(withRelay, "GET", "/admin/outbox", { key: adminToken })
    expect(answer.status).toBe(404)
    expect(answer.json.error.code).toBe("NOT_FOUND")
  })

  it.each([["limit=0", "limit"], ["limit=101", "limit"], ["to=not-an-address", "to"]])(
    "refuses GET /admin/outbox?%s with VALIDATION_ERROR",
    async (query, field) => {
      const app = makeTestApp()
      const answer = await call(app, "GET", `/admin/outbox?${query}`, { key: adminToken })
      expect({ status: answer.status, code: answer.json.error.code, field: answer.json.error.context.field }).toEqual({ status: 400, code: "VALIDATION_ERROR", field })
    },
  )

  it("answers 401 UNAUTHORIZED without a token and INVALID_CREDENTIALS with a wrong one, before reading the body", async () => {
    const app = makeTestApp()
    expect((await call(app, "POST", "/admin/accounts", { raw: "{not json" })).json.error.code).toBe("UNAUTHORIZED")
    expect((await call(app, "POST", "/admin/accounts", { key: `${adminToken}x`, raw: "{not json" })).json.error.code).toBe("INVALID_CREDENTIALS")
    expect((await call(app, "POST", "/admin/accounts", { key: adminToken.slice(0, -1), raw: "{not json" })).status).toBe(401)
  })

  it("does not accept an API key in place of the admin token", async () => {
    const app = makeTestApp()
    const created = await call(app, "POST", "/admin/accounts", { key: adminToken, body: {} })
    expect((await call(app, "GET", `/admin/accounts/${created.json.id}`, { key: created.json.apiKey })).status).toBe(401)
  })
})
