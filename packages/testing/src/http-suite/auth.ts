/** Authentication, scopes and the operator API. Spec: audience and sending "Authentication"; CONTRACT.md,
 *  "Operator API". */
import { describe, expect, it } from "vitest"
import { adminToken, type Client, expectError } from "./client.js"

/** Every contacts route with the scope it needs (audience "Authentication": GET on /contacts/** reads, every other
 *  method writes). `{id}` is replaced with a real contact id. */
interface ScopedRoute {
  readonly method: string
  readonly path: string
  readonly scope: "contacts:read" | "contacts:write"
  readonly body?: unknown
}

const scopedRoutes: ReadonlyArray<ScopedRoute> = [
  { method: "GET", path: "/v1/contacts", scope: "contacts:read" },
  { method: "GET", path: "/v1/contacts/{id}", scope: "contacts:read" },
  { method: "GET", path: "/v1/contacts/tags", scope: "contacts:read" },
  { method: "GET", path: "/v1/contacts/export", scope: "contacts:read" },
  { method: "POST", path: "/v1/contacts", scope: "contacts:write", body: { email: "scoped@example.com" } },
  { method: "PATCH", path: "/v1/contacts/{id}", scope: "contacts:write", body: { firstName: "Changed" } },
  { method: "DELETE", path: "/v1/contacts/{id}", scope: "contacts:write" },
  { method: "POST", path: "/v1/contacts/{id}/tags", scope: "contacts:write", body: { tags: ["scoped"] } },
  { method: "DELETE", path: "/v1/contacts/{id}/tags/held", scope: "contacts:write" },
  { method: "POST", path: "/v1/contacts/bulk", scope: "contacts:write", body: { contacts: [{ email: "bulk-scoped@example.com" }] } },
  { method: "DELETE", path: "/v1/contacts/bulk", scope: "contacts:write", body: { contactIds: ["{id}"] } },
]

