/** A new user's path through the gallery, delivered: adopt the "welcome" starter as blocks, upload a WebP logo, show
 *  it in the design, publish and send; the mail in the dev outbox carries the logo's PNG URL under APP_URL (served
 *  by Mailroom) and the theme's colours. */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { defaultTheme } from "@mailroom/core"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMailroom, type Mailroom } from "../src/index.js"

const appUrl = "https://mail.example.com"

describe.each([
  ["memory", () => "memory:"],
  ["sqlite", () => `sqlite:${join(mkdtempSync(join(tmpdir(), "mailroom-gallery-outbox-")), "db.sqlite")}`],
])("adopt, brand with a logo, publish and send (%s)", (_name, database) => {
  let mailroom: Mailroom
  beforeAll(async () => {
    mailroom = createMailroom({ database: database(), adminToken: "test-admin-token", appUrl })
    await mailroom.ready()
  })
  afterAll(async () => { await mailroom.close() })

  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const response = await mailroom.fetch(new Request(`http://mailroom.test${path}`, {
      method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }))
    const text = await response.text()
    return { status: response.status, text, json: text === "" ? undefined : JSON.parse(text) }
  }

  it("the delivered mail shows the uploaded logo by its immutable URL, and the logo is served as PNG there", async () => {
    const created = await call("POST", "/admin/accounts", "test-admin-token", { name: "Acme", plan: "pro" })
    expect(created.status, created.text).toBe(201)
    const key = created.json.apiKey as string
    const webp = await sharp({ create: { width: 320, height: 96, channels: 4, background: { r: 200, g: 30, b: 60, alpha: 0.8 } } }).webp().toBuffer()
    const logo = await call("POST", "/v1/designs/assets", key, { data: webp.toString("base64"), name: "logo.webp" })
    expect(logo.status, logo.text).toBe(201)
    expect(logo.json.data.url.startsWith(`${appUrl}/assets/`)).toBe(true)
    const adopted = await call("POST", "/v1/designs/catalog/adopt", key, { starter: "welcome", asBlocks: true })
    expect(adopted.status, adopted.text).toBe(201)
    const draft = adopted.json.data.draft
    const withLogo = {
      name: draft.name, subject: draft.subject, category: draft.category, variables: draft.variables, preheader: draft.preheader,
      blocks: [{ type: "image", src: logo.json.data.url, alt: "Acme", width: 160 }, ...draft.blocks],
    }
    const patched = await call("PATCH", `/v1/designs/${adopted.json.data.id}`, key, { expectedRevision: 1, draft: withLogo })
    expect(patched.status, patched.text).toBe(200)
    expect((await call("POST", `/v1/designs/${adopted.json.data.id}/publish`, key, { expectedRevision: 2 })).status).toBe(200)
    const to = `ada-${Date.now().toString(36)}@example.org`
    const sent = await call("POST", "/v1/emails/send", key, {
      from: { email: "hello@example.com" }, to: [{ email: to }], content: { templateId: adopted.json.data.id },
      variables: { first_name: "Ada", start_url: "https://app.example.com/start", help_url: "https://help.example.com" },
    })
    expect(sent.status, sent.text).toBe(200)
    let entry: any
    for (let attempt = 0; attempt < 100 && entry === undefined; attempt++) {
      const outbox = await call("GET", `/admin/outbox?to=${encodeURIComponent(to)}`, "test-admin-token")
      entry = outbox.json?.data?.[0]
      if (entry === undefined) await sleep(100)
    }
    expect(entry, "the mail reached the dev outbox").toBeDefined()
    expect(entry.subject).toBe("Welcome to Mailroom, Ada")
    expect(entry.html).toContain(`src="${logo.json.data.url}"`)
    expect(entry.html).toContain(defaultTheme.colors.primary)
    expect(entry.html).toMatch(/<html[^>]* lang="en"/)
    const image = await mailroom.fetch(new Request(logo.json.data.url))
    expect(image.status).toBe(200)
    expect(image.headers.get("content-type")).toBe("image/png")
    expect((await sharp(new Uint8Array(await image.arrayBuffer())).metadata()).format).toBe("png")
  }, 60_000)
})
