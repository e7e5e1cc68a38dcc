/** The starter gallery over HTTP (docs/templates.md, "The starter gallery"): browse, inspect with a preview in the
 *  default theme, adopt as MJML and as blocks, block validation, sync (compare, apply as a new revision, stale
 *  revisions), and the designs routes' scopes, plan and application rules. Each backend runs it through the facade. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectError, type HttpTarget, makeClient } from "./http-suite/client.js"

export const galleryHttpSuite = (name: string, makeTarget: () => Promise<HttpTarget>) =>
  describe(`starter gallery over HTTP (${name})`, () => {
    let target: HttpTarget | undefined
    beforeAll(async () => { target = await makeTarget() })
    afterAll(async () => { await target?.close() })
    const client = makeClient(() => target!)

    it("GET /designs/catalog lists the twelve starters in four groups, filtered by category", async () => {
      const { key } = await client.account({ plan: "micro" })
      const all = await client.call("GET", "/v1/designs/catalog", { key })
      expect(all.status, all.text).toBe(200)
      expect(all.json.data.length).toBeGreaterThanOrEqual(12)
      expect(all.json.data.find((entry: any) => entry.key === "welcome")).toMatchObject({
        category: "notifications", version: 1, locale: "en", sampleData: { first_name: "Ada" },
      })
      const billing = await client.call("GET", "/v1/designs/catalog?category=billing", { key })
      expect(billing.json.data.map((entry: any) => entry.key).sort()).toEqual(["invoice", "payment-failed", "receipt"])
      expectError(await client.call("GET", "/v1/designs/catalog?category=games", { key }), 400, "VALIDATION_ERROR")
    })

    it("POST /designs/catalog inspects a starter with its MJML, blocks and a preview in the default theme", async () => {
      const { key } = await client.account({ plan: "micro" })
      const answer = await client.call("POST", "/v1/designs/catalog", { key, body: { key: "password-reset", variables: { first_name: "Grace" } } })
      expect(answer.status, answer.text).toBe(200)
      const data = answer.json.data
      expect(data.mjml).toContain("<mjml lang=\"en\">")
      expect(data.mjml).toContain("{{theme.colors.primary}}")
      expect(data.blocks[0]).toMatchObject({ type: "heading" })
      expect(data.preview.subject).toBe("Reset your password")
      expect(data.preview.html).toContain("Hi Grace,")
      expect(data.preview.html).toContain("https://app.example.com/reset?token")
      expect(data.preview.html).toContain("#2454d6")
      expect(data.preview.html).toContain("Mailroom")
      expectError(await client.call("POST", "/v1/designs/catalog", { key, body: { key: "nope" } }), 404, "RESOURCE_NOT_FOUND")
    })

    it("adopt makes a draft from a starter: MJML by default, blocks with asBlocks; both preview the same", async () => {
      const { key } = await client.account({ plan: "pro" })
      const mjml = await client.call("POST", "/v1/designs/catalog/adopt", { key, body: { starter: "welcome" } })
      expect(mjml.status, mjml.text).toBe(201)
      expect(mjml.json.data).toMatchObject({ key: "welcome", status: "draft", revision: 1, source: { starter: "welcome", version: 1 } })
      expect(mjml.json.data.draft.format).toBe("mjml")
      expect(mjml.json.data.draft.blocks).toBeUndefined()
      const blocks = await client.call("POST", "/v1/designs/catalog/adopt", { key, body: { starter: "welcome", key: "welcome-blocks", asBlocks: true, name: "Our welcome" } })
      expect(blocks.status, blocks.text).toBe(201)
      expect(blocks.json.data.draft).toMatchObject({ name: "Our welcome", format: "mjml" })
      expect(blocks.json.data.draft.blocks.map((block: any) => block.type)).toEqual(["heading", "text", "button", "divider", "columns", "footer"])
      const one = await client.call("POST", `/v1/designs/${mjml.json.data.id}/preview`, { key, body: { sample: true } })
      const two = await client.call("POST", `/v1/designs/${blocks.json.data.id}/preview`, { key, body: { sample: true } })
      expect(one.json.data.subject).toBe("Welcome to Mailroom, Ada")
      expect(two.json.data.html).toBe(one.json.data.html)
      expectError(await client.call("POST", "/v1/designs/catalog/adopt", { key, body: { starter: "welcome" } }), 409, "DESIGN_ALREADY_EXISTS")
      expectError(await client.call("POST", "/v1/designs/catalog/adopt", { key, body: { starter: "nope" } }), 400, "VALIDATION_ERROR", "starter")
      // Published and sent like any template.
      const published = await client.call("POST", `/v1/designs/${blocks.json.data.id}/publish`, { key, body: { expectedRevision: 1 } })
      expect(published.status, published.text).toBe(200)
    })

    it("a block draft is validated: unknown block types, bad links, html beside blocks and more than 500 blocks are refused; nothing changes", async () => {
      const { key } = await client.account({ plan: "pro" })
      const adopted = (await client.call("POST", "/v1/designs/catalog/adopt", { key, body: { starter: "receipt", asBlocks: true } })).json.data
      const patch = (draft: Record<string, unknown>) =>
        client.call("PATCH", `/v1/designs/${adopted.id}`, { key, body: { expectedRevision: 1, draft: { name: "R", subject: "S", ...draft } } })
      expectError(await patch({ blocks: [{ type: "video", src: "https://example.com/v.mp4" }] }), 400, "VALIDATION_ERROR")
      expectError(await patch({ blocks: [{ type: "button", label: "Go", href: "javascript:alert(1)" }] }), 400, "VALIDATION_ERROR")
      expectError(await patch({ blocks: [{ type: "text", text: "x" }], html: "<p>x</p>" }), 400, "VALIDATION_ERROR")
      const many = await patch({ blocks: Array.from({ length: 501 }, () => ({ type: "spacer", height: 8 })) })
      expectError(many, 400, "VALIDATION_ERROR")
      expect(many.json.error.message).toContain("500 blocks")
      expect((await client.call("GET", `/v1/designs/${adopted.id}`, { key })).json.data.revision).toBe(1)
      const ok = await patch({ blocks: Array.from({ length: 500 }, () => ({ type: "spacer", height: 8 })) })
      expect(ok.status, ok.text).toBe(200)
      expect(ok.json.data.revision).toBe(2)
    })

    it("sync compares an adopted design with its starter and applies it as a new draft revision when asked", async () => {
      const { key } = await client.account({ plan: "pro" })
      const adopted = (await client.call("POST", "/v1/designs/catalog/adopt", { key, body: { starter: "invoice", asBlocks: true } })).json.data
      const same = await client.call("POST", `/v1/designs/${adopted.id}/sync`, { key, body: {} })
      expect(same.status, same.text).toBe(200)
      expect(same.json.data).toMatchObject({ starter: "invoice", adoptedVersion: 1, currentVersion: 1, behind: false, changed: [], applied: false })
      const edited = { ...adopted.draft, subject: "Our own subject", blocks: adopted.draft.blocks.slice(1) }
      delete edited.html
      delete edited.format
      const patched = await client.call("PATCH", `/v1/designs/${adopted.id}`, { key, body: { expectedRevision: 1, draft: edited } })
      expect(patched.status, patched.text).toBe(200)
      const compared = await client.call("POST", `/v1/designs/${adopted.id}/sync`, { key, body: {} })
      expect(compared.json.data.changed).toEqual(["subject", "html", "blocks"])
      expect(compared.json.data.design.revision).toBe(2)
      expectError(await client.call("POST", `/v1/designs/${adopted.id}/sync`, { key, body: { apply: true } }), 400, "VALIDATION_ERROR", "expectedRevision")
      expectError(await client.call("POST", `/v1/designs/${adopted.id}/sync`, { key, body: { apply: true, expectedRevision: 1 } }), 409, "REVISION_CONFLICT")
      const applied = await client.call("POST", `/v1/designs/${adopted.id}/sync`, { key, body: { apply: true, expectedRevision: 2 } })
      expect(applied.json.data).toMatchObject({ applied: true, design: { revision: 3, draft: { subject: "Invoice {{invoice_number}}, due {{due_date}}" } } })
      expect((await client.call("POST", `/v1/designs/${adopted.id}/sync`, { key, body: {} })).json.data.changed).toEqual([])
      const plain = await client.call("POST", "/v1/designs", { key, body: { key: "plain", draft: { name: "P", subject: "S", html: "<p>x</p>" } } })
      expectError(await client.call("POST", `/v1/designs/${plain.json.data.id}/sync`, { key, body: {} }), 400, "VALIDATION_ERROR")
    })

    it("same rules as the designs routes: Micro plan, scopes, another account's design, application credentials", async () => {
      const starter = await client.account({ plan: "starter" })
      expectError(await client.call("GET", "/v1/designs/catalog", { key: starter.key }), 403, "PLAN_UPGRADE_REQUIRED")
      expectError(await client.call("POST", "/v1/designs/catalog/adopt", { key: starter.key, body: { starter: "welcome" } }), 403, "PLAN_UPGRADE_REQUIRED")
      const account = await client.account({ plan: "pro" })
      const reader = await client.key(account.id, ["templates:read"])
      expect((await client.call("POST", "/v1/designs/catalog", { key: reader.key, body: { key: "welcome" } })).status).toBe(200)
      expectError(await client.call("POST", "/v1/designs/catalog/adopt", { key: reader.key, body: { starter: "welcome" } }), 403, "SCOPE_INSUFFICIENT")
      const adopted = (await client.call("POST", "/v1/designs/catalog/adopt", { key: account.key, body: { starter: "magic-link" } })).json.data
      expectError(await client.call("POST", `/v1/designs/${adopted.id}/sync`, { key: reader.key, body: {} }), 403, "SCOPE_INSUFFICIENT")
      const other = await client.account({ plan: "pro" })
      expectError(await client.call("POST", `/v1/designs/${adopted.id}/sync`, { key: other.key, body: {} }), 404, "TEMPLATE_NOT_FOUND")
      const issued = await client.call("POST", `/admin/accounts/${account.id}/app-credentials`, {
        key: "test-admin-token", body: { applicationKey: "shop", allowedSenders: ["shop@example.com"] },
      })
      const app = issued.json.key as string
      const shop = await client.call("POST", "/v1/designs/catalog/adopt", { key: app, body: { starter: "receipt" } })
      expect(shop.json.data.applicationKey).toBe("shop")
      expectError(await client.call("POST", "/v1/designs/catalog/adopt", { key: app, body: { starter: "receipt", applicationKey: "blog" } }), 400, "VALIDATION_ERROR", "applicationKey")
      expectError(await client.call("POST", `/v1/designs/${adopted.id}/sync`, { key: app, body: {} }), 404, "TEMPLATE_NOT_FOUND")
    })
  })
