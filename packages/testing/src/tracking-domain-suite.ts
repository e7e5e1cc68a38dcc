/** A brand's tracking domain over HTTP: GET, PUT, DELETE /v1/designs/brands/{id}/tracking-domain and POST .../verify
 *  against a Mailroom whose DNS lookups go to a real DNS server on 127.0.0.1, then real sends into the dev outbox
 *  whose click, open, unsubscribe and preference links are on the verified domain, answered by requests to that host.
 *  TRACK_URL is https://track.mailroom.test, so a tracking domain's CNAME target is track.mailroom.test. Each backend
 *  runs it through the facade (packages/mailroom/test/tracking-domain.test.ts). */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startDnsServer, type TestDnsServer } from "./dns-server.js"
import { adminToken, expectError, type HttpTarget, makeClient } from "./http-suite/client.js"

/** What the suite asks of the Mailroom behind a target, besides adminToken "test-admin-token" and background work on. */
export interface TrackingDomainTargetConfig {
  readonly dnsServers: ReadonlyArray<string>
  readonly dns: { readonly timeoutMs: number; readonly tries: number; readonly cache: false }
  readonly trackUrl: string
}

const cnameTarget = "track.mailroom.test"
let counter = 0
const fresh = (label: string) => `${label}${Date.now().toString(36)}${(counter++).toString(36)}`

