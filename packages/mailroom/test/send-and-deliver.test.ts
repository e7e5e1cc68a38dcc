/** Sending end to end, as a user sees it: POST /v1/emails/send, the message delivered by the background work to a real
 *  SMTP sink (or kept in the dev outbox), and GET /v1/emails/{id} showing it delivered. */
import { startSmtpSink } from "@mailroom/testing"
import { describe, expect, it } from "vitest"
import { createMailroom, type Mailroom } from "../src/index.js"

const adminToken = "send-admin-token"

const call = (mailroom: Mailroom, apiKey: string, method: string, path: string, body?: unknown) =>
  mailroom.fetch(new Request(`http://host.test/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }))

const waitForStatus = async (mailroom: Mailroom, apiKey: string, id: string, status: string) => {
  const until = Date.now() + 20_000
  for (;;) {
    const response = await call(mailroom, apiKey, "GET", `/emails/${id}`)
    const message = ((await response.json()) as { data: { status: string; recipients: ReadonlyArray<{ status: string }>; events: ReadonlyArray<{ type: string }> } }).data
    if (message.status === status) return message
    if (Date.now() > until) throw new Error(`message ${id} is ${message.status}, never ${status}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe("POST /v1/emails/send to delivered", () => {
  it("a transactional send reaches the SMTP relay and GET /v1/emails/{id} shows it delivered", async () => {
    const sink = await startSmtpSink()
    const mailroom = createMailroom({ database: "memory:", smtpUrl: sink.url })
    try {
      await mailroom.ready()
      const { apiKey } = await mailroom.accounts.create({ name: "send", plan: "pro" })
      const sent = await call(mailroom, apiKey, "POST", "/emails/send", {
        from: { email: "receipts@example.com", name: "Example" },
        to: [{ email: "ada@example.org", name: "Ada" }],
        content: { subject: "Receipt {{order}}", html: "<p>Thanks for order {{order}}, {{name}}</p>" },
        variables: { order: "#1042", name: "Ada & co" },
        metadata: { orderId: 1042 },
      })
      expect(sent.status).toBeLessThan(300)
      const id = ((await sent.json()) as { data: { id: string } }).data.id
      const delivered = await waitForStatus(mailroom, apiKey, id, "delivered")
      expect(delivered.events.map((e) => e.type)).toEqual(["email.queued", "email.delivered"])
      const received = sink.messagesTo("ada@example.org")
      expect(received).toHaveLength(1)
      expect(received[0]!.raw).toContain("Receipt #1042")
      expect(received[0]!.raw).toContain("Ada &amp; co")
      expect(received[0]!.raw).toContain(`Message-ID: <${id}-0@example.com>`)
    } finally {
      await mailroom.close()
      await sink.close()
    }
  })

  it("without a relay, a transactional and a marketing send land in the dev outbox; the marketing one carries one-click headers", async () => {
    const mailroom = createMailroom({ database: "memory:", adminToken, appUrl: "https://app.example.com", trackUrl: "https://t.example.com" })
    try {
      await mailroom.ready()
      const { apiKey } = await mailroom.accounts.create({ name: "outbox", plan: "pro" })
      const transactional = await call(mailroom, apiKey, "POST", "/emails/send", {
        from: { email: "receipts@example.com" }, to: [{ email: "bob@example.org" }],
        content: { subject: "Receipt", text: "Thanks" },
      })
      const marketing = await call(mailroom, apiKey, "POST", "/emails/send", {
        from: { email: "news@example.com" }, to: [{ email: "bob@example.org" }], stream: "marketing",
        content: { subject: "News", html: "<p>News</p><a href=\"{{unsubscribe_url}}\">Unsubscribe</a>" },
      })
      const ids = await Promise.all([transactional, marketing].map(async (r) => {
        expect(r.status).toBeLessThan(300)
        return ((await r.json()) as { data: { id: string } }).data.id
      }))
      for (const id of ids) await waitForStatus(mailroom, apiKey, id, "delivered")
      const outbox = await mailroom.fetch(new Request("http://host.test/admin/outbox?to=bob@example.org", {
        headers: { authorization: `Bearer ${adminToken}` },
      }))
      const entries = ((await outbox.json()) as { data: ReadonlyArray<{ subject: string; html: string | null; headers: Record<string, string> }> }).data
      const news = entries.find((e) => e.subject === "News")!
      const receipt = entries.find((e) => e.subject === "Receipt")!
      expect(news.headers["list-unsubscribe"]).toMatch(/^<https:\/\/t\.example\.com\/u\/[^>]+>, <mailto:unsubscribe@example\.com\?subject=unsubscribe>$/)
      expect(news.headers["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click")
      expect(news.html).toContain("href=\"https://t.example.com/u/")
      expect(receipt.headers["list-unsubscribe"]).toBeUndefined()
    } finally {
      await mailroom.close()
    }
  })

  it("the dev outbox shows the To and Cc headers naming only the recipients that remain: suppressed ones are in no header", async () => {
    const mailroom = createMailroom({ database: "memory:", adminToken })
    try {
      await mailroom.ready()
      const { apiKey } = await mailroom.accounts.create({ name: "outbox", plan: "pro" })
      for (const [email, reason] of [["complainer@example.org", "Complaint"], ["bounced@example.org", "Bounce"]]) {
        expect((await call(mailroom, apiKey, "POST", "/suppressions", { email, reason })).status).toBe(201)
      }
      const sent = await call(mailroom, apiKey, "POST", "/emails/send", {
        from: { email: "receipts@example.com" },
        to: [{ email: "ada@example.org" }, { email: "bounced@example.org" }],
        cc: [{ email: "complainer@example.org" }, { email: "carol@example.org" }],
        content: { subject: "Minutes", text: "Attached" },
      })
      expect(sent.status).toBeLessThan(300)
      const id = ((await sent.json()) as { data: { id: string } }).data.id
      await waitForStatus(mailroom, apiKey, id, "partially_delivered")
      const outbox = await mailroom.fetch(new Request("http://host.test/admin/outbox", { headers: { authorization: `Bearer ${adminToken}` } }))
      const entries = ((await outbox.json()) as { data: ReadonlyArray<{ to: ReadonlyArray<string>; headers: Record<string, string> }> }).data
      expect(entries.map((e) => e.to).sort()).toEqual([["ada@example.org"], ["carol@example.org"]])
      for (const entry of entries) {
        expect(entry.headers["to"]).toBe("ada@example.org")
        expect(entry.headers["cc"]).toBe("carol@example.org")
      }
    } finally {
      await mailroom.close()
    }
  })
})
