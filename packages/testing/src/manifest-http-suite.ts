/** Manifests over HTTP (docs/templates.md, "Manifests"), against a Mailroom delivering into the dev outbox: export
 *  from one account, plan and apply in another (with publish), send the installed template in both, `behind` after a
 *  draft changes; refusals (unknown brand, asset or block type; over the limits; a plan limit hit midway) that change
 *  nothing; and the designs routes' scopes, plan and application rules. Each backend runs it through the facade
 *  (packages/mailroom/test/manifest-http.test.ts). */
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminToken, expectError, type HttpTarget, makeClient } from "./http-suite/client.js"

let counter = 0
const fresh = (label: string) => `${label}-${Date.now().toString(36)}-${counter++}`

export const manifestHttpSuite = (name: string, makeTarget: () => Promise<HttpTarget>) =>
  describe(`manifests over HTTP (${name})`, () => {
    let target: HttpTarget | undefined
    beforeAll(async () => { target = await makeTarget() })
    afterAll(async () => { await target?.close() })
    const client = makeClient(() => target!)

    const exported = async (key: string, query = "") => {
      const answer = await client.call("GET", `/v1/designs/manifest${query}`, { key })
      expect(answer.status, answer.text).toBe(200)
      return answer.json.data as { manifest: any; installed: any; behind: boolean | null }
    }
    const apply = (key: string, body: Record<string, unknown>) => client.call("POST", "/v1/designs/manifest", { key, body })
    /** What an account holds: its designs (with revisions), brands and manifest install record. */
    const holdings = async (key: string) => ({
      designs: (await client.call("GET", "/v1/designs", { key })).json.data.map((d: any) => [d.key, d.revision, d.status]),
      brands: (await client.call("GET", "/v1/designs/brands", { key })).json.data.map((b: any) => [b.name, b.updatedAt]),
      assets: (await client.call("GET", "/v1/designs/assets", { key })).json.data.map((a: any) => a.hash),
      installed: (await exported(key)).installed,
    })
    const sendAndRead = async (key: string, templateKey: string) => {
      const found = await client.call("GET", `/v1/designs?key=${templateKey}`, { key })
      const to = `${fresh("r")}@example.org`
      const sent = await client.call("POST", "/v1/emails/send", {
        key, body: { from: { email: "hello@example.com" }, to: [{ email: to }], content: { templateId: found.json.data[0].id }, variables: { first_name: "Ada" } },
      })
      expect(sent.status, sent.text).toBe(200)
      const until = Date.now() + 20_000
      for (;;) {
        const entry = (await client.call("GET", `/admin/outbox?to=${encodeURIComponent(to)}`, { key: adminToken })).json?.data?.[0]
        if (entry !== undefined) return entry as { subject: string; html: string }
        if (Date.now() > until) throw new Error(`no mail reached the dev outbox for ${to}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
    /** A source account with an uploaded logo, a brand showing it, and a published "welcome" bound to the brand. */
    const source = async () => {
      const account = await client.account({ plan: "pro" })
      const png = await sharp({ create: { width: 200, height: 60, channels: 3, background: "#7a1f1f" } }).png().toBuffer()
      const logo = (await client.call("POST", "/v1/designs/assets", { key: account.key, body: { data: png.toString("base64"), name: "logo.png" } })).json.data
      const brand = await client.call("POST", "/v1/designs/brands", {
        key: account.key, body: { name: "Northwind", colors: { primary: "#7a1f1f" }, logo: { url: logo.url, alt: "Northwind" } },
      })
      expect(brand.status, brand.text).toBe(201)
      const design = await client.call("POST", "/v1/designs", {
        key: account.key, body: {
          key: "welcome", brandId: brand.json.data.id, draft: {
            name: "Welcome", subject: "Welcome, {{first_name}}",
            blocks: [{ type: "image", src: "{{theme.logo.url}}", alt: "Northwind" }, { type: "heading", text: "Hi {{first_name}}" }, { type: "button", label: "Start", href: "https://example.com/start" }],
          },
        },
      })
      expect(design.status, design.text).toBe(201)
      expect((await client.call("POST", `/v1/designs/${design.json.data.id}/publish`, { key: account.key, body: { expectedRevision: 1 } })).status).toBe(200)
      return { ...account, logo, design: design.json.data }
    }

    it("export from one account, plan then apply with publish in another; the same template key sends in both", async () => {
      const from = await source()
      const first = await exported(from.key)
      expect(first.manifest).toMatchObject({ format: "mailroom.manifest/1", applicationKey: "account" })
      expect(first.manifest.brands.map((b: any) => b.name)).toEqual(["Northwind"])
      expect(first.manifest.designs[0]).toMatchObject({ key: "welcome", locale: "en", live: { version: 1 } })
      expect(first.manifest.assets).toEqual([expect.objectContaining({ hash: from.logo.hash, url: from.logo.url })])
      expect(first.installed).toBeNull()
      expect((await exported(from.key)).manifest.version).toBe(first.manifest.version)

      const to = await client.account({ plan: "pro" })
      const plan = await apply(to.key, { manifest: first.manifest, dryRun: true })
      expect(plan.status, plan.text).toBe(200)
      expect(plan.json.data).toMatchObject({ dryRun: true, applied: false, installed: null, behind: true, version: first.manifest.version })
      expect(plan.json.data.brands).toEqual([{ key: first.manifest.brands[0].key, name: "Northwind", action: "create", id: null }])
      expect(plan.json.data.designs).toMatchObject([{ key: "welcome", action: "create", id: null, publishedVersion: null }])
      expect(plan.json.data.assets).toEqual([{ hash: from.logo.hash, url: from.logo.url, action: "create" }])
      expect(await holdings(to.key)).toEqual({ designs: [], brands: [], assets: [], installed: null })

      const applied = await apply(to.key, { manifest: first.manifest, dryRun: false, publish: true })
      expect(applied.status, applied.text).toBe(200)
      expect(applied.json.data).toMatchObject({ applied: true, designs: [{ key: "welcome", action: "create", publishedVersion: 1 }] })
      const held = await holdings(to.key)
      expect(held.designs).toEqual([["welcome", 1, "published"]])
      expect(held.brands.map((b: any) => b[0])).toEqual(["Northwind"])
      expect(held.assets).toEqual([from.logo.hash])
      expect(held.installed).toMatchObject({ source: first.manifest.source, version: first.manifest.version })

      for (const key of [from.key, to.key]) {
        const mail = await sendAndRead(key, "welcome")
        expect(mail.subject).toBe("Welcome, Ada")
        expect(mail.html).toContain(from.logo.url)
        expect(mail.html).toContain("#7a1f1f")
      }

      const again = await apply(to.key, { manifest: first.manifest, dryRun: true })
      expect(again.json.data).toMatchObject({ behind: false, installed: { version: first.manifest.version } })
      expect(again.json.data.brands[0].action).toBe("unchanged")
      expect(again.json.data.designs[0]).toMatchObject({ action: "unchanged", changed: [] })

      // A draft edit in the source moves its version on; the installed copy is behind.
      const draft = { ...first.manifest.designs[0].draft, subject: "Welcome aboard, {{first_name}}" }
      const edited = await client.call("PATCH", `/v1/designs/${from.design.id}`, { key: from.key, body: { expectedRevision: 1, draft } })
      expect(edited.status, edited.text).toBe(200)
      const brandId = first.manifest.brands[0].key
      const read = (await client.call("GET", `/v1/designs/brands/${brandId}`, { key: from.key })).json.data
      const recoloured = await client.call("PATCH", `/v1/designs/brands/${brandId}`, { key: from.key, body: { expectedUpdatedAt: read.updatedAt, colors: { primary: "#1f4e7a" } } })
      expect(recoloured.status, recoloured.text).toBe(200)
      const second = await exported(from.key, `?installedVersion=${first.manifest.version}`)
      expect(second.manifest.version).not.toBe(first.manifest.version)
      expect(second.behind).toBe(true)
      expect((await exported(from.key, `?installedVersion=${second.manifest.version}`)).behind).toBe(false)
      const update = await apply(to.key, { manifest: second.manifest, dryRun: true })
      expect(update.json.data).toMatchObject({ behind: true, installed: { version: first.manifest.version } })
      // The subject is the MJML's title too, so the compiled source changes with it.
      expect(update.json.data.designs[0]).toMatchObject({ action: "update", changed: ["subject", "html"] })
      expect(update.json.data.brands[0]).toMatchObject({ name: "Northwind", action: "update", id: expect.any(String) })
      const updated = await apply(to.key, { manifest: second.manifest, dryRun: false, publish: true })
      expect(updated.json.data.designs[0]).toMatchObject({ action: "update", publishedVersion: 2 })
      const mail = await sendAndRead(to.key, "welcome")
      expect(mail.subject).toBe("Welcome aboard, Ada")
      expect(mail.html).toContain("#1f4e7a")
      expect((await client.call("GET", "/v1/designs/brands", { key: to.key })).json.data.map((b: any) => b.colors.primary)).toEqual(["#1f4e7a"])
      expect((await exported(to.key)).installed.version).toBe(second.manifest.version)
    })

    it("a manifest naming an unknown brand, asset or block type, or over its limits, is refused and changes nothing", async () => {
      const from = await source()
      const { manifest } = await exported(from.key)
      const to = await client.account({ plan: "pro" })
      const before = await holdings(to.key)
      const design = manifest.designs[0]
      const refused = async (changed: Record<string, unknown>, status: number, code: string, field?: string) => {
        for (const dryRun of [true, false]) {
          expectError(await apply(to.key, { manifest: { ...manifest, ...changed }, dryRun, publish: true }), status, code, field)
        }
        expect(await holdings(to.key)).toEqual(before)
      }
      await refused({ designs: [{ ...design, brand: "brd_unknown" }] }, 400, "VALIDATION_ERROR", "manifest.designs[0].brand")
      await refused({ assets: [{ ...manifest.assets[0], hash: "0".repeat(64) }] }, 400, "VALIDATION_ERROR", "manifest.assets[0]")
      await refused({ assets: [] }, 400, "VALIDATION_ERROR", "manifest.assets")
      await refused({ designs: [{ ...design, draft: { ...design.draft, blocks: [{ type: "video", src: "https://example.com/v.mp4" }] } }] }, 400, "VALIDATION_ERROR")
      const many = Array.from({ length: 101 }, (_, i) => ({ ...design, key: `t${i}` }))
      await refused({ designs: many }, 413, "PAYLOAD_TOO_LARGE", "manifest.designs")
      const spacers = Array.from({ length: 501 }, () => ({ type: "spacer", height: 8 }))
      await refused({ designs: [{ ...design, draft: { ...design.draft, blocks: spacers } }] }, 413, "PAYLOAD_TOO_LARGE", "manifest.designs[0].draft.blocks")
      const big = await apply(to.key, { manifest: { ...manifest, exportedAt: "x".repeat(8 * 1024 * 1024) }, dryRun: false })
      expect(big.status).toBe(413)
      expect(await holdings(to.key)).toEqual(before)
    })

    it("applies all or nothing: a plan limit reached midway undoes the brands and designs written before it", async () => {
      const from = await source()
      const { manifest } = await exported(from.key)
      const plain = { name: "P", subject: "S", format: "html", html: "<p>Hello</p>", text: null, category: null, variables: {} }
      const designs = [...manifest.designs, ...Array.from({ length: 25 }, (_, i) => ({ key: `n${i}`, locale: "en", brand: null, draft: plain, live: null }))]
      const micro = await client.account({ plan: "micro" })
      const before = await holdings(micro.key)
      // The plan says so too.
      expectError(await apply(micro.key, { manifest: { ...manifest, designs }, dryRun: true }), 400, "API_KEY_LIMIT_REACHED")
      expect((await apply(micro.key, { manifest: { ...manifest, designs: designs.slice(0, 25) }, dryRun: true })).status).toBe(200)
      const failed = await apply(micro.key, { manifest: { ...manifest, designs }, dryRun: false, publish: true })
      expect(failed.status, failed.text).toBe(400)
      expect(failed.json.error.code).toBe("API_KEY_LIMIT_REACHED")
      expect(await holdings(micro.key)).toEqual(before)
    })

    it("same rules as the designs routes: Micro plan, scopes, application credentials", async () => {
      const from = await source()
      const { manifest } = await exported(from.key)
      const starter = await client.account({ plan: "starter" })
      expectError(await client.call("GET", "/v1/designs/manifest", { key: starter.key }), 403, "PLAN_UPGRADE_REQUIRED")
      expectError(await apply(starter.key, { manifest, dryRun: true }), 403, "PLAN_UPGRADE_REQUIRED")
      const reader = await client.key(from.id, ["templates:read"])
      expect((await client.call("GET", "/v1/designs/manifest", { key: reader.key })).status).toBe(200)
      expectError(await apply(reader.key, { manifest, dryRun: true }), 403, "SCOPE_INSUFFICIENT")
      const issued = await client.call("POST", `/admin/accounts/${from.id}/app-credentials`, {
        key: adminToken, body: { applicationKey: "shop", allowedSenders: ["shop@example.com"] },
      })
      const app = issued.json.key as string
      expectError(await client.call("GET", "/v1/designs/manifest?applicationKey=account", { key: app }), 400, "VALIDATION_ERROR", "applicationKey")
      const empty = await exported(app)
      expect(empty.manifest).toMatchObject({ applicationKey: "shop", designs: [], brands: [] })
      // Installed into the credential's own application: an application template, its brand frozen at publish.
      const installed = await apply(app, { manifest, dryRun: false, publish: true })
      expect(installed.status, installed.text).toBe(200)
      expect(installed.json.data).toMatchObject({ applicationKey: "shop", designs: [{ action: "create", publishedVersion: 1 }] })
      const shop = await exported(app)
      expect(shop.manifest.designs.map((d: any) => d.key)).toEqual(["welcome"])
      expect((await exported(from.key)).manifest.designs).toHaveLength(1)
      expectError(await apply(app, { manifest, dryRun: true, applicationKey: "blog" }), 400, "VALIDATION_ERROR", "applicationKey")
    })
  })
