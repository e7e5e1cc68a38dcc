/** Campaigns end to end, as a user drives them over HTTP: a list with a topic, contacts, a draft with {{contact.*}},
 *  the campaign sent, queued in chunks by the background work and delivered to a real SMTP sink; the figures on
 *  GET /v1/campaigns/{id}, the List-Unsubscribe headers, and a one-click unsubscribe through the mail's link recording
 *  the campaign. On memory, a SQLite file and a Postgres database of its own. */
import { findTestPostgres, scratchPostgres, startSmtpSink } from "@mailroom/testing"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { createMailroom, type Mailroom } from "../src/index.js"

const call = async (mailroom: Mailroom, apiKey: string, method: string, path: string, body?: unknown) => {
  const response = await mailroom.fetch(new Request(`http://host.test/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }))
  return { status: response.status, json: (await response.json()) as { data: any; error?: { code: string } } }
}

const serverUrl = await findTestPostgres()
const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined)
})

const backends: ReadonlyArray<readonly [string, () => Promise<string> | string]> = [
  ["memory", () => "memory:"],
  ["sqlite", () => `sqlite:${join(mkdtempSync(join(tmpdir(), "mailroom-campaigns-")), "db.sqlite")}`],
  ...(serverUrl === undefined ? [] : [["postgres", async () => {
    const scratch = await scratchPostgres(serverUrl)
    cleanups.push(scratch.drop)
    return scratch.url
  }] as const]),
]

describe.each(backends)("campaigns over HTTP to an SMTP sink (%s)", (_backend, database) => {
  it("sends a campaign to a list with a topic: every eligible member gets one personalised mail with one-click headers; the link's unsubscribe counts", async () => {
    const sink = await startSmtpSink()
    const mailroom = createMailroom({
      database: await database(), smtpUrl: sink.url, trackUrl: "https://t.example.com",
      secret: "campaign-platform-secret-0123456789abcdef",
    })
    try {
      await mailroom.ready()
      const { apiKey } = await mailroom.accounts.create({ name: "campaigns", plan: "pro" })
      const topic = await call(mailroom, apiKey, "POST", "/suppression-groups", { name: "Newsletter" })
      const list = await call(mailroom, apiKey, "POST", "/contacts/lists", { name: "Readers", suppressionGroupId: topic.json.data.id })
      const listId = list.json.data.id as string
      const emails = Array.from({ length: 12 }, (_, i) => `reader${i}@example.org`)
      const bulk = await call(mailroom, apiKey, "POST", "/contacts/bulk", {
        contacts: emails.map((email, i) => ({ email, firstName: `Reader${i}` })),
      })
      expect(bulk.status).toBeLessThan(300)
      const added = await call(mailroom, apiKey, "POST", `/contacts/lists/${listId}/members`, { emails })
      expect(added.json.data.added).toBe(12)
      await call(mailroom, apiKey, "POST", "/suppressions", { email: "reader0@example.org", reason: "Bounce" })
      await call(mailroom, apiKey, "POST", `/suppression-groups/${topic.json.data.id}/members`, { email: "reader1@example.org" })

      const created = await call(mailroom, apiKey, "POST", "/campaigns", {
        name: "Issue 1", listIds: [listId], subject: "Hello {{contact.firstName}}", from: { email: "news@example.com" },
        html: "<p>Dear {{contact.firstName}}</p><p><a href=\"{{unsubscribe_url}}\">Unsubscribe</a></p>",
      })
      expect(created.status).toBe(201)
      const id = created.json.data.id as string
      const sent = await call(mailroom, apiKey, "POST", `/campaigns/${id}/send`)
      expect(sent.json.data.status).toBe("running")

      const until = Date.now() + 30_000
      let figures: any
      for (;;) {
        figures = (await call(mailroom, apiKey, "GET", `/campaigns/${id}`)).json.data
        if (figures.status === "finished" && figures.progress.delivered === 10) break
        if (Date.now() > until) throw new Error(`campaign stuck: ${JSON.stringify(figures)}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(figures.progress).toMatchObject({
        audienceSize: 12, resolved: 12, queued: 0, sent: 10, delivered: 10, bounced: 0,
        dropped: { BOUNCE_SUPPRESSION: 1, TOPIC_OPT_OUT: 1 },
      })
      expect(sink.messagesTo("reader0@example.org")).toHaveLength(0)
      expect(sink.messagesTo("reader1@example.org")).toHaveLength(0)
      for (const email of emails.slice(2)) expect(sink.messagesTo(email)).toHaveLength(1)
      const [mail] = sink.messagesTo("reader5@example.org")
      expect(mail!.raw).toContain("Subject: Hello Reader5")
      expect(mail!.raw).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click")
      const token = /<https:\/\/t\.example\.com\/u\/([^>]+)>/.exec(mail!.raw.replace(/\r\n\s+/g, ""))?.[1]
      expect(token).toBeDefined()
      const press = await mailroom.fetch(new Request(`http://host.test/u/${token}`, { method: "POST" }))
      expect(press.status).toBeLessThan(400)
      const counted = Date.now() + 10_000
      while ((await call(mailroom, apiKey, "GET", `/campaigns/${id}`)).json.data.progress.unsubscribed !== 1) {
        if (Date.now() > counted) throw new Error("the unsubscribe was never counted")
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      const listed = await call(mailroom, apiKey, "GET", "/campaigns?status=finished")
      expect(listed.json.data.map((c: { id: string }) => c.id)).toEqual([id])
    } finally {
      await mailroom.close()
      await sink.close()
    }
  }, 60_000)
})