export const authTests = (client: () => Client) => {
  describe("API keys", () => {
    it("answers 401 UNAUTHORIZED without an Authorization header", async () => {
      expectError(await client().call("GET", "/v1/contacts"), 401, "UNAUTHORIZED")
    })

    it.each([
      ["a malformed key", "not-a-key"],
      ["an unknown key", "svc_live_0000000000000000000000000000000000000000000000ff"],
      ["another scheme", undefined],
    ])("answers 401 INVALID_CREDENTIALS for %s", async (_, key) => {
      const headers = key === undefined ? { authorization: "Basic dXNlcjpwYXNz" } : {}
      expectError(await client().call("GET", "/v1/contacts", { ...(key === undefined ? {} : { key }), headers }), 401, "INVALID_CREDENTIALS")
    })

    it("answers 401 for a revoked key while the account's other keys keep working", async () => {
      const account = await client().account()
      const doomed = await client().key(account.id)
      expect((await client().call("GET", "/v1/contacts", { key: doomed.key })).status).toBe(200)
      const revoked = await client().call("DELETE", `/admin/accounts/${account.id}/api-keys/${doomed.id}`, { key: adminToken })
      expect({ status: revoked.status, body: revoked.json }).toEqual({ status: 200, body: { id: doomed.id, revoked: true } })
      expectError(await client().call("GET", "/v1/contacts", { key: doomed.key }), 401, "INVALID_CREDENTIALS")
      expect((await client().call("GET", "/v1/contacts", { key: account.key })).status).toBe(200)
    })
  })

  describe("scopes", () => {
    it.each(scopedRoutes)("$method $path needs $scope: 403 SCOPE_INSUFFICIENT without it, and nothing changes", async ({ method, path, scope, body }) => {
      const account = await client().account({ plan: "pro" })
      const contact = await client().contact(account.key, { email: "held@example.com", tags: ["held"] })
      const other = scope === "contacts:read" ? "contacts:write" : "contacts:read"
      const lacking = await client().key(account.id, [other, "suppressions:read"])
      const withIt = await client().key(account.id, [scope])
      const url = path.replace("{id}", contact.id)
      const payload = body === undefined ? undefined : JSON.parse(JSON.stringify(body).replace("{id}", contact.id))
      const denied = await client().call(method, url, { key: lacking.key, ...(payload === undefined ? {} : { body: payload }) })
      expectError(denied, 403, "SCOPE_INSUFFICIENT")
      expect(denied.json.error.message).toContain(scope)
      expect(await client().read(account.key, contact.id)).toEqual(contact)
      expect(await client().count(account.key)).toBe(1)
      const allowed = await client().call(method, url, { key: withIt.key, ...(payload === undefined ? {} : { body: payload }) })
      expect(allowed.status, allowed.text).toBeLessThan(300)
    })

    it("lets a key without any contacts scope reach no contacts route", async () => {
      const account = await client().account()
      const key = await client().key(account.id, ["emails:send"])
      expectError(await client().call("GET", "/v1/contacts", { key: key.key }), 403, "SCOPE_INSUFFICIENT")
      expectError(await client().call("POST", "/v1/contacts", { key: key.key, body: { email: "x@example.com" } }), 403, "SCOPE_INSUFFICIENT")
    })
  })

  describe("operator API", () => {
    it("answers 401 without the admin token or with a wrong one", async () => {
      expect((await client().call("POST", "/admin/accounts", { body: {} })).status).toBe(401)
      expect((await client().call("POST", "/admin/accounts", { key: "wrong-token", body: {} })).status).toBe(401)
      const account = await client().account()
      expect((await client().call("GET", `/admin/accounts/${account.id}`, { key: account.key })).status).toBe(401)
    })

    it("creates, reads and updates an account as CONTRACT.md shows", async () => {
      const created = await client().call("POST", "/admin/accounts", { key: adminToken, body: { name: "Acme", ownerEmail: "Owner@Acme.example" } })
      expect(created.status).toBe(201)
      expect(created.json).toEqual({ id: expect.any(String), name: "Acme", plan: "free", ownerEmail: "owner@acme.example", apiKey: expect.stringMatching(/^svc_live_/) })
      const read = await client().call("GET", `/admin/accounts/${created.json.id}`, { key: adminToken })
      expect(read.json).toEqual({ id: created.json.id, name: "Acme", plan: "free", ownerEmail: "owner@acme.example", createdAt: expect.any(String) })
      expect(new Date(read.json.createdAt).toISOString()).toBe(read.json.createdAt)
      const patched = await client().call("PATCH", `/admin/accounts/${created.json.id}`, { key: adminToken, body: { plan: "scale" } })
      expect({ status: patched.status, body: patched.json }).toEqual({ status: 200, body: { ...read.json, plan: "scale" } })
    })

    it.each(["free", "starter", "micro", "pro", "scale", "enterprise"])("accepts the plan %s", async (plan) => {
      const created = await client().call("POST", "/admin/accounts", { key: adminToken, body: { plan } })
      expect({ status: created.status, plan: created.json.plan }).toEqual({ status: 201, plan })
    })

    it("refuses an unknown plan, and an unknown field, with VALIDATION_ERROR", async () => {
      expectError(await client().call("POST", "/admin/accounts", { key: adminToken, body: { plan: "gold" } }), 400, "VALIDATION_ERROR", "plan")
      expectError(await client().call("POST", "/admin/accounts", { key: adminToken, body: { colour: "red" } }), 400, "VALIDATION_ERROR", "colour")
    })

    it("issues restricted and test-mode keys", async () => {
      const account = await client().account()
      const answer = await client().call("POST", `/admin/accounts/${account.id}/api-keys`, {
        key: adminToken,
        body: { name: "reader", scopes: ["contacts:read"], mode: "test" },
      })
      expect({ status: answer.status, body: answer.json }).toEqual({
        status: 201,
        body: { id: expect.any(String), key: expect.stringMatching(/^svc_test_/), scopes: ["contacts:read"], mode: "test" },
      })
      expect((await client().call("GET", "/v1/contacts", { key: answer.json.key })).status).toBe(200)
      const full = await client().call("POST", `/admin/accounts/${account.id}/api-keys`, { key: adminToken, body: {} })
      expect(full.json.scopes).toEqual(expect.arrayContaining(["contacts:read", "contacts:write", "emails:send", "analytics:read"]))
      expect(full.json.scopes).toHaveLength(12)
      expectError(await client().call("POST", `/admin/accounts/${account.id}/api-keys`, { key: adminToken, body: { scopes: ["contacts:admin"] } }), 400, "VALIDATION_ERROR", "scopes.0")
    })

    it("issues application credentials prefixed svc_app_, which the contacts API refuses", async () => {
      const account = await client().account()
      const answer = await client().call("POST", `/admin/accounts/${account.id}/app-credentials`, {
        key: adminToken,
        body: { applicationKey: "studio", allowedSenders: ["news@acme.example"] },
      })
      expect({ status: answer.status, body: answer.json }).toEqual({ status: 201, body: { id: expect.any(String), key: expect.stringMatching(/^svc_app_/) } })
      expect((await client().call("GET", "/v1/contacts", { key: answer.json.key })).status).toBe(401)
    })

    it("answers 404 for unknown account and key ids", async () => {
      const account = await client().account()
      const other = await client().account()
      const otherKey = await client().key(other.id)
      for (const [method, path, body] of [
        ["GET", "/admin/accounts/acc_unknown", undefined],
        ["PATCH", "/admin/accounts/acc_unknown", { plan: "pro" }],
        ["POST", "/admin/accounts/acc_unknown/api-keys", {}],
        ["POST", "/admin/accounts/acc_unknown/app-credentials", { applicationKey: "a", allowedSenders: [] }],
        ["DELETE", `/admin/accounts/acc_unknown/api-keys/${otherKey.id}`, undefined],
        ["DELETE", `/admin/accounts/${account.id}/api-keys/key_unknown`, undefined],
        ["DELETE", `/admin/accounts/${account.id}/api-keys/${otherKey.id}`, undefined],
      ] as const) {
        const answer = await client().call(method, path, { key: adminToken, ...(body === undefined ? {} : { body }) })
        expect({ route: `${method} ${path}`, status: answer.status }).toEqual({ route: `${method} ${path}`, status: 404 })
      }
      expect((await client().call("GET", "/v1/contacts", { key: otherKey.key })).status).toBe(200)
    })

    it("answers GET /admin/outbox with a data array", async () => {
      const answer = await client().call("GET", "/admin/outbox?limit=5", { key: adminToken })
      expect(answer.status).toBe(200)
      expect(answer.json).toEqual({ data: expect.any(Array) })
    })
  })
}
