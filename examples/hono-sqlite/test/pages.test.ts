/** The hosted pages over plain HTTP on the starter's composition (browser/harness.ts, no browser needed), with a host's
 *  pageTheme: every page wears it; a link scanner that fetches every link of the mail changes nothing; forged, expired,
 *  other-purpose and other-account tokens answer the invalid-link page on every page and route and change nothing;
 *  HTML and script in what an account names or a person types are escaped wherever a page shows them again. */
import { makePageTheme } from "@mailroom/mailroom"
import { existsSync, readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { linkIn, type OutboxMail, type Starter, startStarter } from "./browser/harness.js"

const hostile = "<script>alert(1)</script><b>x</b>"

describe("docs/hosted-pages.md", () => {
  it("shows a committed screenshot for each page at desktop and phone width", () => {
    const docs = new URL("../../../docs/", import.meta.url)
    const shown = [...readFileSync(new URL("hosted-pages.md", docs), "utf8").matchAll(/\]\((images\/pages\/[a-z0-9-]+\.png)\)/g)]
      .map((match) => match[1]!)
    expect(shown.filter((image) => !existsSync(new URL(image, docs)))).toEqual([])
    for (const page of ["form-hosted", "confirm", "unsubscribe", "preferences"]) {
      for (const width of ["desktop", "phone"]) expect(shown).toContain(`images/pages/${page}-${width}.png`)
    }
  })
})

