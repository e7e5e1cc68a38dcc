/** The OpenAPI document: it covers exactly the /v1 routes the router serves, validates as OpenAPI 3.1, its examples
 *  decode with the schemas the routes use, real answers match its response schemas, and a host can turn it off. */
import { Validator } from "@seriousme/openapi-schema-validator"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { makeOpenApiDocument, routeDescriptions } from "../src/openapi/document.js"
import { patternOf } from "../src/request-log.js"
import { call, makeTestApp, newAccount } from "./support.js"

const app = makeTestApp()
const document = makeOpenApiDocument() as { paths: Record<string, Record<string, unknown>> }

/** Every method and /v1 path the router answers with a handler of its own (middleware is registered as ALL). */
const served = (routes: ReadonlyArray<{ method: string; path: string }>) =>
  new Set(routes
    .filter((route) => route.method !== "ALL" && route.path.startsWith("/v1/"))
    .map((route) => `${route.method.toLowerCase()} ${patternOf(route.path)}`))

const documented = new Set(Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`)))

describe("the OpenAPI document", () => {
  it("describes every /v1 route the router serves, and only those", () => {
    const routes = served(app.app.routes)
    expect(routes.size).toBeGreaterThan(70)
    expect([...routes].filter((route) => !documented.has(route)), "served but not documented").toEqual([])
    expect([...documented].filter((route) => !routes.has(route)), "documented but not served").toEqual([])
  })

  it("validates as OpenAPI 3.1", async () => {
    const validator = new Validator()
    const result = await validator.validate(makeOpenApiDocument({ serverUrl: ".." }))
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe("3.1")
  })

  it("gives every route a success answer and the error codes of its statuses", () => {
    const send = document.paths["/v1/emails/send"]!.post as { responses: Record<string, { description: string }>; security: unknown }
    expect(Object.keys(send.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "409", "413", "429", "500"]))
    expect(send.responses["401"]!.description).toBe("`UNAUTHORIZED`, `INVALID_CREDENTIALS`")
    expect(send.responses["409"]!.description).toContain("`IDEMPOTENCY_KEY_REUSED`")
    expect(send.security).toEqual([{ apiKey: [] }])
    const unsubscribe = document.paths["/v1/unsubscribe"]!.post as { security: unknown; responses: Record<string, unknown> }
    expect(unsubscribe.security).toEqual([])
    expect(unsubscribe.responses["401"]).toBeUndefined()
  })

  it("has request examples that decode with the schemas the routes decode with", () => {
    const withExamples = routeDescriptions.filter((route) => route.body?.example !== undefined)
    expect(withExamples.length).toBeGreaterThan(15)
    for (const route of withExamples) {
      const decoded = Schema.decodeUnknownEither(route.body!.schema as Schema.Schema<unknown, unknown, never>)(
        route.body!.example, { onExcessProperty: "error" })
      expect(decoded._tag, `${route.method} ${route.path}`).toBe("Right")
    }
  })
})

/** The success schema of a route, as a check of the JSON it answers. */
const answersAsDocumented = (method: string, path: string, status: number, body: unknown) => {
  const route = routeDescriptions.find((r) => r.method === method && r.path === path)!
  const success = [route.success, ...(route.alternatives ?? [])].find((s) => s.status === status)!
  const encoded = Schema.encodedSchema(success.schema as Schema.Schema<unknown, unknown, never>)
  return Schema.decodeUnknownEither(encoded)(body, { onExcessProperty: "error" })
}

describe("answers as the document describes them", () => {
  it("contacts, subscriptions, lists, topics and webhooks", async () => {
    const { key } = await newAccount(app)
    const created = await call(app, "POST", "/v1/contacts", { key, body: { email: "ada@example.com", tags: ["a"] } })
    expect(answersAsDocumented("post", "/v1/contacts", 201, created.json)._tag).toBe("Right")
    const subscribed = await call(app, "POST", "/v1/subscriptions", { key, body: { email: "bob@example.com" } })
    expect(answersAsDocumented("post", "/v1/subscriptions", subscribed.status, subscribed.json)._tag).toBe("Right")
    const status = await call(app, "GET", "/v1/subscriptions/bob%40example.com", { key })
    expect(answersAsDocumented("get", "/v1/subscriptions/{email}", 200, status.json)._tag).toBe("Right")
    const list = await call(app, "POST", "/v1/contacts/lists", { key, body: { name: "News" } })
    expect(answersAsDocumented("post", "/v1/contacts/lists", 201, list.json)._tag).toBe("Right")
    const topic = await call(app, "POST", "/v1/suppression-groups", { key, body: { name: "Product news" } })
    expect(answersAsDocumented("post", "/v1/suppression-groups", 201, topic.json)._tag).toBe("Right")
    const hooks = await call(app, "GET", "/v1/webhooks", { key })
    expect(answersAsDocumented("get", "/v1/webhooks", 200, hooks.json)._tag).toBe("Right")
    const page = await call(app, "GET", "/v1/contacts", { key })
    expect(answersAsDocumented("get", "/v1/contacts", 200, page.json)._tag).toBe("Right")
  })

  it("designs and capabilities", async () => {
    const { key } = await newAccount(app, { plan: "pro" })
    const capabilities = await call(app, "GET", "/v1/capabilities", { key })
    expect(answersAsDocumented("get", "/v1/capabilities", 200, capabilities.json)._tag).toBe("Right")
    const draft = { name: "Welcome", subject: "Hello {{name}}", format: "html", html: "<p>Hello {{name}}</p>" }
    const created = await call(app, "POST", "/v1/designs", { key, body: { key: "welcome", draft } })
    expect(created.status).toBe(201)
    expect(answersAsDocumented("post", "/v1/designs", 201, created.json)._tag).toBe("Right")
    const id = created.json.data.id as string
    const published = await call(app, "POST", `/v1/designs/${id}/publish`, { key, body: { expectedRevision: 1 } })
    expect(answersAsDocumented("post", "/v1/designs/{id}/publish", 200, published.json)._tag).toBe("Right")
    const releases = await call(app, "GET", `/v1/designs/${id}/releases`, { key })
    expect(answersAsDocumented("get", "/v1/designs/{id}/releases", 200, releases.json)._tag).toBe("Right")
    const page = await call(app, "GET", "/v1/designs", { key })
    expect(answersAsDocumented("get", "/v1/designs", 200, page.json)._tag).toBe("Right")
    const preview = await call(app, "POST", `/v1/designs/${id}/preview`, { key, body: { source: "live", variables: { name: "Ada" } } })
    expect(preview.status, preview.text).toBe(200)
    expect(answersAsDocumented("post", "/v1/designs/{id}/preview", 200, preview.json)._tag).toBe("Right")
    const usage = await call(app, "GET", `/v1/designs/${id}/usage`, { key })
    expect(answersAsDocumented("get", "/v1/designs/{id}/usage", 200, usage.json)._tag).toBe("Right")
    const missing = await call(app, "GET", "/v1/designs/nope", { key })
    const operation = document.paths["/v1/designs/{id}"]!.get as { responses: Record<string, { description: string }> }
    expect(operation.responses[String(missing.status)]!.description).toContain(`\`${missing.json.error.code}\``)
  })

  it("tags, bulk deletes, list members, suppressions, topic members and domains", async () => {
    const { key } = await newAccount(app, { plan: "pro" })
    const documented = async (method: string, path: string, call_: Promise<{ status: number; json: any }>, template = path) => {
      const answer = await call_
      expect([method, template, answersAsDocumented(method, template, answer.status, answer.json)._tag], JSON.stringify(answer.json))
        .toEqual([method, template, "Right"])
      return answer.json
    }
    const contact = await call(app, "POST", "/v1/contacts", { key, body: { email: "tagged@example.com", tags: ["vip"] } })
    await documented("get", "/v1/contacts/tags", call(app, "GET", "/v1/contacts/tags", { key }))
    await documented("delete", "/v1/contacts/bulk", call(app, "DELETE", "/v1/contacts/bulk", { key, body: { contactIds: ["ct_none"] } }))

    const list = await call(app, "POST", "/v1/contacts/lists", { key, body: { name: "Members" } })
    const listId = list.json.data.id as string
    await call(app, "POST", `/v1/contacts/lists/${listId}/members`, { key, body: { contactIds: [contact.json.data.id] } })
    const member = await documented("get", "/v1/subscriptions/tagged%40example.com",
      call(app, "GET", "/v1/subscriptions/tagged%40example.com", { key }), "/v1/subscriptions/{email}")
    expect(member.data.lists).toHaveLength(1)
    await documented("delete", `/v1/contacts/lists/${listId}/members`,
      call(app, "DELETE", `/v1/contacts/lists/${listId}/members`, { key, body: { contactIds: [contact.json.data.id] } }),
      "/v1/contacts/lists/{id}/members")

    const bulkAdd = { action: "add", emails: ["s1@example.com"], reason: "Manual" }
    await documented("post", "/v1/suppressions/bulk", call(app, "POST", "/v1/suppressions/bulk", { key, body: bulkAdd }))
    await documented("post", "/v1/suppressions/bulk",
      call(app, "POST", "/v1/suppressions/bulk", { key, body: { action: "remove", emails: ["s1@example.com"] } }))
    await call(app, "POST", "/v1/suppressions", { key, body: { email: "s2@example.com", reason: "Manual" } })
    await documented("delete", "/v1/suppressions/s2%40example.com",
      call(app, "DELETE", "/v1/suppressions/s2%40example.com", { key }), "/v1/suppressions/{email}")

    const topic = await call(app, "POST", "/v1/suppression-groups", { key, body: { name: "Offers" } })
    const topicId = topic.json.data.id as string
    await documented("post", `/v1/suppression-groups/${topicId}/members`,
      call(app, "POST", `/v1/suppression-groups/${topicId}/members`, { key, body: { email: "t1@example.com" } }),
      "/v1/suppression-groups/{id}/members")
    await documented("post", `/v1/suppression-groups/${topicId}/members/bulk`,
      call(app, "POST", `/v1/suppression-groups/${topicId}/members/bulk`, { key, body: { action: "add", emails: ["t2@example.com"] } }),
      "/v1/suppression-groups/{id}/members/bulk")
    await documented("post", `/v1/suppression-groups/${topicId}/members/bulk`,
      call(app, "POST", `/v1/suppression-groups/${topicId}/members/bulk`, { key, body: { action: "remove", emails: ["t2@example.com"] } }),
      "/v1/suppression-groups/{id}/members/bulk")
    await documented("delete", `/v1/suppression-groups/${topicId}/members/t1%40example.com`,
      call(app, "DELETE", `/v1/suppression-groups/${topicId}/members/t1%40example.com`, { key }),
      "/v1/suppression-groups/{id}/members/{email}")

    // A contact with a topic in the account, and an address with no contact at all.
    const status = await documented("get", "/v1/subscriptions/tagged%40example.com",
      call(app, "GET", "/v1/subscriptions/tagged%40example.com", { key }), "/v1/subscriptions/{email}")
    expect(status.data.topics).toHaveLength(1)
    await documented("get", "/v1/subscriptions/s1%40example.com",
      call(app, "GET", "/v1/subscriptions/s1%40example.com", { key }), "/v1/subscriptions/{email}")

    const domain = await call(app, "POST", "/v1/domains", { key, body: { hostname: "mail.example.com" } })
    expect(domain.status, domain.text).toBe(201)
    await documented("delete", `/v1/domains/${domain.json.data.id}`, call(app, "DELETE", `/v1/domains/${domain.json.data.id}`, { key }),
      "/v1/domains/{id}")
  })

  it("legacy templates, marked deprecated with their headers", async () => {
    const { key } = await newAccount(app, { plan: "pro" })
    const created = await call(app, "POST", "/v1/templates", { key, body: { name: "Welcome", subject: "Hi {{name}}", html: "<p>{{name}}</p>" } })
    expect(created.status).toBe(201)
    expect(answersAsDocumented("post", "/v1/templates", 201, created.json)._tag).toBe("Right")
    const id = created.json.data.id as string
    const page = await call(app, "GET", "/v1/templates", { key })
    expect(answersAsDocumented("get", "/v1/templates", 200, page.json)._tag).toBe("Right")
    const rendered = await call(app, "POST", `/v1/templates/${id}/render`, { key, body: { variables: {} } })
    expect(answersAsDocumented("post", "/v1/templates/{id}/render", 200, rendered.json)._tag).toBe("Right")
    const removed = await call(app, "DELETE", `/v1/templates/${id}`, { key })
    expect(answersAsDocumented("delete", "/v1/templates/{id}", 200, removed.json)._tag).toBe("Right")
    const operation = document.paths["/v1/templates/{id}"]!.get as { deprecated?: boolean; responses: Record<string, { headers?: Record<string, unknown> }> }
    expect(operation.deprecated).toBe(true)
    expect(Object.keys(operation.responses["200"]!.headers ?? {})).toEqual(["Deprecation", "Sunset", "Link"])
  })

  it("an error answer matches the envelope of its status", async () => {
    const { key } = await newAccount(app)
    const missing = await call(app, "GET", "/v1/contacts/nope", { key })
    expect(missing.status).toBe(404)
    const operation = document.paths["/v1/contacts/{id}"]!.get as { responses: Record<string, { description: string }> }
    expect(operation.responses["404"]!.description).toContain(`\`${missing.json.error.code}\``)
  })
})