export const trackingDomainSuite = (name: string, makeTarget: (config: TrackingDomainTargetConfig) => Promise<HttpTarget>) =>
  describe(`brand tracking domains (${name})`, () => {
    let target: HttpTarget | undefined
    let dns: TestDnsServer
    beforeAll(async () => {
      dns = await startDnsServer()
      target = await makeTarget({
        dnsServers: [dns.server], dns: { timeoutMs: 300, tries: 1, cache: false }, trackUrl: `https://${cnameTarget}`,
      })
    })
    afterAll(async () => {
      await target?.close()
      await dns?.close()
    })
    const client = makeClient(() => target!)
    const path = (brandId: string) => `/v1/designs/brands/${brandId}/tracking-domain`

    const brand = async (key: string, body: Record<string, unknown> = {}) => {
      const answer = await client.call("POST", "/v1/designs/brands", { key, body: { name: "Acme", ...body } })
      expect(answer.status, answer.text).toBe(201)
      return answer.json.data as Record<string, any>
    }
    const put = async (key: string, brandId: string, hostname: string) => {
      const answer = await client.call("PUT", path(brandId), { key, body: { hostname } })
      expect(answer.status, answer.text).toBe(200)
      return answer.json.data as Record<string, any>
    }
    const verify = async (key: string, brandId: string) => {
      const answer = await client.call("POST", `${path(brandId)}/verify`, { key })
      expect(answer.status, answer.text).toBe(200)
      return answer.json.data as Record<string, any>
    }
    /** A brand with a verified tracking domain at a fresh hostname. */
    const verifiedDomain = async (key: string, brandId: string) => {
      const hostname = `links.${fresh("b")}.example`
      await put(key, brandId, hostname)
      dns.zone.set(hostname, { cname: `${cnameTarget}.` })
      expect((await verify(key, brandId)).status).toBe("verified")
      return hostname
    }
    /** Sends to a fresh address and waits for the dev outbox to hold the mail. */
    const sendAndRead = async (key: string, content: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
      const to = `${fresh("r")}@example.org`
      const sent = await client.call("POST", "/v1/emails/send", {
        key, body: { from: { email: "news@example.com" }, to: [{ email: to }], stream: "marketing", content, ...extra },
      })
      expect(sent.status, sent.text).toBe(200)
      const until = Date.now() + 20_000
      for (;;) {
        const outbox = await client.call("GET", `/admin/outbox?to=${encodeURIComponent(to)}`, { key: adminToken })
        const entry = outbox.json?.data?.[0]
        if (entry !== undefined) return entry as { html: string; text: string; headers: Record<string, string> }
        if (Date.now() > until) throw new Error(`no mail reached the dev outbox for ${to}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
    const newsletter = {
      subject: "News",
      html: `<p><a href="https://shop.example.com/sale">Sale</a> <a href="{{unsubscribe_url}}">Unsubscribe</a> <a href="{{preferences_url}}">Preferences</a></p>`,
      text: "Sale at https://shop.example.com/sale",
    }
    const linksOf = (html: string, prefix: string) =>
      [...html.matchAll(new RegExp(`https?://[^\\s"'<>/]+/${prefix}/[A-Za-z0-9_.-]+`, "g"))].map((match) => match[0])
    /** A request to a link as a mail client makes it: to the link's host, with that Host header. */
    const follow = (link: string, method = "GET") =>
      target!.fetch(new Request(link, { method, redirect: "manual", headers: { host: new URL(link).host, "user-agent": "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15" } }))

    it("PUT sets a pending domain with its CNAME record; verify fails with the reason, then verifies; DELETE removes it", async () => {
      const { key } = await client.account({ plan: "pro" })
      const made = await brand(key)
      expectError(await client.call("GET", path(made.id), { key }), 404, "RESOURCE_NOT_FOUND")
      const label = fresh("b")
      const domain = await put(key, made.id, `Links.${label.toUpperCase()}.Example.`)
      const hostname = `links.${label}.example`
      expect(domain).toEqual({
        brandId: made.id, hostname, status: "pending", reason: null,
        record: { type: "CNAME", host: hostname, value: cnameTarget },
        createdAt: expect.any(String), updatedAt: expect.any(String), lastCheckedAt: null, verifiedAt: null,
      })
      expect((await client.call("GET", path(made.id), { key })).json).toEqual({ success: true, data: domain })

      const missing = await verify(key, made.id)
      expect(missing).toMatchObject({ status: "failed", verifiedAt: null, lastCheckedAt: expect.any(String) })
      expect(missing.reason).toBe(`no CNAME record at ${hostname}; publish ${hostname} CNAME ${cnameTarget}`)
      dns.zone.set(hostname, { cname: "elsewhere.example.net" })
      const wrong = await verify(key, made.id)
      expect(wrong.status).toBe("failed")
      expect(wrong.reason).toContain(`points to elsewhere.example.net, not ${cnameTarget}`)
      dns.zone.set(hostname, { cname: `${cnameTarget.toUpperCase()}.` })
      const verified = await verify(key, made.id)
      expect(verified).toMatchObject({ status: "verified", reason: null, verifiedAt: expect.any(String) })
      expect(dns.questions).toContain(`CNAME ${hostname}`)
      // The same hostname again keeps the verified domain; another one starts pending.
      expect(await put(key, made.id, hostname)).toEqual(verified)
      dns.zone.set(hostname, { failure: "servfail" })
      expectError(await client.call("POST", `${path(made.id)}/verify`, { key }), 400, "DNS_LOOKUP_ERROR")
      expect((await client.call("GET", path(made.id), { key })).json.data).toEqual(verified)

      const deleted = await client.call("DELETE", path(made.id), { key })
      expect(deleted.json).toEqual({ success: true, data: { brandId: made.id, deleted: true } })
      expectError(await client.call("GET", path(made.id), { key }), 404, "RESOURCE_NOT_FOUND")
      expectError(await client.call("DELETE", path(made.id), { key }), 404, "RESOURCE_NOT_FOUND")
      expectError(await client.call("POST", `${path(made.id)}/verify`, { key }), 404, "RESOURCE_NOT_FOUND")
    })

    it("validates the hostname as domains do (punycode, no IP, no bare public suffix) and refuses one another brand holds with 409", async () => {
      const { key } = await client.account({ plan: "pro" })
      const made = await brand(key)
      const label = fresh("b")
      expect((await put(key, made.id, `bücher.${label}.example`)).hostname).toBe(`xn--bcher-kva.${label}.example`)
      for (const hostname of ["192.0.2.7", "co.uk", "https://links.example.com", "", "bad_label.example.com"]) {
        expectError(await client.call("PUT", path(made.id), { key, body: { hostname } }), 400, "VALIDATION_ERROR", "hostname")
      }
      expectError(await client.call("PUT", path(made.id), { key, body: {} }), 400, "VALIDATION_ERROR")
      // Mailroom's own host (that of TRACK_URL, the CNAME target) is never a brand's tracking domain.
      expectError(await client.call("PUT", path(made.id), { key, body: { hostname: cnameTarget } }), 400, "VALIDATION_ERROR", "hostname")
      expect((await client.call("GET", path(made.id), { key })).json.data.hostname).toBe(`xn--bcher-kva.${label}.example`)
      const taken = `links.${label}.example`
      await put(key, made.id, taken)
      const sibling = await brand(key, { name: "Sibling" })
      const conflict = await client.call("PUT", path(sibling.id), { key, body: { hostname: taken } })
      expectError(conflict, 409, "TRACKING_DOMAIN_IN_USE")
      expect(conflict.json.error.message).toContain(taken)
      const other = await client.account({ plan: "pro" })
      const foreign = await brand(other.key)
      expectError(await client.call("PUT", path(foreign.id), { key: other.key, body: { hostname: taken.toUpperCase() } }), 409, "TRACKING_DOMAIN_IN_USE")
      expectError(await client.call("GET", path(sibling.id), { key }), 404, "RESOURCE_NOT_FOUND")
      // Released by DELETE, the hostname can be taken by another brand.
      await client.call("DELETE", path(made.id), { key })
      expect((await put(other.key, foreign.id, taken)).hostname).toBe(taken)
      // Deleting a brand deletes its tracking domain, releasing the hostname.
      const unused = await brand(other.key, { name: "Unused" })
      const released = `links.${fresh("u")}.example`
      await put(other.key, unused.id, released)
      expect((await client.call("DELETE", `/v1/designs/brands/${unused.id}`, { key: other.key })).status).toBe(200)
      expect((await put(key, sibling.id, released)).hostname).toBe(released)
    })

    it("credentials, scopes and plan as the brand routes: reads and writes split, Micro plan, other accounts' and applications' brands 404", async () => {
      const starter = await client.account({ plan: "starter" })
      expectError(await client.call("GET", path("brd_x"), { key: starter.key }), 403, "PLAN_UPGRADE_REQUIRED")
      expectError(await client.call("PUT", path("brd_x"), { key: starter.key, body: { hostname: "links.example.com" } }), 403, "PLAN_UPGRADE_REQUIRED")
      const account = await client.account({ plan: "pro" })
      const made = await brand(account.key)
      const hostname = `links.${fresh("b")}.example`
      await put(account.key, made.id, hostname)
      const reader = await client.key(account.id, ["templates:read"])
      expect((await client.call("GET", path(made.id), { key: reader.key })).json.data.hostname).toBe(hostname)
      expectError(await client.call("PUT", path(made.id), { key: reader.key, body: { hostname } }), 403, "SCOPE_INSUFFICIENT")
      expectError(await client.call("POST", `${path(made.id)}/verify`, { key: reader.key }), 403, "SCOPE_INSUFFICIENT")
      expectError(await client.call("DELETE", path(made.id), { key: reader.key }), 403, "SCOPE_INSUFFICIENT")
      const other = await client.account({ plan: "pro" })
      for (const [method, suffix] of [["GET", ""], ["PUT", ""], ["DELETE", ""], ["POST", "/verify"]] as const) {
        const answer = await client.call(method, `${path(made.id)}${suffix}`, { key: other.key, body: method === "PUT" ? { hostname: "x.example.com" } : undefined })
        expectError(answer, 404, "BRAND_NOT_FOUND")
      }
      const shop = await brand(account.key, { name: "Shop", applicationKey: "shop" })
      const issued = await client.call("POST", `/admin/accounts/${account.id}/app-credentials`, {
        key: adminToken, body: { applicationKey: "shop", allowedSenders: ["shop@example.com"] },
      })
      const app = issued.json.key as string
      expectError(await client.call("GET", path(made.id), { key: app }), 404, "BRAND_NOT_FOUND")
      expect((await put(app, shop.id, `links.${fresh("s")}.example`)).brandId).toBe(shop.id)
      expect((await client.call("GET", path(made.id), { key: account.key })).json.data.hostname).toBe(hostname)
    })

    it("mail sent under a brand with a verified domain carries its links there, and that host answers them; otherwise TRACK_URL", async () => {
      const { key } = await client.account({ plan: "pro" })
      const main = await brand(key)
      // Pending: the default brand's links stay on TRACK_URL.
      const pendingHost = `links.${fresh("p")}.example`
      await put(key, main.id, pendingHost)
      const before = await sendAndRead(key, newsletter)
      expect(before.html).not.toContain(pendingHost)
      expect(linksOf(before.html, "l")[0]).toMatch(new RegExp(`^https://${cnameTarget}/l/`))
      expect(linksOf(before.html, "u")[0]).toMatch(new RegExp(`^https://${cnameTarget}/u/`))

      const hostname = await verifiedDomain(key, main.id)
      const mail = await sendAndRead(key, newsletter)
      const [click] = linksOf(mail.html, "l")
      const [pixel] = linksOf(mail.html, "o")
      const [unsubscribe] = linksOf(mail.html, "u")
      const [preferences] = linksOf(mail.html, "p")
      for (const link of [click, pixel, unsubscribe, preferences]) expect(link).toMatch(new RegExp(`^https://${hostname.replaceAll(".", "\\.")}/`))
      expect(mail.text).toMatch(new RegExp(`^Sale at https://${hostname.replaceAll(".", "\\.")}/l/\\S+$`))
      expect(mail.headers["list-unsubscribe"]).toContain(`<https://${hostname}/u/`)
      expect(mail.html).not.toContain(cnameTarget)

      const redirect = await follow(click!)
      expect(redirect.status).toBe(302)
      expect(redirect.headers.get("location")).toBe("https://shop.example.com/sale")
      const gif = await follow(pixel!)
      expect([gif.status, gif.headers.get("content-type")]).toEqual([200, "image/gif"])
      const page = await follow(unsubscribe!)
      expect(page.status).toBe(200)
      expect(await page.text()).toMatch(/unsubscribe/i)
      expect((await follow(preferences!)).status).toBe(200)
      const oneClick = await target!.fetch(new Request(mail.headers["list-unsubscribe"]!.match(/<(https:[^>]+)>/)![1]!, {
        method: "POST", headers: { host: hostname, "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click",
      }))
      expect(oneClick.status).toBe(200)
      // Links only: the API, the operator routes, the health check and the reference answer 404 on that host.
      for (const [method, pathname] of [["GET", "/v1/contacts"], ["GET", "/admin/outbox"], ["GET", "/api/health"], ["GET", "/v1/openapi.json"], ["GET", "/"]] as const) {
        const answer = await target!.fetch(new Request(`https://${hostname}${pathname}`, {
          method, headers: { host: hostname, authorization: `Bearer ${pathname.startsWith("/admin") ? adminToken : key}` },
        }))
        expect([pathname, answer.status]).toEqual([pathname, 404])
      }

      // A template bound to another brand without a domain: TRACK_URL. Bound to the verified brand: its domain.
      const side = await brand(key, { name: "Side" })
      const template = await client.call("POST", "/v1/designs", {
        key, body: { key: fresh("t"), draft: { name: "T", subject: "T", format: "html", html: newsletter.html, text: newsletter.text } },
      })
      const templateId = template.json.data.id as string
      expect((await client.call("POST", `/v1/designs/${templateId}/brand`, { key, body: { brandId: side.id } })).status).toBe(200)
      const current = await client.call("GET", `/v1/designs/${templateId}`, { key })
      expect((await client.call("POST", `/v1/designs/${templateId}/publish`, { key, body: { expectedRevision: current.json.data.revision } })).status).toBe(200)
      const sideMail = await sendAndRead(key, { templateId })
      expect(linksOf(sideMail.html, "l")[0]).toMatch(new RegExp(`^https://${cnameTarget}/l/`))
      const sideHost = await verifiedDomain(key, side.id)
      const sideVerified = await sendAndRead(key, { templateId })
      expect(linksOf(sideVerified.html, "l")[0]).toMatch(new RegExp(`^https://${sideHost.replaceAll(".", "\\.")}/l/`))
      expect(linksOf(sideVerified.html, "u")[0]).toMatch(new RegExp(`^https://${sideHost.replaceAll(".", "\\.")}/u/`))

      // Deleted: TRACK_URL again (links already sent still answer, their tokens being self-contained).
      await client.call("DELETE", path(main.id), { key })
      const after = await sendAndRead(key, newsletter)
      expect(after.html).not.toContain(hostname)
      expect(linksOf(after.html, "l")[0]).toMatch(new RegExp(`^https://${cnameTarget}/l/`))
      expect((await follow(click!)).status).toBe(302)
    })
  })
