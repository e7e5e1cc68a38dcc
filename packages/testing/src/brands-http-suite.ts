/** Brands over HTTP, against a Mailroom with the real handlebars-email-v2 engine and background delivery into the dev
 *  outbox: the routes and their validation, contrast warnings, expectedUpdatedAt, delete and usage, the default brand,
 *  plan limits, scopes and application credentials, account templates reading their brand live and application
 *  templates freezing it at publish (checked on real sends), and the deprecated /brand-theme. Each backend runs it
 *  through the facade (packages/mailroom/test/brands-http.test.ts). */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminToken, expectError, type HttpTarget, makeClient } from "./http-suite/client.js"

let counter = 0
const fresh = (label: string) => `${label}-${Date.now().toString(36)}-${counter++}`

const themedDraft = {
  name: "Themed",
  subject: "Hello from {{theme.name}}",
  format: "html",
  html: `<p style="color: {{theme.colors.primary}}">Brand {{theme.name}} {{theme.custom.plan}}</p>`,
  text: "Brand {{theme.name}}",
}

export const brandsHttpSuite = (name: string, makeTarget: () => Promise<HttpTarget>) =>
  describe(`brands over HTTP (${name})`, () => {
    let target: HttpTarget | undefined
    beforeAll(async () => {
      target = await makeTarget()
    })
    afterAll(async () => { await target?.close() })
    const client = makeClient(() => target!)

    const brand = async (key: string, body: Record<string, unknown> = {}) => {
      const answer = await client.call("POST", "/v1/designs/brands", { key, body: { name: "Acme", ...body } })
      expect(answer.status, answer.text).toBe(201)
      return answer.json.data as Record<string, any>
    }
    const design = async (key: string, body: Record<string, unknown> = {}) => {
      const answer = await client.call("POST", "/v1/designs", { key, body: { key: fresh("t"), draft: themedDraft, ...body } })
      expect(answer.status, answer.text).toBe(201)
      return answer.json.data as Record<string, any>
    }
    const publish = async (key: string, id: string) => {
      const current = await client.call("GET", `/v1/designs/${id}`, { key })
      const answer = await client.call("POST", `/v1/designs/${id}/publish`, { key, body: { expectedRevision: current.json.data.revision } })
      expect(answer.status, answer.text).toBe(200)
    }
    const patch = async (key: string, id: string, body: Record<string, unknown>) => {
      const current = await client.call("GET", `/v1/designs/brands/${id}`, { key })
      const answer = await client.call("PATCH", `/v1/designs/brands/${id}`, { key, body: { expectedUpdatedAt: current.json.data.updatedAt, ...body } })
      expect(answer.status, answer.text).toBe(200)
      return answer.json.data as Record<string, any>
    }
    /** Sends the template to a fresh address and waits for the dev outbox to hold it. */
    const sendAndRead = async (key: string, templateId: string, from = "hello@example.com") => {
      const to = `${fresh("r")}@example.org`
      const sent = await client.call("POST", "/v1/emails/send", {
        key, body: { from: { email: from }, to: [{ email: to }], content: { templateId } },
      })
      expect(sent.status, sent.text).toBe(200)
      const until = Date.now() + 20_000
      for (;;) {
        const outbox = await client.call("GET", `/admin/outbox?to=${encodeURIComponent(to)}`, { key: adminToken })
        const entry = outbox.json?.data?.[0]
        if (entry !== undefined) return entry as { subject: string; html: string; text: string }
        if (Date.now() > until) throw new Error(`no mail reached the dev outbox for ${to}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }

    it("creates a brand with defaults filled in and colours as #rrggbb; the first account brand is the default", async () => {
      const { key } = await client.account({ plan: "pro" })
      const answer = await client.call("POST", "/v1/designs/brands", {
        key, body: {
          name: "Acme", colors: { primary: "#0B5CAD", link: "#05a" }, logo: { url: "https://acme.example/logo.png" },
          sender: { name: "Acme", email: "hello@acme.example" }, compliance: { company: "Acme Ltd", address: "1 Main Street\nSpringfield" },
          social: [{ network: "linkedin", url: "https://linkedin.com/company/acme" }], custom: { plan: "Gold" },
          unsubscribePage: { message: "Sorry to see you go." },
        },
      })
      expect(answer.status, answer.text).toBe(201)
      expect(answer.json).toMatchObject({ success: true, warnings: [] })
      const made = answer.json.data
      expect(made).toMatchObject({
        applicationKey: "account", name: "Acme", isDefault: true,
        colors: { primary: "#0b5cad", link: "#0055aa", primaryText: "#ffffff", text: "#1f2328" },
        logo: { url: "https://acme.example/logo.png", alt: "Acme", width: 150 },
        compliance: { company: "Acme Ltd", address: "1 Main Street\nSpringfield", email: null },
        footer: null, custom: { plan: "Gold" }, unsubscribePage: { message: "Sorry to see you go." },
      })
      expect(made.id).toMatch(/^brd_/)
      const second = await brand(key, { name: "Second" })
      expect(second.isDefault).toBe(false)
      const read = await client.call("GET", `/v1/designs/brands/${made.id}`, { key })
      expect(read.json.data).toEqual(made)
      const first = await client.call("GET", "/v1/designs/brands?limit=1", { key })
      expect(first.json.data.map((b: any) => b.id)).toEqual([second.id])
      const rest = await client.call("GET", `/v1/designs/brands?limit=1&cursor=${first.json.pagination.nextCursor}`, { key })
      expect(rest.json.data.map((b: any) => b.id)).toEqual([made.id])
      expect(rest.json.pagination).toEqual({ limit: 1, nextCursor: null, hasMore: false })
    })

    it("refuses colours that are not colours, non-http(s) URLs, bad sender addresses and unknown shapes, and makes nothing", async () => {
      const { key } = await client.account({ plan: "pro" })
      const bad: Array<[Record<string, unknown>, string]> = [
        [{ colors: { primary: "red" } }, "colors.primary"],
        [{ colors: { text: "#12345" } }, "colors.text"],
        [{ logo: { url: "javascript:alert(1)" } }, "logo.url"],
        [{ logo: { url: "https://acme.example/l.png", width: 5000 } }, "logo.width"],
        [{ sender: { name: "Acme", email: "not an address" } }, "sender.email"],
        [{ social: [{ network: "linkedin", url: "ftp://x.example" }] }, "social"],
        [{ fonts: { body: "x;}</style>" } }, "fonts.body"],
        [{ custom: { "1bad": "x" } }, "custom"],
        [{ name: "" }, "name"],
      ]
      for (const [body, field] of bad) {
        const answer = await client.call("POST", "/v1/designs/brands", { key, body: { name: "Acme", ...body } })
        expectError(answer, 400, "VALIDATION_ERROR")
        expect(answer.json.error.context?.field ?? answer.json.error.message, JSON.stringify(body)).toContain(field.split(".")[0])
      }
      expect((await client.call("GET", "/v1/designs/brands", { key })).json.data).toEqual([])
    })

    it("colour pairs below WCAG AA give warnings, never a refusal", async () => {
      const { key } = await client.account({ plan: "pro" })
      const answer = await client.call("POST", "/v1/designs/brands", {
        key, body: { name: "Pale", colors: { text: "#aaaaaa", primary: "#ffdd00", primaryText: "#ffffff" } },
      })
      expect(answer.status, answer.text).toBe(201)
      const pairs = answer.json.warnings.map((w: any) => `${w.foreground}/${w.background}`)
      expect(pairs).toEqual(["text/surface", "primaryText/primary"])
      expect(answer.json.warnings[0]).toMatchObject({ code: "LOW_CONTRAST", minimum: 4.5 })
      expect(answer.json.warnings[0].ratio).toBeLessThan(4.5)
      const fixed = await client.call("PATCH", `/v1/designs/brands/${answer.json.data.id}`, {
        key, body: { expectedUpdatedAt: answer.json.data.updatedAt, colors: { text: "#222222", primaryText: "#111111" } },
      })
      expect(fixed.json.warnings).toEqual([])
    })

    it("PATCH needs the current updatedAt: a stale one answers 409 REVISION_CONFLICT and changes nothing", async () => {
      const { key } = await client.account({ plan: "pro" })
      const made = await brand(key)
      const first = await client.call("PATCH", `/v1/designs/brands/${made.id}`, { key, body: { expectedUpdatedAt: made.updatedAt, name: "Two" } })
      expect(first.status, first.text).toBe(200)
      expect(first.json.data.updatedAt).not.toBe(made.updatedAt)
      const stale = await client.call("PATCH", `/v1/designs/brands/${made.id}`, { key, body: { expectedUpdatedAt: made.updatedAt, name: "Lost" } })
      expectError(stale, 409, "REVISION_CONFLICT")
      expect(stale.json.error.message).toContain(first.json.data.updatedAt)
      expectError(await client.call("PATCH", `/v1/designs/brands/${made.id}`, { key, body: { name: "x" } }), 400, "VALIDATION_ERROR")
      expectError(await client.call("PATCH", `/v1/designs/brands/${made.id}`, {
        key, body: { expectedUpdatedAt: first.json.data.updatedAt, colors: { primary: "blue" } },
      }), 400, "VALIDATION_ERROR")
      expect((await client.call("GET", `/v1/designs/brands/${made.id}`, { key })).json.data).toMatchObject({
        name: "Two", colors: { primary: made.colors.primary }, updatedAt: first.json.data.updatedAt,
      })
    })

    it("usage lists the templates bound to a brand; a used brand or the default cannot be deleted (409), an unused one can", async () => {
      const { key } = await client.account({ plan: "pro" })
      const main = await brand(key, { name: "Main" })
      const other = await brand(key, { name: "Other" })
      const bound = await design(key, { brandId: other.id })
      const usage = await client.call("GET", `/v1/designs/brands/${other.id}/usage`, { key })
      expect(usage.json.data).toMatchObject({ brandId: other.id, isDefault: false, campaigns: [] })
      expect(usage.json.data.templates.map((t: any) => t.id)).toEqual([bound.id])
      expectError(await client.call("DELETE", `/v1/designs/brands/${other.id}`, { key }), 409, "BRAND_IN_USE")
      expectError(await client.call("DELETE", `/v1/designs/brands/${main.id}`, { key }), 409, "BRAND_IN_USE")
      await client.call("POST", `/v1/designs/${bound.id}/brand`, { key, body: { brandId: null } })
      const deleted = await client.call("DELETE", `/v1/designs/brands/${other.id}`, { key })
      expect(deleted.json).toEqual({ success: true, data: { id: other.id, deleted: true } })
      expectError(await client.call("GET", `/v1/designs/brands/${other.id}`, { key }), 404, "BRAND_NOT_FOUND")
      expectError(await client.call("POST", `/v1/designs/${bound.id}/brand`, { key, body: { brandId: other.id } }), 404, "BRAND_NOT_FOUND")
    })

    it("POST /default moves the default; an application's brand cannot be the account's default", async () => {
      const { key } = await client.account({ plan: "pro" })
      const first = await brand(key, { name: "First" })
      const second = await brand(key, { name: "Second" })
      const moved = await client.call("POST", `/v1/designs/brands/${second.id}/default`, { key })
      expect(moved.json.data.isDefault).toBe(true)
      expect((await client.call("GET", `/v1/designs/brands/${first.id}`, { key })).json.data.isDefault).toBe(false)
      const shop = await brand(key, { name: "Shop", applicationKey: "shop" })
      expect(shop.isDefault).toBe(false)
      expectError(await client.call("POST", `/v1/designs/brands/${shop.id}/default`, { key }), 400, "VALIDATION_ERROR")
      const legacy = await client.call("GET", "/v1/brand-theme", { key })
      expect(legacy.json.data.id).toBe(second.id)
    })

    it("plans: none below Micro (403), Micro holds 3 (the 4th answers API_KEY_LIMIT_REACHED); scopes split reads and writes; other accounts' brands are 404", async () => {
      const starter = await client.account({ plan: "starter" })
      expectError(await client.call("GET", "/v1/designs/brands", { key: starter.key }), 403, "PLAN_UPGRADE_REQUIRED")
      expectError(await client.call("POST", "/v1/designs/brands", { key: starter.key, body: { name: "A" } }), 403, "PLAN_UPGRADE_REQUIRED")
      const micro = await client.account({ plan: "micro" })
      for (const label of ["A", "B", "C"]) await brand(micro.key, { name: label })
      const fourth = await client.call("POST", "/v1/designs/brands", { key: micro.key, body: { name: "D" } })
      expectError(fourth, 400, "API_KEY_LIMIT_REACHED")
      expect(fourth.json.error.message).toContain("3 brands")
      expect((await client.call("GET", "/v1/designs/brands", { key: micro.key })).json.data).toHaveLength(3)
      const pro = await client.account({ plan: "pro" })
      const made = await brand(pro.key)
      const reader = await client.key(pro.id, ["templates:read"])
      expect((await client.call("GET", `/v1/designs/brands/${made.id}`, { key: reader.key })).status).toBe(200)
      expectError(await client.call("POST", "/v1/designs/brands", { key: reader.key, body: { name: "X" } }), 403, "SCOPE_INSUFFICIENT")
      expectError(await client.call("DELETE", `/v1/designs/brands/${made.id}`, { key: reader.key }), 403, "SCOPE_INSUFFICIENT")
      expectError(await client.call("GET", `/v1/designs/brands/${made.id}`, { key: micro.key }), 404, "BRAND_NOT_FOUND")
      expectError(await client.call("POST", `/v1/designs/brands/${made.id}/default`, { key: micro.key }), 404, "BRAND_NOT_FOUND")
    })

    it("an application credential (svc_app_) reaches only its application's brands", async () => {
      const account = await client.account({ plan: "pro" })
      const shop = await brand(account.key, { name: "Shop", applicationKey: "shop" })
      const blog = await brand(account.key, { name: "Blog", applicationKey: "blog" })
      const issued = await client.call("POST", `/admin/accounts/${account.id}/app-credentials`, {
        key: adminToken, body: { applicationKey: "shop", allowedSenders: ["shop@example.com"] },
      })
      const app = issued.json.key as string
      expect((await client.call("GET", "/v1/designs/brands", { key: app })).json.data.map((b: any) => b.id)).toEqual([shop.id])
      expectError(await client.call("GET", `/v1/designs/brands/${blog.id}`, { key: app }), 404, "BRAND_NOT_FOUND")
      expectError(await client.call("POST", "/v1/designs/brands", { key: app, body: { name: "X", applicationKey: "blog" } }), 400, "VALIDATION_ERROR")
      const own = await client.call("POST", "/v1/designs/brands", { key: app, body: { name: "Shop two" } })
      expect(own.json.data).toMatchObject({ applicationKey: "shop", isDefault: false })
      const template = await design(app)
      expectError(await client.call("POST", `/v1/designs/${template.id}/brand`, { key: app, body: { brandId: blog.id } }), 404, "BRAND_NOT_FOUND")
      expect((await client.call("POST", `/v1/designs/${template.id}/brand`, { key: app, body: { brandId: shop.id } })).status).toBe(200)
      expectError(await client.call("GET", "/v1/brand-theme", { key: app }), 401, "INVALID_CREDENTIALS")
    })

    it("an account template reads its brand live: the next send after a brand edit shows the edit; unbound, the default brand", async () => {
      const { key } = await client.account({ plan: "pro" })
      const unbound = await design(key)
      await publish(key, unbound.id)
      const before = await sendAndRead(key, unbound.id)
      expect(before.subject).toBe("Hello from Mailroom")
      const house = await brand(key, { name: "House", colors: { primary: "#123456" } })
      const bound = await design(key, { brandId: house.id })
      await publish(key, bound.id)
      expect((await sendAndRead(key, unbound.id)).subject).toBe("Hello from House")
      const first = await sendAndRead(key, bound.id)
      expect(first.html).toContain("color: #123456")
      await patch(key, house.id, { name: "House Two", colors: { primary: "#654321" }, custom: { plan: "Gold" } })
      const second = await sendAndRead(key, bound.id)
      expect(second.subject).toBe("Hello from House Two")
      expect(second.html).toContain("color: #654321")
      expect(second.html).toContain("Brand House Two Gold")
      const preview = await client.call("POST", `/v1/designs/${bound.id}/preview`, { key, body: { source: "live" } })
      expect(preview.json.data.subject).toBe("Hello from House Two")
    })

    it("an application template freezes its brand into each release: a brand edit shows only after the next publish", async () => {
      const account = await client.account({ plan: "pro" })
      const key = account.key
      // An account key sends an application template from one of the application's allowed senders.
      const issued = await client.call("POST", `/admin/accounts/${account.id}/app-credentials`, {
        key: adminToken, body: { applicationKey: "shop", allowedSenders: ["hello@example.com"] },
      })
      expect(issued.status, issued.text).toBe(201)
      const shop = await brand(key, { name: "Shop", applicationKey: "shop", colors: { primary: "#0a0a0a" } })
      const template = await design(key, { applicationKey: "shop", brandId: shop.id })
      await publish(key, template.id)
      const release = await client.call("GET", `/v1/designs/${template.id}/releases?version=1`, { key })
      expect(release.json.data).toMatchObject({ brandId: shop.id, brand: { name: "Shop", colors: { primary: "#0a0a0a" } } })
      expect((await sendAndRead(key, template.id)).subject).toBe("Hello from Shop")
      await patch(key, shop.id, { name: "Shop Renamed", colors: { primary: "#0b0b0b" } })
      const still = await sendAndRead(key, template.id)
      expect(still.subject).toBe("Hello from Shop")
      expect(still.html).toContain("color: #0a0a0a")
      const draftPreview = await client.call("POST", `/v1/designs/${template.id}/preview`, { key, body: {} })
      expect(draftPreview.json.data.subject).toBe("Hello from Shop Renamed")
      await publish(key, template.id)
      const republished = await sendAndRead(key, template.id)
      expect(republished.subject).toBe("Hello from Shop Renamed")
      expect(republished.html).toContain("color: #0b0b0b")
      const other = await brand(key, { name: "Preview", applicationKey: "shop" })
      const previewed = await client.call("POST", `/v1/designs/${template.id}/preview`, { key, body: { source: "live", brandId: other.id } })
      expect(previewed.json.data).toMatchObject({ subject: "Hello from Preview", brandId: other.id })
    })

    it("POST /designs/{id}/send without from uses the brand's sender; without a brand sender, from is required", async () => {
      const { key } = await client.account({ plan: "pro" })
      const plain = await design(key)
      await publish(key, plain.id)
      const body = { to: [{ email: `${fresh("r")}@example.org` }] }
      expectError(await client.call("POST", `/v1/designs/${plain.id}/send`, { key, body, headers: { "idempotency-key": fresh("k") } }),
        400, "VALIDATION_ERROR", "from")
      await brand(key, { name: "Sender Co", sender: { name: "Sender Co", email: "team@sender.example" } })
      const sent = await client.call("POST", `/v1/designs/${plain.id}/send`, { key, body, headers: { "idempotency-key": fresh("k") } })
      expect(sent.status, sent.text).toBe(200)
      expect(sent.json.data).toMatchObject({ from: "team@sender.example", subject: "Hello from Sender Co" })
    })

    it("the hosted pages (signup form, confirmation, unsubscribe, preference centre) show the account's default brand; without one, the host's look", async () => {
      const { key } = await client.account({ plan: "pro" })
      await brand(key, { name: "Harbour & Co", logo: { url: "https://harbour.example/logo.png" }, colors: { primary: "#7a1f1f" } })
      const listId = (await client.call("POST", "/v1/contacts/lists", { key, body: { name: "Digest" } })).json.data.id
      const form = (await client.call("POST", "/v1/forms", { key, body: { name: "Newsletter", listIds: [listId], doubleOptIn: true } })).json.data
      const pathOf = (url: string) => { const parsed = new URL(url); return `${parsed.pathname}${parsed.search}` }
      const expectBranded = async (path: string, method = "GET") => {
        const page = await client.call(method, path)
        expect(page.status, `${path} ${page.text.slice(0, 200)}`).toBe(200)
        expect(page.text).toContain(`<span class="name">Harbour &amp; Co</span>`)
        expect(page.text).toContain(`src="https://harbour.example/logo.png"`)
        expect(page.text).toContain("--accent:#7a1f1f")
        return page.text
      }
      await expectBranded(pathOf(form.hostedUrl))
      const email = `${fresh("reader")}@example.org`
      const submitted = await client.call("POST", pathOf(form.submitUrl), {
        body: { email }, headers: { origin: new URL(form.hostedUrl).origin, accept: "application/json" },
      })
      expect(submitted.status, submitted.text).toBe(200)
      const mailTo = async (count: number) => {
        const until = Date.now() + 20_000
        for (;;) {
          const outbox = await client.call("GET", `/admin/outbox?to=${encodeURIComponent(email)}`, { key: adminToken })
          if ((outbox.json?.data?.length ?? 0) >= count) return outbox.json.data as Array<{ html: string }>
          if (Date.now() > until) throw new Error(`fewer than ${count} mails reached ${email}`)
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      }
      const linkOf = (html: string, prefix: string) => new RegExp(`https?://[^\\s"'<>]+/${prefix}/[A-Za-z0-9_.-]+`).exec(html)![0]
      const [confirmation] = await mailTo(1)
      await expectBranded(pathOf(linkOf(confirmation!.html, "c")))
      const sent = await client.call("POST", "/v1/emails/send", {
        key, body: {
          from: { email: "news@example.com" }, to: [{ email }], stream: "marketing",
          content: { subject: "News", html: "<a href=\"{{unsubscribe_url}}\">Unsubscribe</a> <a href=\"{{preferences_url}}\">Preferences</a>" },
        },
      })
      expect(sent.status, sent.text).toBe(200)
      const [marketing] = await mailTo(2)
      const unsubscribe = await expectBranded(pathOf(linkOf(marketing!.html, "u")))
      expect(unsubscribe).toContain("marketing mail")
      await expectBranded(pathOf(linkOf(marketing!.html, "p")))
      const plain = await client.account({ plan: "pro" })
      const plainForm = (await client.call("POST", "/v1/forms", { key: plain.key, body: { name: "Plain" } })).json.data
      const hostPage = await client.call("GET", pathOf(plainForm.hostedUrl))
      expect(hostPage.text).toContain(`<span class="name">Mailroom</span>`)
    })

    it("the deprecated /brand-theme reads and writes the default brand, with Deprecation, Sunset and Link headers", async () => {
      const { key } = await client.account({ plan: "pro" })
      const empty = await client.call("GET", "/v1/brand-theme", { key })
      expect(empty.status).toBe(200)
      expect(empty.json.data).toMatchObject({ id: null, name: "Mailroom", isDefault: true })
      expect(empty.headers.get("deprecation")).toBe("true")
      expect(empty.headers.get("sunset")).toContain("2027")
      expect(empty.headers.get("link")).toContain("successor-version")
      const made = await client.call("PUT", "/v1/brand-theme", { key, body: { name: "Legacy Co", colors: { primary: "#224466" } } })
      expect(made.status, made.text).toBe(201)
      expect(made.json.data).toMatchObject({ name: "Legacy Co", isDefault: true, colors: { primary: "#224466" } })
      const changed = await client.call("PUT", "/v1/brand-theme", { key, body: { colors: { primary: "#335577" } } })
      expect(changed.status, changed.text).toBe(200)
      expect(changed.json.data).toMatchObject({ id: made.json.data.id, name: "Legacy Co", colors: { primary: "#335577" } })
      expectError(await client.call("PUT", "/v1/brand-theme", { key, body: { colors: { primary: "nope" } } }), 400, "VALIDATION_ERROR")
      const listed = await client.call("GET", "/v1/designs/brands", { key })
      expect(listed.json.data.map((b: any) => b.id)).toEqual([made.json.data.id])
      const unauthenticated = await client.call("GET", "/v1/brand-theme")
      expect(unauthenticated.status).toBe(401)
      expect(unauthenticated.headers.get("deprecation")).toBe("true")
    })
  })
