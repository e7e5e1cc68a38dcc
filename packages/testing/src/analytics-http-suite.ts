/** The analytics routes over HTTP, against a Mailroom with background work running: marketing mail sent, delivered
 *  to the dev outbox, opened and clicked through its tracking links by a browser and by Apple's prefetch, then read
 *  back through summary, heatmap, geographic, providers and a CSV export; scopes, account isolation and refused
 *  parameters. Each backend runs it through the facade (packages/mailroom/test/analytics-http.test.ts), with a Geo
 *  port that reads CF-IPCountry. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminToken, expectError, type HttpTarget, makeClient } from "./http-suite/client.js"

const chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

const until = async <A>(what: string, probe: () => Promise<A | undefined>, timeoutMs = 30_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = await probe()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

const pathOf = (url: string) => {
  const parsed = new URL(url.replace(/&amp;/g, "&"))
  return `${parsed.pathname}${parsed.search}`
}

export const analyticsHttpSuite = (name: string, makeTarget: () => Promise<HttpTarget>) =>
  describe(`analytics over HTTP (${name})`, () => {
    let target: HttpTarget | undefined
    beforeAll(async () => {
      target = await makeTarget()
    })
    afterAll(async () => { await target?.close() })
    const client = makeClient(() => target!)

    /** The html of the message the dev outbox holds for `to`. */
    const mailTo = (to: string) => until(`mail to ${to}`, async () => {
      const answer = await client.call("GET", `/admin/outbox?to=${encodeURIComponent(to)}`, { key: adminToken })
      return answer.json?.data?.[0]?.html as string | undefined
    })

    it("mail opened and clicked by a person, and prefetched by Apple, reads back the same through every route", async () => {
      const { id, key } = await client.account({ plan: "pro" })
      const sent = await client.call("POST", "/v1/emails/send", {
        key,
        body: {
          from: { email: "news@example.com" }, to: [{ email: `ann-${id}@gmail.com` }, { email: `bob-${id}@yahoo.com` }],
          content: { subject: "Spring sale", html: "<p>Hello</p><p><a href=\"https://shop.example.com/sale\">Shop</a></p>" },
          stream: "marketing", categories: ["news"],
        },
      })
      expect(sent.status, sent.text).toBe(200)
      const ann = await mailTo(`ann-${id}@gmail.com`)
      const bob = await mailTo(`bob-${id}@yahoo.com`)
      const pixel = (html: string) => pathOf(/src="([^"]+\/o\/[^"]+)"/.exec(html)![1]!)
      const shop = /<a href="([^"]+\/l\/[^"]+)"[^>]*>Shop/.exec(ann)![1]!
      const opened = await client.call("GET", pixel(ann), { headers: { "user-agent": chrome, "cf-ipcountry": "DE" } })
      expect(opened.status).toBe(200)
      const clicked = await client.call("GET", pathOf(shop), { headers: { "user-agent": chrome, "cf-ipcountry": "DE" }, redirect: "manual" })
      expect(clicked.status).toBe(302)
      expect(clicked.headers.get("location")).toBe("https://shop.example.com/sale")
      expect((await client.call("GET", pixel(bob), { headers: { "user-agent": "Mozilla/5.0" } })).status).toBe(200)

      const summary = await until("the figures", async () => {
        const answer = await client.call("GET", "/v1/analytics/summary", { key })
        expect(answer.status, answer.text).toBe(200)
        const totals = answer.json.totals
        return totals.delivered === 2 && totals.clicked === 1 && totals.machineOpened === 1 ? answer.json : undefined
      })
      expect(summary.totals).toEqual({
        sent: 2, delivered: 2, bounced: 0, deferred: 0, opened: 1, uniqueOpens: 1, clicked: 1, uniqueClicks: 1,
        complained: 0, unsubscribed: 0, machineOpened: 1, botClicked: 0,
      })
      expect(summary.rates).toEqual({
        deliveryRate: 100, bounceRate: 0, openRate: 50, clickRate: 50, clickToOpenRate: 100, complaintRate: 0, unsubscribeRate: 0,
      })
      expect(summary).toMatchObject({ quotaUsed: 2, quotaLimit: 50_000, quotaPercentage: 0 })

      const heatmap = await client.call("GET", "/v1/analytics/heatmap?timezone=America/New_York", { key })
      expect(heatmap.json).toMatchObject({ metric: "opens", timezone: "America/New_York" })
      expect(heatmap.json.data).toHaveLength(168)
      expect(heatmap.json.data.reduce((sum: number, cell: { value: number }) => sum + cell.value, 0)).toBe(1)

      const geo = await client.call("GET", "/v1/analytics/geographic", { key })
      expect(geo.json).toMatchObject({ metric: "opens", total: 1, data: [{ country: "DE", countryName: "Germany", value: 1, percentage: 100 }] })

      const providers = await client.call("GET", "/v1/analytics/providers?limit=5", { key })
      expect(providers.json.data.map((p: { provider: string; sent: number; opened: number }) => [p.provider, p.sent, p.opened]))
        .toEqual([["Gmail", 1, 1], ["Yahoo", 1, 0]])
      expect(providers.json.total).toEqual({ sent: 2, delivered: 2, bounced: 0, opened: 1, clicked: 1, complained: 0 })

      const today = new Date().toISOString().slice(0, 10)
      const csv = await client.call("GET", `/v1/analytics/export?format=csv&metrics=deliveries,opens,clicks&from=${today}&to=${today}&categories=news`, { key })
      expect(csv.status).toBe(200)
      expect(csv.headers.get("content-disposition")).toBe("attachment; filename=analytics-export.csv")
      expect(csv.contentType).toMatch(/^text\/csv/)
      expect(csv.text).toBe(`date,deliveries,opens,clicks\r\n${today},2,1,1\r\n`)
      const json = await client.call("GET", `/v1/analytics/export?groupBy=month&metrics=bounces&from=${today}&to=${today}`, { key })
      expect(json.json).toMatchObject({ groupBy: "month", data: [{ date: `${today.slice(0, 7)}-01`, bounces: 0 }] })
      expect(Object.keys(json.json.data[0])).toEqual(["date", "bounces"])

      // Another account sees none of it.
      const other = await client.account({ plan: "pro" })
      expect((await client.call("GET", "/v1/analytics/summary", { key: other.key })).json.totals.sent).toBe(0)
    })

    it("needs analytics:read, and refuses bad parameters with 400 VALIDATION_ERROR", async () => {
      const { id, key } = await client.account({ plan: "pro" })
      expectError(await client.call("GET", "/v1/analytics/summary"), 401, "UNAUTHORIZED")
      const narrow = await client.key(id, ["contacts:read"])
      expect((await client.call("GET", "/v1/analytics/summary", { key: narrow.key })).status).toBe(403)
      const reader = await client.key(id, ["analytics:read"])
      expect((await client.call("GET", "/v1/analytics/providers", { key: reader.key })).status).toBe(200)
      const refused = [
        "/v1/analytics/summary?from=2026-03-02&to=2026-03-01",
        "/v1/analytics/summary?from=2020-01-01&to=2026-03-01",
        "/v1/analytics/summary?from=tomorrow",
        "/v1/analytics/heatmap?timezone=Mars/Olympus",
        "/v1/analytics/heatmap?metric=bounces",
        "/v1/analytics/geographic?country=DEU",
        "/v1/analytics/providers?limit=51",
        "/v1/analytics/providers?limit=0",
        "/v1/analytics/export?format=xml",
        "/v1/analytics/export?metrics=opens,views",
        "/v1/analytics/export?groupBy=year",
      ]
      for (const path of refused) {
        const answer = await client.call("GET", path, { key })
        expect([path, answer.status, answer.json?.error?.code]).toEqual([path, 400, "VALIDATION_ERROR"])
      }
    })
  })
