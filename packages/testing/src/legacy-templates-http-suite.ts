/** The legacy /templates API over HTTP, against a Mailroom with the real engine and background work running: the
 *  deprecation headers on every answer (errors and 401s too), the response shapes, scopes, the JSON and body size
 *  limits, a test send that reaches the dev outbox, and delete. Each backend runs it through the facade
 *  (packages/mailroom/test/legacy-templates-http.test.ts). */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Answer, expectError, freshEmail, type HttpTarget, makeClient } from "./http-suite/client.js"

const mebibyte = 1024 * 1024

const welcome = {
  name: "Welcome",
  subject: "Welcome, {{first_name}}",
  html: "<p>Hello {{first_name}} from {{company}}</p>",
  text: "Hello {{first_name}}",
}

/** The headers of the spec's "Legacy templates (deprecated)" and "Versioning" 4. */
const expectDeprecated = (answer: Answer) => {
  expect({
    deprecation: answer.headers.get("deprecation"),
    sunset: answer.headers.get("sunset"),
    link: answer.headers.get("link"),
  }, `${answer.status} ${answer.text.slice(0, 200)}`).toEqual({
    deprecation: "true",
    sunset: "Fri, 30 Apr 2027 00:00:00 GMT",
    link: "</api/v1/designs>; rel=\"successor-version\"",
  })
}

