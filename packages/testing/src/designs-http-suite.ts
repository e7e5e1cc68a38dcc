/** The designs API over HTTP, against a Mailroom with the real handlebars-email-v2 engine (createMailroom's): the
 *  envelope, scopes, the plan gate, MJML publish and releases, revisions, lifecycle and cursor paging. Each backend
 *  runs it through the facade (packages/mailroom/test/designs-http.test.ts). */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectError, type HttpTarget, makeClient } from "./http-suite/client.js"

const mjml = `<mjml>
  <mj-head><mj-style>.note { color: #333333; }</mj-style></mj-head>
  <mj-body>
    <mj-section><mj-column>
      <mj-text css-class="note">Hello {{first_name}}, your order {{order}} shipped.</mj-text>
      <mj-button href="{{link}}">Track it</mj-button>
    </mj-column></mj-section>
  </mj-body>
</mjml>`

const draft = (overrides: Record<string, unknown> = {}) => ({
  name: "Shipped",
  subject: "Order {{order}} shipped",
  format: "mjml",
  html: mjml,
  category: "NOTIFICATION",
  variables: {
    first_name: { type: "string", required: true, example: "Ada" },
    order: { type: "string", required: true, example: "A-1" },
    link: { type: "string", format: "url", example: "https://example.com/t/1" },
  },
  ...overrides,
})

let counter = 0
const freshKey = () => `shipped-${Date.now().toString(36)}-${counter++}`

