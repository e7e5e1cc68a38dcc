/** One log line per request: method, route pattern, status, duration, request id and account id; never the path an
 *  address or token is in, never the query string, never the key. */
import { describe, expect, it } from "vitest"
import { patternOf } from "../src/request-log.js"
import { adminToken, call, makeTestApp, newAccount } from "./support.js"

const app = makeTestApp()
const linesOf = (requestId: string) =>
  app.logs.filter((line) => line.message === "request" && line.annotations.requestId === requestId)
const lineOf = async (requestId: string) => {
  await expect.poll(() => linesOf(requestId).length).toBe(1)
  return linesOf(requestId)[0]!
}

describe("the request line", () => {
  it("names the method, the route pattern, the status, the duration, the request id and the account", async () => {
    const { id, key } = await newAccount(app)
    const created = await call(app, "POST", "/v1/contacts", { key, body: { email: "ada@example.com" } })
    const read = await call(app, "GET", `/v1/contacts/${created.json.data.id}?token=query-secret`, { key })
    const line = await lineOf(read.headers.get("x-request-id")!)
    expect(line.level).toBe("INFO")
    expect(line.annotations).toEqual({
      method: "GET", route: "/v1/contacts/{id}", status: 200, durationMs: expect.any(Number),
      requestId: read.headers.get("x-request-id"), accountId: id,
    })
    expect(JSON.stringify(line)).not.toContain(created.json.data.id)
    expect(JSON.stringify(line)).not.toContain("query-secret")
    expect(JSON.stringify(line)).not.toContain(key)
  })

  it("carries the pattern, not the address, of a route with an address in its path", async () => {
    const { key } = await newAccount(app)
    const answer = await call(app, "GET", "/v1/subscriptions/grace%40example.com", { key })
    const line = await lineOf(answer.headers.get("x-request-id")!)
    expect(line.annotations.route).toBe("/v1/subscriptions/{email}")
    expect(JSON.stringify(line)).not.toContain("grace")
  })

  it("logs refused and unknown requests too, without an account", async () => {
    const refused = await call(app, "GET", "/v1/contacts", { key: "svc_live_notakey" })
    expect((await lineOf(refused.headers.get("x-request-id")!)).annotations).toMatchObject({
      route: "/v1/contacts", status: 401, accountId: null,
    })
    const unknown = await call(app, "GET", "/nowhere/at/all")
    expect((await lineOf(unknown.headers.get("x-request-id")!)).annotations).toMatchObject({ route: "unmatched", status: 404 })
    const admin = await call(app, "POST", "/admin/accounts", { key: adminToken, body: {} })
    expect((await lineOf(admin.headers.get("x-request-id")!)).annotations).toMatchObject({ route: "/admin/accounts", status: 201 })
  })

  it("keeps health checks for debug", async () => {
    const answer = await call(app, "GET", "/api/health")
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(linesOf(answer.headers.get("x-request-id")!)).toEqual([])
  })
})

describe("patternOf", () => {
  it("writes Hono's parameters as OpenAPI does", () => {
    expect(patternOf("/v1/contacts/:id{(?!(?:tags|bulk)$)[^/]+}/tags/:tag")).toBe("/v1/contacts/{id}/tags/{tag}")
    expect(patternOf("/v1/webhooks/:id/deliveries/:deliveryId")).toBe("/v1/webhooks/{id}/deliveries/{deliveryId}")
  })
})
