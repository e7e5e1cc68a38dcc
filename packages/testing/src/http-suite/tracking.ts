/** Tracking links over HTTP (CONTRACT.md "Tracking links"; docs/tracking.md): tracked mail in the dev outbox carries
 *  the open pixel `/o/<token>` and click links `/l/<token>`; the pixel answers a small GIF that no cache keeps, a click
 *  a 302 to the link's original target, HEAD alike without a body; a forged or altered token a plain 404 page. */
import { describe, expect, it } from "vitest"
import { adminToken, type Client } from "./client.js"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

let counter = 0

export const trackingTests = (client: () => Client) => {
  describe("tracking links", () => {
    /** Sends `fields` to a fresh address and answers the dev outbox entry once it is delivered. */
    const deliver = async (fields: Record<string, unknown>) => {
      const { key } = await client().account()
      const to = `tracked-${Date.now().toString(36)}-${++counter}@example.org`
      const sent = await client().call("POST", "/v1/emails/send", {
        key,
        body: {
          from: { email: "news@sender.example" },
          to: [{ email: to }],
          content: {
            subject: "Sale",
            html: `<html><body><p><a href="https://shop.example.com/sale?a=1&amp;b=2">Sale</a> <a href="mailto:help@example.com">Help</a></p></body></html>`,
            text: "Sale: https://shop.example.com/sale?a=1&b=2",
          },
          ...fields,
        },
      })
      expect(sent.status).toBe(200)
      // Delivery runs in the background (relay, job, SMTP or dev outbox): on a busy machine's Postgres that can take
      // seconds, so the wait is generous and the tests' timeouts with it.
      for (let i = 0; i < 500; i++) {
        const outbox = await client().call("GET", `/admin/outbox?to=${encodeURIComponent(to)}`, { key: adminToken })
        if (outbox.json.data.length > 0) return outbox.json.data[0] as { html: string; text: string }
        await sleep(50)
      }
      throw new Error(`the mail to ${to} did not reach the dev outbox`)
    }
    const pathOf = (url: string) => new URL(url).pathname

    it("marketing mail is tracked: its pixel answers a no-store GIF, its click a 302 to the original target", async () => {
      const mail = await deliver({ stream: "marketing" })
      const pixel = /<img src="([^"]+\/o\/[^"]+)"/.exec(mail.html)?.[1]
      const clicks = [...mail.html.matchAll(/<a href="([^"]+\/l\/[^"]+)"/g)].map((m) => m[1]!)
      expect(pixel).toBeDefined()
      // The sale link and the hidden honeypot; the mailto: link stays as it was.
      expect(clicks).toHaveLength(2)
      expect(mail.html).toContain(`<a href="mailto:help@example.com">Help</a>`)
      expect(mail.text).toMatch(/^Sale: http\S+\/l\/\S+$/)

      const gif = await client().call("GET", pathOf(pixel!), { headers: { "user-agent": chrome } })
      expect(gif.status).toBe(200)
      expect(gif.contentType).toBe("image/gif")
      expect(gif.headers.get("cache-control")).toContain("no-store")
      expect(gif.text.startsWith("GIF89a")).toBe(true)
      const head = await client().call("HEAD", pathOf(pixel!), { headers: { "user-agent": chrome } })
      expect([head.status, head.text]).toEqual([200, ""])

      const redirect = await client().call("GET", pathOf(clicks[0]!), { headers: { "user-agent": chrome }, redirect: "manual" })
      expect(redirect.status).toBe(302)
      expect(redirect.headers.get("location")).toBe("https://shop.example.com/sale?a=1&b=2")
      expect(redirect.headers.get("cache-control")).toContain("no-store")
      const textClick = /(http\S+\/l\/\S+)$/.exec(mail.text)![1]!
      const fromText = await client().call("HEAD", pathOf(textClick), { redirect: "manual" })
      expect([fromText.status, fromText.headers.get("location")]).toEqual([302, "https://shop.example.com/sale?a=1&b=2"])
    }, 60_000)

    it("a forged or altered token answers a plain 404 page; transactional mail without track carries no tracking", async () => {
      const mail = await deliver({ stream: "marketing" })
      const click = pathOf(/<a href="([^"]+\/l\/[^"]+)"/.exec(mail.html)![1]!)
      const [payload, signature] = click.slice("/l/".length).split(".") as [string, string]
      const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>
      const altered = Buffer.from(JSON.stringify({ ...claims, u: "https://evil.example/" })).toString("base64url")
      for (const path of [`/l/${altered}.${signature}`, `/l/${payload}.${signature.slice(2)}`, "/l/nonsense", "/o/nonsense"]) {
        const answer = await client().call("GET", path, { redirect: "manual" })
        expect([path, answer.status, answer.headers.get("location")]).toEqual([path, 404, null])
        expect(answer.contentType).toContain("text/html")
      }
      const plain = await deliver({})
      expect(plain.html).not.toMatch(/\/o\/|\/l\//)
      const optedOut = await deliver({ stream: "marketing", track: false })
      expect(optedOut.html).not.toMatch(/\/o\/|\/l\//)
      const tracked = await deliver({ track: true })
      expect(tracked.html).toMatch(/\/o\//)
    }, 90_000)
  })
}