export const legacyTemplatesHttpSuite = (name: string, makeTarget: () => Promise<HttpTarget>) =>
  describe(`legacy /templates over HTTP (${name})`, () => {
    let target: HttpTarget | undefined
    beforeAll(async () => {
      target = await makeTarget()
    })
    afterAll(async () => { await target?.close() })
    const client = makeClient(() => target!)
    const create = async (key: string, body: Record<string, unknown> = welcome) => {
      const answer = await client.call("POST", "/v1/templates", { key, body })
      expect(answer.status, answer.text).toBe(201)
      return answer.json.data as Record<string, any>
    }

    it("create, read, list, update and delete answer the spec's shapes, each with the deprecation headers", async () => {
      const { key } = await client.account({ plan: "pro" })
      const theme = (await client.call("PUT", "/v1/brand-theme", { key, body: { name: "Acme" } })).json.data.id as string
      expectError(await client.call("POST", "/v1/templates", { key, body: { ...welcome, themeId: "brd_unknown" } }), 404, "BRAND_NOT_FOUND")
      const created = await client.call("POST", "/v1/templates", { key, body: { ...welcome, themeId: theme } })
      expect(created.status, created.text).toBe(201)
      expectDeprecated(created)
      const template = created.json.data
      expect(template).toEqual({
        id: expect.stringMatching(/^tpl_/), name: "Welcome", subject: welcome.subject, html: welcome.html, text: welcome.text,
        variables: ["company", "first_name"], themeId: theme,
        createdAt: expect.stringMatching(/Z$/), updatedAt: expect.stringMatching(/Z$/),
      })
      const read = await client.call("GET", `/v1/templates/${template.id}`, { key })
      expectDeprecated(read)
      expect(read.json).toEqual({ success: true, data: template })
      const page = await client.call("GET", "/v1/templates?page=1&limit=10&search=welc", { key })
      expectDeprecated(page)
      expect(page.json).toEqual({ data: [template], pagination: { page: 1, limit: 10, total: 1, totalPages: 1 } })
      const updated = await client.call("PUT", `/v1/templates/${template.id}`, { key, body: { name: "Hello", themeId: null } })
      expectDeprecated(updated)
      expect(updated.json.data).toMatchObject({ id: template.id, name: "Hello", subject: welcome.subject, themeId: null })
      // The design behind it: the same id, published again by the update.
      const design = await client.call("GET", `/v1/designs/${template.id}`, { key })
      expect(design.json.data).toMatchObject({ id: template.id, applicationKey: "account", liveVersion: 2 })
      expect(design.headers.get("deprecation")).toBeNull()
      const removed = await client.call("DELETE", `/v1/templates/${template.id}`, { key })
      expectDeprecated(removed)
      expect(removed.json).toEqual({ success: true, data: { id: template.id, deleted: true } })
      const gone = await client.call("GET", `/v1/templates/${template.id}`, { key })
      expectError(gone, 404, "TEMPLATE_NOT_FOUND")
      expectDeprecated(gone)
    })

    it("errors carry the deprecation headers too: 401, 403, 400, 404 and unknown paths of the group", async () => {
      const { id, key } = await client.account({ plan: "pro" })
      const anonymous = await client.call("GET", "/v1/templates")
      expectError(anonymous, 401, "UNAUTHORIZED")
      expectDeprecated(anonymous)
      const reader = await client.key(id, ["templates:read"])
      const refused = await client.call("POST", "/v1/templates", { key: reader.key, body: welcome })
      expectError(refused, 403, "SCOPE_INSUFFICIENT")
      expectDeprecated(refused)
      const invalid = await client.call("POST", "/v1/templates", { key, body: { name: "No body", subject: "s" } })
      expectError(invalid, 400, "VALIDATION_ERROR")
      expectDeprecated(invalid)
      const badLimit = await client.call("GET", "/v1/templates?limit=101", { key })
      expectError(badLimit, 400, "VALIDATION_ERROR")
      expectDeprecated(badLimit)
      const unknown = await client.call("GET", "/v1/templates/tpl_none/nothing-here", { key })
      expect(unknown.status).toBe(404)
      expectDeprecated(unknown)
      // Routes outside the group do not carry them.
      const contacts = await client.call("GET", "/v1/contacts", { key })
      expect(contacts.headers.get("deprecation")).toBeNull()
      expect(contacts.headers.get("sunset")).toBeNull()
    })

    it("templates:read reads and renders; templates:write changes; a test send needs emails:send as well", async () => {
      const { id, key } = await client.account({ plan: "pro" })
      const template = await create(key)
      const reader = await client.key(id, ["templates:read"])
      expect((await client.call("GET", `/v1/templates/${template.id}`, { key: reader.key })).status).toBe(200)
      expect((await client.call("GET", "/v1/templates", { key: reader.key })).status).toBe(200)
      expect((await client.call("POST", `/v1/templates/${template.id}/render`, { key: reader.key, body: {} })).status).toBe(200)
      for (const [method, path] of [["PUT", `/v1/templates/${template.id}`], ["DELETE", `/v1/templates/${template.id}`]] as const) {
        expectError(await client.call(method, path, { key: reader.key, body: { name: "x" } }), 403, "SCOPE_INSUFFICIENT")
      }
      const test = { to: freshEmail("reader"), from: { email: "hello@example.com" } }
      expectError(await client.call("POST", `/v1/templates/${template.id}/test`, { key: reader.key, body: test }), 403, "SCOPE_INSUFFICIENT")
      const writer = await client.key(id, ["templates:write"])
      expectError(await client.call("GET", `/v1/templates/${template.id}`, { key: writer.key }), 403, "SCOPE_INSUFFICIENT")
      expect((await client.call("PUT", `/v1/templates/${template.id}`, { key: writer.key, body: { name: "Renamed" } })).status).toBe(200)
      const sender = await client.key(id, ["templates:read", "emails:send"])
      expect((await client.call("POST", `/v1/templates/${template.id}/test`, { key: sender.key, body: test })).status).toBe(200)
    })

    it("render keeps unresolved variables as the literal {{name}} and escapes values in the html", async () => {
      const { key } = await client.account({ plan: "pro" })
      const template = await create(key)
      const answer = await client.call("POST", `/v1/templates/${template.id}/render`, { key, body: { variables: { first_name: "<b>Ada</b>" } } })
      expectDeprecated(answer)
      expect(answer.json).toEqual({
        success: true,
        data: { subject: "Welcome, <b>Ada</b>", html: "<p>Hello &lt;b&gt;Ada&lt;/b&gt; from {{company}}</p>", text: "Hello <b>Ada</b>" },
      })
      expectError(await client.call("POST", `/v1/templates/${template.id}/render`, { key, body: { variables: { n: 1 } } }), 400, "VALIDATION_ERROR")
    })

    it("a test send reaches the dev outbox rendered with its variables, and answers { id, status, templateId }", async () => {
      const { key } = await client.account({ plan: "pro" })
      const template = await create(key)
      const to = freshEmail("test-send")
      const answer = await client.call("POST", `/v1/templates/${template.id}/test`, {
        key, body: { to, from: { email: "hello@example.com", name: "Hello" }, variables: { first_name: "Ada & Bo", company: "Acme" } },
      })
      expectDeprecated(answer)
      expect(answer.json).toEqual({ success: true, data: { id: expect.stringMatching(/^msg_/), status: "queued", templateId: template.id } })
      let mail: any
      // Delivery runs in the background: within 30 s even on a busy shared database.
      for (let i = 0; i < 300 && mail === undefined; i++) {
        const outbox = await client.call("GET", `/admin/outbox?to=${encodeURIComponent(to)}`, { key: "test-admin-token" })
        mail = outbox.json.data[0]
        if (mail === undefined) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(mail, "the test mail reached the dev outbox").toBeDefined()
      expect(mail).toMatchObject({ subject: "Welcome, Ada & Bo", text: "Hello Ada & Bo" })
      expect(mail.html).toContain("<p>Hello Ada &amp; Bo from Acme</p>")
    }, 60_000)

    it("bodies past the limits answer 413: over 8 MiB of JSON to import or render, over 1 MiB of html, text or MJML", async () => {
      const { key } = await client.account({ plan: "pro" })
      const template = await create(key)
      const nine = JSON.stringify({ variables: { filler: "x".repeat(9 * mebibyte) } })
      for (const path of [`/v1/templates/${template.id}/render`, "/v1/templates", `/v1/templates/${template.id}/test`]) {
        const answer = await client.call("POST", path, { key, raw: nine, headers: { "content-type": "application/json" } })
        expectError(answer, 413, "PAYLOAD_TOO_LARGE")
        expectDeprecated(answer)
      }
      const bigHtml = await client.call("POST", "/v1/templates", { key, body: { ...welcome, html: `<p>${"x".repeat(mebibyte)}</p>` } })
      expectError(bigHtml, 413, "PAYLOAD_TOO_LARGE")
      expect(bigHtml.json.error.message).toMatch(/^html is larger than/)
      const bigText = await client.call("PUT", `/v1/templates/${template.id}`, { key, body: { text: "x".repeat(mebibyte + 1) } })
      expectError(bigText, 413, "PAYLOAD_TOO_LARGE")
      // MJML source (through /designs) is held to 1 MiB as well, before it is compiled.
      const mjml = `<mjml><mj-body><mj-text>${"x".repeat(mebibyte)}</mj-text></mj-body></mjml>`
      const bigMjml = await client.call("POST", "/v1/designs", {
        key, body: { key: `big-mjml-${Date.now().toString(36)}`, draft: { name: "Big", subject: "s", format: "mjml", html: mjml } },
      })
      expectError(bigMjml, 413, "PAYLOAD_TOO_LARGE")
      expect(bigMjml.json.error.message).toMatch(/^draft\.html is larger than 1048576 bytes/)
      // Just under the limits is accepted.
      const large = await client.call("POST", "/v1/templates", { key, body: { ...welcome, html: `<p>${"x".repeat(mebibyte - 16)}</p>` } })
      expect(large.status, large.text.slice(0, 300)).toBe(201)
      expect((await client.call("GET", `/v1/templates/${template.id}`, { key })).json.data.text).toBe(welcome.text)
    })

    it("a Starter account reads the legacy API (not a Studio route) but cannot create past its plan", async () => {
      const { key } = await client.account({ plan: "starter" })
      const page = await client.call("GET", "/v1/templates", { key })
      expect(page.status).toBe(200)
      expect(page.json).toEqual({ data: [], pagination: { page: 1, limit: 25, total: 0, totalPages: 0 } })
      const refused = await client.call("POST", "/v1/templates", { key, body: welcome })
      expectError(refused, 403, "PLAN_UPGRADE_REQUIRED")
      expectDeprecated(refused)
    })

    it("an account moved below Micro keeps reading, rendering and updating its legacy templates; /designs refuses it", async () => {
      const { id, key } = await client.account({ plan: "pro" })
      const template = await create(key)
      const moved = await client.call("PATCH", `/admin/accounts/${id}`, { key: "test-admin-token", body: { plan: "starter" } })
      expect(moved.status, moved.text).toBe(200)
      expectError(await client.call("GET", `/v1/designs/${template.id}`, { key }), 403, "PLAN_UPGRADE_REQUIRED")
      expect((await client.call("GET", `/v1/templates/${template.id}`, { key })).json.data.id).toBe(template.id)
      expect((await client.call("POST", `/v1/templates/${template.id}/render`, { key, body: {} })).json.data.subject).toBe(welcome.subject)
      const updated = await client.call("PUT", `/v1/templates/${template.id}`, { key, body: { subject: "Still here" } })
      expect(updated.status, updated.text).toBe(200)
      expect(updated.json.data.subject).toBe("Still here")
      expectError(await client.call("POST", "/v1/templates", { key, body: welcome }), 403, "PLAN_UPGRADE_REQUIRED")
    })

    it("after delete, a send naming the template fails with the template error, not a 500", async () => {
      const { key } = await client.account({ plan: "pro" })
      const template = await create(key)
      const send = (templateId: string) => client.call("POST", "/v1/emails/send", {
        key,
        body: { from: { email: "hello@example.com" }, to: [{ email: freshEmail("after-delete") }], content: { templateId } },
      })
      const before = await send(template.id)
      expect(before.status, before.text).toBe(200)
      expect((await client.call("DELETE", `/v1/templates/${template.id}`, { key })).status).toBe(200)
      expectError(await send(template.id), 404, "TEMPLATE_NOT_FOUND")
    })
  })
