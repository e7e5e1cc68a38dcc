/** Sending over HTTP: POST /v1/emails/send, /emails/batch, /emails/schedule and DELETE /emails/schedule/{id}, with
 *  their responses, limits, errors, Idempotency-Key and the quota under concurrent requests. Spec: sending "Send
 *  responses", "Sending", "Errors", "Limits"; CONTRACT.md "Streams and links in mail". */
import { describe, expect, it } from "vitest"
import { type Client, expectError } from "./client.js"

const send = (fields: Record<string, unknown> = {}) => ({
  from: { email: "news@sender.example", name: "Sender" },
  to: [{ email: "ada@example.org" }],
  content: { subject: "Hello {{name}}", html: "<p>Hi {{name}}</p>" },
  ...fields,
})

const batchOf = (count: number, offset = 0) => ({
  from: { email: "news@sender.example" },
  content: { subject: "Hi {{name}}", text: "Hello {{name}}" },
  recipients: Array.from({ length: count }, (_, i) => ({ to: { email: `r${offset + i}@example.org` }, variables: { name: `R${i}` } })),
})

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const sendingTests = (client: () => Client) => {
  describe("sending", () => {
    /** What acceptance made of a recipient or message: the background work may have delivered it since (held while
     *  its submission is under way), which these tests do not look at. */
    const accepted = (status: string) => (["held", "delivered"].includes(status) ? "queued" : status)
    const acceptanceEvents = (events: ReadonlyArray<any>) => events.filter((e) => e.type === "email.queued" || e.type === "email.dropped")

    it("POST /v1/emails/send answers the message; GET /v1/emails/{id} shows it queued with its events", async () => {
      const { key } = await client().account()
      const answer = await client().call("POST", "/v1/emails/send", {
        key,
        body: send({ to: [{ email: "Ada@Example.org" }, { email: "bob@example.org" }], cc: [{ email: "ADA@example.org" }] }),
      })
      expect(answer.status).toBe(200)
      expect(answer.json).toEqual({
        success: true,
        data: {
          id: expect.stringMatching(/^msg_/), status: "queued", from: "news@sender.example",
          to: ["ada@example.org", "bob@example.org"], subject: "Hello {{name}}", createdAt: expect.stringMatching(iso),
        },
      })
      const read = await client().call("GET", `/v1/emails/${answer.json.data.id}`, { key })
      expect({ ...read.json.data, status: accepted(read.json.data.status) }).toMatchObject({ status: "queued", stream: "transactional", track: false })
      expect(acceptanceEvents(read.json.data.events).map((e: any) => [e.type, e.recipient, e.bounceReason])).toEqual([
        ["email.queued", "ada@example.org", null], ["email.queued", "bob@example.org", null],
        ["email.dropped", "ada@example.org", "DUPLICATE_RECIPIENT"],
      ])
    })

    it("a marketing send under a topic drops its opt-outs and suppressed addresses", async () => {
      const { key } = await client().account()
      const topic = (await client().call("POST", "/v1/suppression-groups", { key, body: { name: "News" } })).json.data
      await client().call("POST", `/v1/suppression-groups/${topic.id}/members`, { key, body: { email: "optout@example.org" } })
      await client().call("POST", "/v1/suppressions", { key, body: { email: "unsub@example.org", reason: "Unsubscribe" } })
      const to = [{ email: "ok@example.org" }, { email: "optout@example.org" }, { email: "unsub@example.org" }]
      const marketing = await client().call("POST", "/v1/emails/send", { key, body: send({ to, suppressionGroupId: topic.id }) })
      expect(marketing.status).toBe(200)
      const read = (await client().call("GET", `/v1/emails/${marketing.json.data.id}`, { key })).json.data
      expect(read).toMatchObject({ stream: "marketing", topicId: topic.id, track: true })
      expect(read.recipients.map((r: any) => [r.email, accepted(r.status)])).toEqual([
        ["ok@example.org", "queued"], ["optout@example.org", "dropped"], ["unsub@example.org", "dropped"],
      ])
      // Transactional mail ignores both.
      const receipt = await client().call("POST", "/v1/emails/send", { key, body: send({ to }) })
      const receiptRead = (await client().call("GET", `/v1/emails/${receipt.json.data.id}`, { key })).json.data
      expect(receiptRead.recipients.map((r: any) => accepted(r.status))).toEqual(["queued", "queued", "queued"])
    })

    it("POST /v1/emails/batch answers the batch and one message per entry", async () => {
      const { key } = await client().account()
      const answer = await client().call("POST", "/v1/emails/batch", { key, body: { ...batchOf(3), variables: { name: "all", extra: "x" } } })
      expect(answer.status).toBe(200)
      expect(answer.json.data).toEqual({
        batchId: expect.stringMatching(/^bat_/), status: "queued", totalRecipients: 3,
        messageIds: [expect.stringMatching(/^msg_/), expect.stringMatching(/^msg_/), expect.stringMatching(/^msg_/)],
        createdAt: expect.stringMatching(iso),
      })
      const first = (await client().call("GET", `/v1/emails/${answer.json.data.messageIds[0]}`, { key })).json.data
      expect(first).toMatchObject({ batchId: answer.json.data.batchId, recipients: [{ email: "r0@example.org" }] })
      expect(accepted(first.recipients[0].status)).toBe("queued")
    })

    it.each([
      ["text beside a template", send({ content: { templateId: "tpl_1", text: "x" } }), 400, "VALIDATION_ERROR", "content.text"],
      ["CR in an address", send({ to: [{ email: "ada@example.org\r\n" }] }), 400, "VALIDATION_ERROR", "to.0.email"],
      ["LF in a name", send({ to: [{ email: "ada@example.org", name: "Ada\nBcc: x@evil.example" }] }), 400, "VALIDATION_ERROR", "to.0.name"],
      ["CR in the subject", send({ content: { subject: "Hi\rthere", text: "x" } }), 400, "VALIDATION_ERROR", "content.subject"],
      ["a variable that is not a string", send({ variables: { n: 1 } }), 400, "VALIDATION_ERROR", "variables.n"],
      ["an attachment that is not base64", send({ attachments: [{ filename: "a.txt", content: "@@@", contentType: "text/plain" }] }), 400, "VALIDATION_ERROR", "attachments.0.content"],
      ["an attachment without an extension", send({ attachments: [{ filename: "invoice", content: "aGk=", contentType: "text/plain" }] }), 400, "VALIDATION_ERROR", "attachments.0.filename"],
      ["an attachment without a MIME type", send({ attachments: [{ filename: "a.txt", content: "aGk=", contentType: "text" }] }), 400, "VALIDATION_ERROR", "attachments.0.contentType"],
      ["html over 1 MiB", send({ content: { subject: "Hi", html: "x".repeat(1024 * 1024 + 1) } }), 413, "PAYLOAD_TOO_LARGE", "content.html"],
      ["text over 1 MiB", send({ content: { subject: "Hi", text: "é".repeat(512 * 1024 + 1) } }), 413, "PAYLOAD_TOO_LARGE", "content.text"],
      ["a subject of 999 characters", send({ content: { subject: "s".repeat(999), text: "x" } }), 400, "VALIDATION_ERROR", "content.subject"],
      ["11 categories", send({ categories: Array.from({ length: 11 }, (_, i) => `c${i}`) }), 400, "VALIDATION_ERROR", "categories"],
      ["101 distinct recipients", send({ to: Array.from({ length: 101 }, (_, i) => ({ email: `r${i}@example.org` })) }), 400, "VALIDATION_ERROR", "to"],
      ["an unknown stream", send({ stream: "bulk" }), 400, "VALIDATION_ERROR", "stream"],
      ["an unknown field", send({ sendAt: "later" }), 400, "VALIDATION_ERROR", "sendAt"],
      ["no content", send({ content: { subject: "Hi" } }), 400, "VALIDATION_ERROR", "content.html"],
    ])("POST /v1/emails/send with %s answers %i %s", async (_, body, status, code, field) => {
      const { key } = await client().account()
      expectError(await client().call("POST", "/v1/emails/send", { key, body }), status, code, field)
    })

    it("refuses a batch of 1,001 entries and a sending body over 8 MiB", async () => {
      const { key } = await client().account()
      expectError(await client().call("POST", "/v1/emails/batch", { key, body: batchOf(1_001) }), 400, "VALIDATION_ERROR", "recipients")
      const huge = JSON.stringify(send({ content: { subject: "Hi", text: "x" }, metadata: { pad: "x".repeat(8 * 1024 * 1024) } }))
      expectError(await client().call("POST", "/v1/emails/send", { key, raw: huge, headers: { "content-type": "application/json" } }), 413, "PAYLOAD_TOO_LARGE")
      expectError(await client().call("POST", "/v1/emails/send", { key, raw: "{", headers: { "content-type": "application/json" } }), 400, "VALIDATION_ERROR")
    })

    it("needs the emails:send scope", async () => {
      const account = await client().account()
      const limited = await client().key(account.id, ["contacts:read"])
      expectError(await client().call("POST", "/v1/emails/send", { key: limited.key, body: send() }), 403, "SCOPE_INSUFFICIENT")
      expectError(await client().call("POST", "/v1/emails/batch", { key: limited.key, body: batchOf(1) }), 403, "SCOPE_INSUFFICIENT")
      const allowed = await client().key(account.id, ["emails:send"])
      expect((await client().call("POST", "/v1/emails/send", { key: allowed.key, body: send() })).status).toBe(200)
    })

    it("Idempotency-Key: a repeat answers the first response; another body answers 409", async () => {
      const { key } = await client().account()
      const headers = { "idempotency-key": "order-42" }
      const first = await client().call("POST", "/v1/emails/send", { key, body: send(), headers })
      const again = await client().call("POST", "/v1/emails/send", { key, body: send(), headers })
      expect(again.status).toBe(200)
      expect(again.json).toEqual(first.json)
      expectError(await client().call("POST", "/v1/emails/send", { key, body: send({ to: [{ email: "x@example.org" }] }), headers }), 409, "IDEMPOTENCY_KEY_REUSED")
      expectError(await client().call("POST", "/v1/emails/batch", { key, body: batchOf(1), headers }), 409, "IDEMPOTENCY_KEY_REUSED")
      const batchHeaders = { "idempotency-key": "batch-42" }
      const batch = await client().call("POST", "/v1/emails/batch", { key, body: batchOf(2), headers: batchHeaders })
      expect((await client().call("POST", "/v1/emails/batch", { key, body: batchOf(2), headers: batchHeaders })).json).toEqual(batch.json)
      const scheduleHeaders = { "idempotency-key": "schedule-42" }
      const scheduled = send({ scheduledFor: new Date(Date.now() + 3_600_000).toISOString() })
      const firstSchedule = await client().call("POST", "/v1/emails/schedule", { key, body: scheduled, headers: scheduleHeaders })
      expect(firstSchedule.json.data.status).toBe("scheduled")
      expect((await client().call("POST", "/v1/emails/schedule", { key, body: scheduled, headers: scheduleHeaders })).json).toEqual(firstSchedule.json)
      const another = { ...scheduled, to: [{ email: "x@example.org" }] }
      expectError(await client().call("POST", "/v1/emails/schedule", { key, body: another, headers: scheduleHeaders }), 409, "IDEMPOTENCY_KEY_REUSED")
    })

    it("schedule: answers scheduled, refuses the past and beyond a year, queues it when due; cancel answers 404 after", async () => {
      const owner = await client().account()
      const other = await client().account()
      const key = owner.key
      const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString()
      expectError(await client().call("POST", "/v1/emails/schedule", { key, body: send({ scheduledFor: inMinutes(-1) }) }), 400, "VALIDATION_ERROR", "scheduledFor")
      expectError(await client().call("POST", "/v1/emails/schedule", { key, body: send({ scheduledFor: inMinutes(367 * 24 * 60) }) }), 400, "VALIDATION_ERROR", "scheduledFor")
      expectError(await client().call("POST", "/v1/emails/schedule", { key, body: send() }), 400, "VALIDATION_ERROR", "scheduledFor")

      const later = inMinutes(60)
      const kept = await client().call("POST", "/v1/emails/schedule", { key, body: send({ scheduledFor: later }) })
      expect(kept.status).toBe(200)
      expect(kept.json.data).toEqual({ id: expect.stringMatching(/^msg_/), status: "scheduled", scheduledFor: later, createdAt: expect.stringMatching(iso) })
      expectError(await client().call("DELETE", `/v1/emails/schedule/${kept.json.data.id}`, { key: other.key }), 404, "RESOURCE_NOT_FOUND")
      const cancelled = await client().call("DELETE", `/v1/emails/schedule/${kept.json.data.id}`, { key })
      expect(cancelled.json).toEqual({ success: true, data: { id: kept.json.data.id, status: "cancelled" } })
      expect((await client().call("GET", `/v1/emails/${kept.json.data.id}`, { key })).json.data.status).toBe("cancelled")
      expectError(await client().call("DELETE", `/v1/emails/schedule/${kept.json.data.id}`, { key }), 404, "RESOURCE_NOT_FOUND")

      const soon = new Date(Date.now() + 1_500).toISOString()
      const due = await client().call("POST", "/v1/emails/schedule", { key, body: send({ scheduledFor: soon }) })
      let status = "scheduled"
      for (let tries = 0; tries < 60 && status === "scheduled"; tries++) {
        await sleep(250)
        status = (await client().call("GET", `/v1/emails/${due.json.data.id}`, { key })).json.data.status
      }
      // Queued when due; the background work may be delivering it already (held while its submission is under way).
      expect(["queued", "held", "delivered"]).toContain(status)
      expectError(await client().call("DELETE", `/v1/emails/schedule/${due.json.data.id}`, { key }), 404, "RESOURCE_NOT_FOUND")
    })

    it("refused requests use no quota, and concurrent sends never take the account past it (429 QUOTA_EXCEEDED)", async () => {
      const { key } = await client().account({ plan: "free" })
      // Refused requests first: had any of them reserved quota, the counts below would be off.
      await client().call("POST", "/v1/emails/send", { key, body: send({ content: { templateId: "t" } }) })
      await client().call("POST", "/v1/emails/batch", { key, body: batchOf(1_001) })
      await client().call("POST", "/v1/emails/send", { key, body: send({ variables: { n: 1 } }) })
      for (const [count, offset] of [[1_000, 0], [1_000, 1_000], [990, 2_000]] as const) {
        expect((await client().call("POST", "/v1/emails/batch", { key, body: batchOf(count, offset) })).status).toBe(200)
      }
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) =>
        client().call("POST", "/v1/emails/send", {
          key,
          body: send({ to: [{ email: `a${i}@example.org` }, { email: `b${i}@example.org` }, { email: `c${i}@example.org` }] }),
        })))
      expect(answers.filter((a) => a.status === 200)).toHaveLength(3)
      const refused = answers.filter((a) => a.status !== 200)
      expect(refused).toHaveLength(9)
      for (const answer of refused) {
        expectError(answer, 429, "QUOTA_EXCEEDED")
        expect(answer.json.error.context.resets_at).toMatch(/^\d{4}-\d{2}-01T00:00:00\.000Z$/)
      }
      expect((await client().call("POST", "/v1/emails/send", { key, body: send() })).status).toBe(200)
      expectError(await client().call("POST", "/v1/emails/send", { key, body: send() }), 429, "QUOTA_EXCEEDED")
    })
  })
}