export const designsHttpSuite = (name: string, makeTarget: () => Promise<HttpTarget>) =>
  describe(`designs over HTTP (${name})`, () => {
    let target: HttpTarget | undefined
    beforeAll(async () => {
      target = await makeTarget()
    })
    afterAll(async () => { await target?.close() })
    const client = makeClient(() => target!)
    const create = async (key: string, body: Record<string, unknown> = {}) => {
      const answer = await client.call("POST", "/v1/designs", { key, body: { key: freshKey(), locale: "en", draft: draft(), ...body } })
      expect(answer.status, answer.text).toBe(201)
      return answer.json.data as Record<string, any>
    }

    it("an MJML draft is created, previewed with sample data, published, and kept as release 1 while the draft changes", async () => {
      const { key } = await client.account({ plan: "pro" })
      const design = await create(key)
      expect(design).toMatchObject({ status: "draft", revision: 1, liveVersion: null, applicationKey: "account" })
      const preview = await client.call("POST", `/v1/designs/${design.id}/preview`, { key, body: { sample: true } })
      expect(preview.status, preview.text).toBe(200)
      expect(preview.json.data.subject).toBe("Order A-1 shipped")
      expect(preview.json.data.html).toContain("Hello Ada, your order A-1 shipped.")
      expect(preview.json.data.html).not.toContain("<mj-")
      const published = await client.call("POST", `/v1/designs/${design.id}/publish`, { key, body: { expectedRevision: 1 } })
      expect(published.status, published.text).toBe(200)
      expect(published.json.data).toMatchObject({ status: "published", liveVersion: 1, release: { version: 1, engine: "handlebars-email-v2" } })
      const patched = await client.call("PATCH", `/v1/designs/${design.id}`, {
        key, body: { expectedRevision: 1, draft: draft({ subject: "Changed {{order}}" }) },
      })
      expect(patched.json.data.revision).toBe(2)
      const snapshot = await client.call("GET", `/v1/designs/${design.id}/releases?version=1`, { key })
      expect(snapshot.json.data).toMatchObject({ version: 1, subject: "Order {{order}} shipped", content: { format: "mjml", html: mjml } })
      expect(snapshot.json.data.compiled.html).toContain("{{first_name}}")
      const live = await client.call("POST", `/v1/designs/${design.id}/preview`, { key, body: { source: "live", sample: true } })
      expect(live.json.data.subject).toBe("Order A-1 shipped")
    })

    it("a stale expectedRevision answers 409 REVISION_CONFLICT in the designs envelope and changes nothing", async () => {
      const { key } = await client.account({ plan: "pro" })
      const design = await create(key)
      await client.call("PATCH", `/v1/designs/${design.id}`, { key, body: { expectedRevision: 1, draft: draft({ name: "Two" }) } })
      const stale = await client.call("PATCH", `/v1/designs/${design.id}`, { key, body: { expectedRevision: 1, draft: draft({ name: "Lost" }) } })
      expectError(stale, 409, "REVISION_CONFLICT")
      expect((await client.call("POST", `/v1/designs/${design.id}/publish`, { key, body: { expectedRevision: 1 } })).status).toBe(409)
      expect((await client.call("GET", `/v1/designs/${design.id}`, { key })).json.data.draft.name).toBe("Two")
    })

    it("unsafe markup is refused with VALIDATION_ERROR naming it, and no design is made", async () => {
      const { key } = await client.account({ plan: "pro" })
      const answer = await client.call("POST", "/v1/designs", {
        key, body: { key: freshKey(), draft: draft({ format: "html", html: `<a href="jav&#x61;script:alert(1)">x</a>` }) },
      })
      expectError(answer, 400, "VALIDATION_ERROR")
      expect(answer.json.error.message).toMatch(/javascript/i)
      expect((await client.call("GET", "/v1/designs", { key })).json.data).toEqual([])
    })

    it("Studio needs Micro: a Starter account gets 403; a templates:read key reads but cannot write", async () => {
      const starter = await client.account({ plan: "starter" })
      expectError(await client.call("GET", "/v1/designs", { key: starter.key }), 403, "PLAN_UPGRADE_REQUIRED")
      const pro = await client.account({ plan: "pro" })
      const design = await create(pro.key)
      const reader = await client.key(pro.id, ["templates:read"])
      expect((await client.call("GET", `/v1/designs/${design.id}`, { key: reader.key })).status).toBe(200)
      expectError(await client.call("POST", `/v1/designs/${design.id}/publish`, { key: reader.key, body: { expectedRevision: 1 } }), 403, "SCOPE_INSUFFICIENT")
      const other = await client.account({ plan: "pro" })
      expectError(await client.call("GET", `/v1/designs/${design.id}`, { key: other.key }), 404, "TEMPLATE_NOT_FOUND")
    })

    it("GET /capabilities answers the key's permissions and the plan's template capacity", async () => {
      const account = await client.account({ plan: "micro" })
      await create(account.key)
      const answer = await client.call("GET", "/v1/capabilities", { key: account.key })
      expect(answer.json).toMatchObject({
        success: true,
        data: { plan: "micro", studio: true, templates: { used: 1, allowed: 25 }, brands: { allowed: 3 }, application: null },
      })
      expect(answer.json.data.permissions).toContain("templates:write")
    })

    it("the list pages with a cursor, newest first; rollback and retire work over HTTP", async () => {
      const { key } = await client.account({ plan: "pro" })
      const made = [await create(key), await create(key), await create(key)]
      const first = await client.call("GET", "/v1/designs?limit=2", { key })
      expect(first.json.data.map((d: any) => d.id)).toEqual([made[2]!.id, made[1]!.id])
      expect(first.json.pagination).toMatchObject({ limit: 2, hasMore: true })
      const second = await client.call("GET", `/v1/designs?limit=2&cursor=${first.json.pagination.nextCursor}`, { key })
      expect(second.json.data.map((d: any) => d.id)).toEqual([made[0]!.id])
      expect(second.json.pagination).toEqual({ limit: 2, nextCursor: null, hasMore: false })
      expectError(await client.call("GET", "/v1/designs?cursor=nonsense", { key }), 400, "VALIDATION_ERROR", "cursor")
      const id = made[0]!.id
      await client.call("POST", `/v1/designs/${id}/publish`, { key, body: { expectedRevision: 1 } })
      await client.call("PATCH", `/v1/designs/${id}`, { key, body: { expectedRevision: 1, draft: draft({ subject: "Second" }) } })
      await client.call("POST", `/v1/designs/${id}/publish`, { key, body: { expectedRevision: 2 } })
      const rolled = await client.call("POST", `/v1/designs/${id}/rollback`, { key, body: { version: 1 } })
      expect(rolled.json.data).toMatchObject({ liveVersion: 3, release: { version: 3, rolledBackFrom: 1, subject: "Order {{order}} shipped" } })
      const retired = await client.call("PATCH", `/v1/designs/${id}/lifecycle`, { key, body: { action: "retire", replacementId: made[1]!.id } })
      expect(retired.json.data).toMatchObject({ status: "retired", replacementId: made[1]!.id })
      const removable = await client.call("DELETE", `/v1/designs/${made[2]!.id}`, { key })
      expect(removable.json).toEqual({ success: true, data: { id: made[2]!.id, deleted: true } })
    })

    const publishedTemplate = async (key: string, body: Record<string, unknown> = {}) => {
      const design = await create(key, body)
      const published = await client.call("POST", `/v1/designs/${design.id}/publish`, { key, body: { expectedRevision: 1 } })
      expect(published.status, published.text).toBe(200)
      return design
    }
    const sendBody = (templateId: string, overrides: Record<string, unknown> = {}) => ({
      from: { email: "orders@example.com" },
      to: [{ email: `${freshKey()}@example.org` }],
      content: { templateId },
      variables: { first_name: "Ada", order: "A-1", link: "https://example.com/t/1" },
      ...overrides,
    })

    it("content.templateId on /emails/send uses the live release; GET /emails/{id} names the template and version", async () => {
      const { key } = await client.account({ plan: "pro" })
      const design = await publishedTemplate(key)
      const sent = await client.call("POST", "/v1/emails/send", { key, body: sendBody(design.id) })
      expect(sent.status, sent.text).toBe(200)
      expect(sent.json.data.subject).toBe("Order A-1 shipped")
      const message = await client.call("GET", `/v1/emails/${sent.json.data.id}`, { key })
      expect(message.json.data).toMatchObject({ subject: "Order A-1 shipped", template: { id: design.id, version: 1 } })
      const batch = await client.call("POST", "/v1/emails/batch", {
        key, body: { from: { email: "orders@example.com" }, content: { templateId: design.id }, variables: { order: "B" },
          recipients: [{ to: { email: `${freshKey()}@example.org` }, variables: { order: "B-1" } }] },
      })
      expect(batch.status, batch.text).toBe(200)
      const usage = await client.call("GET", `/v1/designs/${design.id}/usage`, { key })
      expect(usage.json.data).toEqual({ sends: 2, campaigns: [] })
    })

    it("the template errors: 404 TEMPLATE_NOT_FOUND for another account's id, 409 TEMPLATE_NOT_PUBLISHED, 409 TEMPLATE_RETIRED naming the replacement, variables that are not strings", async () => {
      const { key } = await client.account({ plan: "pro" })
      const other = await client.account({ plan: "pro" })
      const theirs = await publishedTemplate(other.key)
      expectError(await client.call("POST", "/v1/emails/send", { key, body: sendBody(theirs.id) }), 404, "TEMPLATE_NOT_FOUND")
      const draftOnly = await create(key)
      const unpublished = await client.call("POST", "/v1/emails/send", { key, body: sendBody(draftOnly.id) })
      expectError(unpublished, 409, "TEMPLATE_NOT_PUBLISHED")
      expect(unpublished.json.error.fix_action).toContain("/publish")
      const old = await publishedTemplate(key)
      const replacement = await publishedTemplate(key)
      await client.call("PATCH", `/v1/designs/${old.id}/lifecycle`, { key, body: { action: "retire", replacementId: replacement.id } })
      const retired = await client.call("POST", "/v1/emails/send", { key, body: sendBody(old.id) })
      expectError(retired, 409, "TEMPLATE_RETIRED")
      expect(retired.json.error.message).toContain(replacement.id)
      expect(retired.json.error.fix_action).toMatch(/replacement/)
      expectError(await client.call("POST", "/v1/emails/send", { key, body: sendBody(replacement.id, { variables: { order: 7 } }) }),
        400, "VALIDATION_ERROR", "variables.order")
      expect((await client.call("GET", `/v1/designs/${replacement.id}/usage`, { key })).json.data.sends).toBe(0)
    })

    it("an application template is strict over HTTP: 400 MISSING_TEMPLATE_VARIABLES names each missing variable", async () => {
      const { key } = await client.account({ plan: "pro" })
      const design = await publishedTemplate(key, { applicationKey: "shop" })
      const missing = await client.call("POST", "/v1/emails/send", { key, body: sendBody(design.id, { variables: { link: "https://example.com/x" } }) })
      expectError(missing, 400, "MISSING_TEMPLATE_VARIABLES")
      expect(missing.json.error.message).toContain("first_name, order")
    })

    it("POST /designs/{id}/send needs Idempotency-Key (400 without), replays a repeat, and GET /designs/{id}/deliveries pages its messages", async () => {
      const { key } = await client.account({ plan: "pro" })
      const design = await publishedTemplate(key)
      const body = { from: { email: "orders@example.com" }, to: [{ email: `${freshKey()}@example.org` }], variables: { first_name: "Ada", order: "1" } }
      expectError(await client.call("POST", `/v1/designs/${design.id}/send`, { key, body }), 400, "VALIDATION_ERROR", "Idempotency-Key")
      const headers = { "idempotency-key": freshKey() }
      const first = await client.call("POST", `/v1/designs/${design.id}/send`, { key, body, headers })
      expect(first.status, first.text).toBe(200)
      expect(first.json.data).toMatchObject({ status: "queued", subject: "Order 1 shipped", from: "orders@example.com" })
      const again = await client.call("POST", `/v1/designs/${design.id}/send`, { key, body, headers })
      expect(again.json.data.id).toBe(first.json.data.id)
      expectError(await client.call("POST", `/v1/designs/${design.id}/send`, { key, body: { ...body, variables: { order: "2" } }, headers }),
        409, "IDEMPOTENCY_KEY_REUSED")
      for (const order of ["2", "3"]) {
        await new Promise((resolve) => setTimeout(resolve, 3))
        const sent = await client.call("POST", `/v1/designs/${design.id}/send`, {
          key, body: { ...body, variables: { order } }, headers: { "idempotency-key": freshKey() },
        })
        expect(sent.status, sent.text).toBe(200)
      }
      const page = await client.call("GET", `/v1/designs/${design.id}/deliveries?limit=2`, { key })
      expect(page.status, page.text).toBe(200)
      expect(page.json.data.map((m: any) => m.subject)).toEqual(["Order 3 shipped", "Order 2 shipped"])
      expect(page.json.data[0]).toMatchObject({ template: { id: design.id, version: 1 }, events: [{ type: "email.queued" }] })
      expect(page.json.pagination).toMatchObject({ limit: 2, hasMore: true })
      const rest = await client.call("GET", `/v1/designs/${design.id}/deliveries?limit=2&cursor=${page.json.pagination.nextCursor}`, { key })
      expect(rest.json.data.map((m: any) => m.id)).toEqual([first.json.data.id])
      expect(rest.json.pagination).toEqual({ limit: 2, nextCursor: null, hasMore: false })
      expectError(await client.call("GET", `/v1/designs/${design.id}/deliveries?cursor=nonsense`, { key }), 400, "VALIDATION_ERROR", "cursor")
    })

    it("an application credential (svc_app_) reaches only its application's templates and sends only from its allowed senders", async () => {
      const account = await client.account({ plan: "pro" })
      const shop = await publishedTemplate(account.key, { applicationKey: "shop" })
      const blog = await publishedTemplate(account.key, { applicationKey: "blog" })
      const issued = await client.call("POST", `/admin/accounts/${account.id}/app-credentials`, {
        key: "test-admin-token", body: { applicationKey: "shop", allowedSenders: ["shop@example.com"] },
      })
      const app = issued.json.key as string
      const listed = await client.call("GET", "/v1/designs", { key: app })
      expect(listed.json.data.map((d: any) => d.id)).toEqual([shop.id])
      expectError(await client.call("GET", `/v1/designs/${blog.id}`, { key: app }), 404, "TEMPLATE_NOT_FOUND")
      const capabilities = await client.call("GET", "/v1/capabilities", { key: app })
      expect(capabilities.json.data).toMatchObject({ application: "shop", allowedSenders: ["shop@example.com"] })
      const variables = { first_name: "Ada", order: "9" }
      const to = [{ email: `${freshKey()}@example.org` }]
      const sent = await client.call("POST", `/v1/designs/${shop.id}/send`, { key: app, body: { to, variables }, headers: { "idempotency-key": freshKey() } })
      expect(sent.status, sent.text).toBe(200)
      expect(sent.json.data.from).toBe("shop@example.com")
      const refused = await client.call("POST", `/v1/designs/${shop.id}/send`, {
        key: app, body: { from: { email: "ceo@example.com" }, to, variables }, headers: { "idempotency-key": freshKey() },
      })
      expectError(refused, 403, "SENDER_NOT_ALLOWED")
      expect(refused.json.error.message).toContain("shop@example.com")
      expectError(await client.call("POST", `/v1/designs/${blog.id}/send`, { key: app, body: { to }, headers: { "idempotency-key": freshKey() } }),
        404, "TEMPLATE_NOT_FOUND")
      expectError(await client.call("POST", "/v1/emails/send", { key: app, body: sendBody(shop.id) }), 401, "INVALID_CREDENTIALS")
    })
  })