describe("campaign routes refuse bad requests in the envelope, and change nothing", () => {
  it("answers the plan, validation, not-found and status errors", async () => {
    const mailroom = createMailroom({ database: "memory:" })
    try {
      const free = await mailroom.accounts.create({ name: "free", plan: "free" })
      const { apiKey } = await mailroom.accounts.create({ name: "pro", plan: "pro" })
      const other = await mailroom.accounts.create({ name: "other", plan: "pro" })
      const list = (await call(mailroom, apiKey, "POST", "/contacts/lists", { name: "Readers" })).json.data.id as string
      const body = { name: "N", listIds: [list], subject: "S", from: { email: "news@example.com" }, text: "Hi" }

      const plan = await call(mailroom, free.apiKey, "POST", "/campaigns", body)
      expect([plan.status, plan.json.error?.code]).toEqual([403, "PLAN_UPGRADE_REQUIRED"])
      const missing = await call(mailroom, apiKey, "POST", "/campaigns", { ...body, listIds: [] })
      expect([missing.status, missing.json.error?.code]).toEqual([400, "VALIDATION_ERROR"])
      const both = await call(mailroom, apiKey, "POST", "/campaigns", { ...body, html: "<p>x</p>", templateId: "tpl_x" })
      expect([both.status, both.json.error?.code]).toEqual([400, "VALIDATION_ERROR"])
      const foreignList = await call(mailroom, other.apiKey, "POST", "/campaigns", body)
      expect([foreignList.status, foreignList.json.error?.code]).toEqual([404, "LIST_NOT_FOUND"])
      expect((await call(mailroom, apiKey, "GET", "/campaigns")).json.data).toEqual([])

      const id = (await call(mailroom, apiKey, "POST", "/campaigns", body)).json.data.id as string
      const foreign = await call(mailroom, other.apiKey, "GET", `/campaigns/${id}`)
      expect([foreign.status, foreign.json.error?.code]).toEqual([404, "RESOURCE_NOT_FOUND"])
      const late = await call(mailroom, apiKey, "POST", `/campaigns/${id}/send`, { scheduledAt: "2099-01-01T00:00:00Z" })
      expect([late.status, late.json.error?.code]).toEqual([400, "VALIDATION_ERROR"])
      expect((await call(mailroom, apiKey, "GET", `/campaigns/${id}`)).json.data.status).toBe("draft")
      const sent = await call(mailroom, apiKey, "POST", `/campaigns/${id}/send`)
      expect(sent.status).toBe(200)
      const edit = await call(mailroom, apiKey, "PATCH", `/campaigns/${id}`, { subject: "Late" })
      expect([edit.status, edit.json.error?.code]).toEqual([400, "VALIDATION_ERROR"])
      const remove = await call(mailroom, apiKey, "DELETE", `/campaigns/${id}`)
      expect([remove.status, remove.json.error?.code]).toEqual([400, "VALIDATION_ERROR"])
      expect((await call(mailroom, apiKey, "GET", `/campaigns/${id}`)).json.data.subject).toBe("S")
    } finally {
      await mailroom.close()
    }
  })
})