describe("hosted pages over plain HTTP on the starter", () => {
  let starter: Starter
  let key: string
  let accountId: string
  let listId: string
  let topicId: string
  let form: { id: string; hostedUrl: string; submitUrl: string }
  let otherKey: string
  let otherListId: string
  let otherTopicId: string

  const get = (url: string, init: RequestInit = {}) => fetch(url, { redirect: "manual", ...init })
  const post = (url: string, body = "", headers: Record<string, string> = {}) =>
    fetch(url, { method: "POST", redirect: "manual", body, headers: { "content-type": "application/x-www-form-urlencoded", ...headers } })
  const token: Starter["token"] = (...args) => starter.token(...args)
  /** What a request that must change nothing leaves as it was: the account's events and the address's contact. */
  const snapshot = async (email: string) => ({
    events: await starter.events(accountId),
    contact: (await starter.api("GET", `/v1/contacts?search=${encodeURIComponent(email)}`, key)).body.data,
  })
  const expectPage = async (response: Response, status: number) => {
    const text = await response.text()
    expect(response.status, text).toBe(status)
    expect(response.headers.get("content-type")).toMatch(/^text\/html/)
    expect(text).toContain("<title>")
    expect(text).toMatch(/ · Acme &amp; Co<\/title>/)
    expect(text).toContain("Acme &amp; Co, 1 Main Street")
    expect(text).not.toMatch(/<script/i)
    return text
  }
  /** Subscribes `email` through the form with double opt-in and sends it a marketing mail: answers both mails. */
  const mailsFor = async (email: string): Promise<{ confirmation: OutboxMail; marketing: OutboxMail }> => {
    const submitted = await post(form.submitUrl, new URLSearchParams({ email, firstName: "Ada" }).toString(), { origin: starter.origin })
    expect(submitted.status).toBe(303)
    const [confirmation] = await starter.mailTo(email)
    await post(linkIn(confirmation!, "c"))
    const sent = await starter.api("POST", "/v1/emails/send", key, {
      from: { email: "news@acme.example" }, to: [{ email }], suppressionGroupId: topicId,
      content: { subject: "News", html: "<a href=\"{{unsubscribe_url}}\">Unsubscribe</a> <a href=\"{{preferences_url}}\">Preferences</a>" },
    })
    expect(sent.status, JSON.stringify(sent.body)).toBe(200)
    const [marketing] = await starter.mailTo(email, 2)
    return { confirmation: confirmation!, marketing: marketing! }
  }

  beforeAll(async () => {
    starter = await startStarter({
      pageTheme: makePageTheme({ productName: "Acme & Co", footerText: "Acme & Co, 1 Main Street" }),
    })
    const account = await starter.api("POST", "/admin/accounts", starter.adminToken, { name: `Acme ${hostile}`, plan: "pro" })
    key = account.body.apiKey
    accountId = account.body.id
    listId = (await starter.api("POST", "/v1/contacts/lists", key, { name: `Digest ${hostile}` })).body.data.id
    topicId = (await starter.api("POST", "/v1/suppression-groups", key, {
      name: "offers", publicLabel: `Offers ${hostile}`, publicDescription: `Deals ${hostile}`, isPublishedOnUnsub: true,
    })).body.data.id
    form = (await starter.api("POST", "/v1/forms", key, {
      name: `Newsletter ${hostile}`, listIds: [listId], doubleOptIn: true, consentText: `I agree ${hostile}`,
      fields: [{ name: "firstName", label: `First name ${hostile}`, required: true }, { name: "company", label: "Company", maxLength: 20 }],
    })).body.data
    const other = await starter.api("POST", "/admin/accounts", starter.adminToken, { plan: "pro" })
    otherKey = other.body.apiKey
    otherListId = (await starter.api("POST", "/v1/contacts/lists", otherKey, { name: "Theirs" })).body.data.id
    otherTopicId = (await starter.api("POST", "/v1/suppression-groups", otherKey, { name: "theirs", isPublishedOnUnsub: true })).body.data.id
  }, 120_000)
  afterAll(async () => {
    await starter?.close()
  })

  it("a link scanner that fetches every link of the mails (GET and HEAD, redirects followed) changes nothing", async () => {
    const email = "scanned@example.com"
    const submitted = await post(form.submitUrl, new URLSearchParams({ email, firstName: "Ada" }).toString(), { origin: starter.origin })
    expect(submitted.status).toBe(303)
    const [confirmation] = await starter.mailTo(email)
    const before = await snapshot(email)
    expect(before.contact[0].status).toBe("PENDING")
    const links = [linkIn(confirmation!, "c"), form.hostedUrl]
    for (const link of links) {
      for (const method of ["HEAD", "GET"]) {
        const response = await fetch(link, { method, headers: { "user-agent": "Mozilla/5.0 (compatible; SafeLinks scanner)" } })
        expect(response.status).toBe(200)
      }
    }
    expect(await snapshot(email)).toEqual(before)

    // Once confirmed and sent marketing mail: its unsubscribe and preference links, and the one-click GET.
    const reader = "reader@example.com"
    const { marketing } = await mailsFor(reader)
    const unsubscribe = linkIn(marketing, "u")
    const oneClick = `${starter.origin}/v1/unsubscribe/one-click?token=${encodeURIComponent(unsubscribe.split("/u/")[1]!)}`
    const after = await snapshot(reader)
    expect(after.contact[0].status).toBe("ACTIVE")
    for (const link of [unsubscribe, linkIn(marketing, "p"), oneClick]) {
      for (const method of ["HEAD", "GET"]) expect((await fetch(link, { method })).status).toBe(200)
    }
    expect(await snapshot(reader)).toEqual(after)
  })

  it("every page wears the host's theme, and shows what the account named and what was typed escaped", async () => {
    const email = "themed@example.com"
    const { confirmation, marketing } = await mailsFor(email)
    const confirmed = await expectPage(await get(linkIn(confirmation, "c")), 200)
    expect(confirmed).toContain("Already confirmed")

    const unsubscribe = await expectPage(await get(linkIn(marketing, "u")), 200)
    expect(unsubscribe).toContain("Offers &lt;script&gt;alert(1)&lt;/script&gt;&lt;b&gt;x&lt;/b&gt;")
    expect(unsubscribe).toContain("Deals &lt;script&gt;")
    const centre = await expectPage(await get(linkIn(marketing, "p")), 200)
    expect(centre).toContain("Offers &lt;script&gt;")
    expect(centre).toContain("Digest &lt;script&gt;")
    const hosted = await expectPage(await get(form.hostedUrl), 200)
    expect(hosted).toContain("Newsletter &lt;script&gt;")
    expect(hosted).toContain("First name &lt;script&gt;")
    expect(hosted).toContain("I agree &lt;script&gt;")

    // A refused plain post shows the hosted form again with what was typed, escaped.
    const refused = await post(form.submitUrl, new URLSearchParams({
      email: "typed@example.com", firstName: `"><script>alert(2)</script>`, company: "x".repeat(21),
    }).toString(), { origin: starter.origin })
    const again = await expectPage(refused, 400)
    expect(again).toContain("value=\"&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;\"")
    expect(again).toContain("company")

    // An unsubscribe link for all mail names the account, escaped.
    const all = await token("unsubscribe", { accountId, recipient: email })
    expect(await expectPage(await get(`${starter.origin}/u/${all}`), 200)).toContain("Acme &lt;script&gt;")
  })

  describe("forged, expired, other-purpose and other-account tokens answer the invalid-link page and change nothing", () => {
    const email = "target@example.com"
    let good: Record<"c" | "u" | "p", string>

    beforeAll(async () => {
      const { confirmation, marketing } = await mailsFor(email)
      good = { c: linkIn(confirmation, "c"), u: linkIn(marketing, "u"), p: linkIn(marketing, "p") }
    })

    const purposes = { c: "confirm", u: "unsubscribe", p: "preferences" } as const
    /** Every bad variant of a genuine `link` to the page `/<page>/` for `recipient`. */
    const bad = async (page: "c" | "u" | "p", link = good[page], recipient = email) => {
      const [payload, signature] = link.split(`/${page}/`)[1]!.split(".")
      const claims = JSON.parse(Buffer.from(payload!, "base64url").toString())
      const subject = { accountId, recipient, ...(claims.n === undefined ? {} : { nonce: claims.n }) }
      return {
        forged: `${payload}.${"A".repeat(43)}`,
        "payload changed under the old signature": `${Buffer.from(JSON.stringify({ ...claims, r: "someone@example.com" })).toString("base64url")}.${signature}`,
        truncated: link.split(`/${page}/`)[1]!.slice(0, -4),
        expired: await token(purposes[page], subject, true),
        "of another purpose": await token(page === "u" ? "preferences" : "unsubscribe", subject),
        "of an account that does not exist": await token(purposes[page], { ...subject, accountId: "acc_unknown" }),
      }
    }
    const expectInvalid = async (response: Response, status = 400) => {
      const text = await expectPage(response, status)
      expect(text).not.toContain(email)
    }

    it("on the unsubscribe page /u/<token>: GET, HEAD and its button", async () => {
      const before = await snapshot(email)
      for (const [, value] of Object.entries(await bad("u"))) {
        await expectInvalid(await get(`${starter.origin}/u/${value}`))
        expect((await fetch(`${starter.origin}/u/${value}`, { method: "HEAD" })).status).toBe(400)
        await expectInvalid(await post(`${starter.origin}/u/${value}`, "List-Unsubscribe=One-Click"))
        expect((await post(`${starter.origin}/v1/unsubscribe/one-click?token=${encodeURIComponent(value)}`, "List-Unsubscribe=One-Click")).status).toBe(200)
      }
      // A genuine link whose list belongs to another account.
      const foreign = await token("unsubscribe", { accountId, recipient: email, listId: otherListId })
      await expectInvalid(await get(`${starter.origin}/u/${foreign}`))
      await expectInvalid(await post(`${starter.origin}/u/${foreign}`))
      expect(await snapshot(email)).toEqual(before)
    })

    it("on the preference centre /p/<token>: GET and its form; another account's topics and lists posted are ignored", async () => {
      const before = await snapshot(email)
      for (const value of Object.values(await bad("p"))) {
        await expectInvalid(await get(`${starter.origin}/p/${value}`))
        await expectInvalid(await post(`${starter.origin}/p/${value}`, "action=unsubscribe_all", { origin: starter.origin }))
      }
      const mine = new URLSearchParams([["topic", topicId], ["list", listId], ["topic", otherTopicId], ["list", otherListId], ["action", "save"]])
      const saved = await post(good.p, mine.toString(), { origin: starter.origin })
      expect(saved.status).toBe(303)
      expect(await snapshot(email)).toEqual(before)
      const theirs = await starter.api("GET", `/v1/suppression-groups/${otherTopicId}/members`, otherKey)
      expect(theirs.body.data).toEqual([])
    })

    it("on the confirmation page /c/<token>: GET, HEAD, its button and its resend button", async () => {
      const pending = "pending@example.com"
      await post(form.submitUrl, new URLSearchParams({ email: pending, firstName: "Pat" }).toString(), { origin: starter.origin })
      const [mail] = await starter.mailTo(pending)
      const pendingBefore = await snapshot(pending)
      const { expired, "of an account that does not exist": unknownAccount, ...invalid } = await bad("c", linkIn(mail!, "c"), pending)
      for (const value of Object.values(invalid)) {
        await expectInvalid(await get(`${starter.origin}/c/${value}`))
        expect((await fetch(`${starter.origin}/c/${value}`, { method: "HEAD" })).status).toBe(400)
        await expectInvalid(await post(`${starter.origin}/c/${value}`))
        await expectInvalid(await post(`${starter.origin}/c/${value}/resend`))
      }
      // A genuine link of an account that does not exist has nothing to confirm, and says nothing more.
      for (const answer of [await get(`${starter.origin}/c/${unknownAccount}`), await post(`${starter.origin}/c/${unknownAccount}`)]) {
        expect(await expectPage(answer, 410)).toContain("Nothing to confirm")
      }
      await expectInvalid(await post(`${starter.origin}/c/${unknownAccount}/resend`))
      // An expired link explains itself and confirms nothing; only its "Send me a new link" button acts.
      for (const answer of [await get(`${starter.origin}/c/${expired}`), await post(`${starter.origin}/c/${expired}`)]) {
        expect(await expectPage(answer, 410)).toContain("This link has expired")
      }
      expect(await snapshot(pending)).toEqual(pendingBefore)
      expect(pendingBefore.contact[0].status).toBe("PENDING")
    })

    it("on the hosted form /f/<id>: an unknown or deleted form answers 404, and another account's key cannot read it", async () => {
      const doomed = (await starter.api("POST", "/v1/forms", key, { name: "Doomed" })).body.data
      expect((await starter.api("GET", `/v1/forms/${form.id}`, otherKey)).status).toBe(404)
      expect((await starter.api("DELETE", `/v1/forms/${doomed.id}`, key)).status).toBe(200)
      const afterDelete = await snapshot(email)
      for (const id of ["frm_unknown", doomed.id]) {
        expect((await get(`${starter.origin}/f/${id}`)).status).toBe(404)
        const submitted = await post(`${starter.origin}/v1/forms/${id}/submit`, new URLSearchParams({ email }).toString(), { origin: starter.origin })
        expect(submitted.status).toBe(404)
      }
      expect(await snapshot(email)).toEqual(afterDelete)
    })
  })
})

