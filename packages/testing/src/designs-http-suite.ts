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
  })