describe("serving the reference", () => {
  it("answers the document and the page without an API key", async () => {
    const doc = await call(app, "GET", "/v1/openapi.json")
    expect(doc.status).toBe(200)
    expect(doc.json.openapi).toBe("3.1.0")
    expect(doc.json.servers).toEqual([{ url: ".." }])
    const page = await call(app, "GET", "/v1/reference")
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toContain("text/html")
    expect(page.headers.get("content-security-policy")).toContain("connect-src 'self'")
    // The script is in the page: no <script src>, no stylesheet or font from elsewhere.
    expect(page.text).not.toMatch(/<script[^>]+src=/i)
    expect(page.text).not.toMatch(/<link[^>]+href="https?:/i)
    expect(page.text).toContain("\"withDefaultFonts\":false")
    expect(page.text).toContain("/v1/emails/send")
  })

  it("is off when the host turns it off", async () => {
    const off = makeTestApp({ apiReference: false })
    expect((await call(off, "GET", "/v1/openapi.json")).status).toBe(401)
    expect((await call(off, "GET", "/v1/reference")).status).toBe(401)
    const { key } = await newAccount(off)
    expect((await call(off, "GET", "/v1/openapi.json", { key })).status).toBe(404)
    expect(served(off.app.routes).has("get /v1/openapi.json")).toBe(false)
  })
})