describe("signup form submissions over plain HTTP on the starter", () => {
  let starter: Starter
  let key: string
  let accountId: string
  let form: { id: string; submitUrl: string }
  const shop = "https://shop.example"
  const perIp = 6

  beforeAll(async () => {
    starter = await startStarter({ rateLimits: { formSubmissionsPerIpPerMinute: perIp } })
    const account = await starter.api("POST", "/admin/accounts", starter.adminToken, { plan: "pro" })
    key = account.body.apiKey
    accountId = account.body.id
    const listId = (await starter.api("POST", "/v1/contacts/lists", key, { name: "Newsletter" })).body.data.id
    form = (await starter.api("POST", "/v1/forms", key, {
      name: "Shop", listIds: [listId], allowedOrigins: [shop], fields: [{ name: "firstName", label: "First name", maxLength: 20 }],
    })).body.data
  }, 120_000)
  afterAll(async () => {
    await starter?.close()
  })

  const submit = (body: unknown, origin: string | null = shop) =>
    fetch(form.submitUrl, {
      method: "POST",
      body: typeof body === "string" ? body : JSON.stringify(body),
      headers: { "content-type": "application/json", accept: "application/json", ...(origin === null ? {} : { origin }) },
    })
  const contactOf = async (email: string) =>
    (await starter.api("GET", `/v1/contacts?search=${encodeURIComponent(email)}`, key)).body.data[0] as { status: string } | undefined
  const expectRefused = async (response: Response, status: number, code: string) => {
    expect(response.status).toBe(status)
    expect(response.headers.get("access-control-allow-origin"), `${status} ${code}`).toBe(status === 403 ? null : shop)
    expect((await response.json()).error.code).toBe(code)
  }

  it("accepts an allowed origin with CORS; refuses another origin, a filled honeypot, unknown, oversized and too many, changing nothing", async () => {
    const preflight = await fetch(form.submitUrl, {
      method: "OPTIONS", headers: { origin: shop, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get("access-control-allow-origin")).toBe(shop)
    expect((await fetch(form.submitUrl, { method: "OPTIONS", headers: { origin: "https://evil.example" } })).headers.get("access-control-allow-origin")).toBeNull()

    // Counted by the per-IP limit: every submission whose origin is allowed.
    const ok = await submit({ email: "ada@example.com", firstName: "Ada" })
    expect(ok.status).toBe(200)
    expect(ok.headers.get("access-control-allow-origin")).toBe(shop)
    expect((await contactOf("ada@example.com"))?.status).toBe("ACTIVE")
    const before = await starter.events(accountId)

    await expectRefused(await submit({ email: "eve@example.com" }, "https://evil.example"), 403, "ORIGIN_NOT_ALLOWED")
    await expectRefused(await submit({ email: "eve@example.com" }, null), 403, "ORIGIN_NOT_ALLOWED")
    const honeypot = await submit({ email: "bot@example.com", website_url: "http://spam.example" })
    expect(honeypot.status).toBe(200)
    expect(await honeypot.json()).toMatchObject({ success: true, data: { message: "Thank you for signing up." } })
    await expectRefused(await submit({ email: "eve@example.com", colour: "red" }), 400, "VALIDATION_ERROR")
    await expectRefused(await submit({ email: "eve@example.com", firstName: "x".repeat(21) }), 400, "VALIDATION_ERROR")
    await expectRefused(await submit(JSON.stringify({ email: "eve@example.com", firstName: "x".repeat(40 * 1024) })), 413, "PAYLOAD_TOO_LARGE")
    for (const email of ["eve@example.com", "bot@example.com"]) expect(await contactOf(email)).toBeUndefined()
    expect(await starter.events(accountId)).toEqual(before)

    // Five counted so far (the success, the honeypot and the three refused fields); the sixth passes, the seventh not.
    expect((await submit({ email: "sixth@example.com" })).status).toBe(200)
    const limited = await submit({ email: "seventh@example.com" })
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/)
    await expectRefused(limited, 429, "RATE_LIMIT_EXCEEDED")
    expect(await contactOf("seventh@example.com")).toBeUndefined()
  })
})
