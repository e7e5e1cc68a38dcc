/** The dev outbox scenario suite (CONTRACT.md, "Mail in development"): messages given to the Mailer while no relay is
 *  configured show in GET /admin/outbox, as sent, newest first, with their attachments; DELETE /admin/outbox empties it.
 *  Runs against a Mailroom on each backend, whose database the suite has to itself (the last test clears the outbox).
 *  Tests use recipients of their own, so they never see each other's entries through `to`. */
import type { MailResult, OutgoingMessage } from "@mailroom/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { uniqueText } from "./fixtures.js"

export interface DevOutboxTarget {
  /** Mailroom's handler, with adminToken "test-admin-token" and no SMTP relay. */
  readonly fetch: (request: Request) => Promise<Response>
  /** Sends through the Mailer of that Mailroom. */
  readonly send: (message: OutgoingMessage) => Promise<MailResult>
  readonly close: () => Promise<void>
}

const adminToken = "test-admin-token"

const address = (label: string) => `${uniqueText(label).replace(/_/g, ".")}@example.net`

const outgoing = (to: string, overrides: Partial<OutgoingMessage> = {}): OutgoingMessage => ({
  envelopeFrom: "bounces@mail.example.com",
  envelopeTo: [to],
  from: { email: "news@example.com", name: "Example News" },
  to: [{ email: to }],
  subject: "Welcome",
  html: "<p>Welcome</p>",
  text: "Welcome",
  ...overrides,
})

export const devOutboxSuite = (name: string, makeTarget: () => Promise<DevOutboxTarget>) =>
  describe(`Dev outbox over HTTP (${name})`, () => {
    let target: DevOutboxTarget | undefined
    beforeAll(async () => {
      target = await makeTarget()
    })
    afterAll(async () => {
      await target?.close()
    })
    const current = () => {
      if (target === undefined) throw new Error("the dev outbox target is not ready")
      return target
    }
    const outbox = async (query: string) => {
      const response = await current().fetch(new Request(`http://mailroom.test/admin/outbox${query}`, {
        headers: { authorization: `Bearer ${adminToken}` },
      }))
      return { status: response.status, body: await response.json() as { data: Array<Record<string, any>> } }
    }

    it("a message given to the Mailer counts as delivered and shows with every field, its headers as sent", async () => {
      const ada = address("ada")
      const hidden = address("hidden")
      const unsubscribe = `<https://track.example.com/u/${uniqueText("tok")}>, <mailto:unsubscribe@example.com?subject=unsubscribe>`
      const result = await current().send(outgoing(ada, {
        envelopeTo: [ada, hidden],
        subject: "Confirm your subscription",
        headers: { "List-Unsubscribe": unsubscribe, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
      }))
      expect(result.recipients).toEqual([ada, hidden].map((recipient) => ({
        recipient, status: "accepted", code: 250, enhancedCode: "2.0.0", reply: "250 2.0.0 Kept in the dev outbox",
      })))
      const { status, body } = await outbox(`?to=${encodeURIComponent(ada)}`)
      expect(status).toBe(200)
      expect(body.data).toHaveLength(1)
      const [entry] = body.data
      expect(Object.keys(entry!).sort()).toEqual(["attachments", "createdAt", "from", "headers", "html", "id", "subject", "text", "to"])
      expect(entry!.attachments).toEqual([])
      expect(entry).toMatchObject({
        from: "news@example.com", to: [ada, hidden], subject: "Confirm your subscription", html: "<p>Welcome</p>", text: "Welcome",
      })
      expect(entry!.id).toMatch(/^out_/)
      expect(new Date(entry!.createdAt).toISOString()).toBe(entry!.createdAt)
      expect(entry!.headers).toMatchObject({
        "message-id": result.messageId,
        from: "Example News <news@example.com>",
        to: ada,
        subject: "Confirm your subscription",
        "list-unsubscribe": unsubscribe,
        "list-unsubscribe-post": "List-Unsubscribe=One-Click",
        "mime-version": "1.0",
      })
      expect(entry!.headers["content-type"]).toMatch(/^multipart\/alternative/)
      // Bcc recipients are in the envelope only, as on the wire.
      expect(JSON.stringify(entry!.headers)).not.toContain(hidden)
    })

    it("GET /admin/outbox/{id}/raw answers the message as a relay would have received it; an unknown id 404", async () => {
      const ada = address("ada")
      const result = await current().send(outgoing(ada, { subject: "Raw source", text: "Line one ✓" }))
      const [entry] = (await outbox(`?to=${encodeURIComponent(ada)}`)).body.data
      const raw = (id: string, token = adminToken) =>
        current().fetch(new Request(`http://mailroom.test/admin/outbox/${id}/raw`, { headers: { authorization: `Bearer ${token}` } }))
      const answer = await raw(entry!.id)
      expect(answer.status).toBe(200)
      expect(answer.headers.get("content-type")).toBe("message/rfc822")
      const source = await answer.text()
      expect(source).toMatch(new RegExp(`^Message-ID: ${result.messageId.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\r?$`, "mi"))
      expect(source).toMatch(/^Subject: Raw source\r?$/m)
      expect(source).toMatch(/\r\n\r\n/)
      const missing = await raw("out_unknown")
      expect(missing.status).toBe(404)
      expect((await missing.json()).error.code).toBe("RESOURCE_NOT_FOUND")
      expect((await raw(entry!.id, "wrong-token")).status).toBe(401)
    })

    it("answers the newest entries first, up to limit", async () => {
      const ada = address("ada")
      for (const subject of ["first", "second", "third"]) await current().send(outgoing(ada, { subject }))
      expect((await outbox(`?to=${ada}`)).body.data.map((entry) => entry.subject)).toEqual(["third", "second", "first"])
      expect((await outbox(`?to=${ada}&limit=2`)).body.data.map((entry) => entry.subject)).toEqual(["third", "second"])
    })

    it("to matches any envelope recipient whatever its case, and leaves out the others", async () => {
      const ada = address("ada")
      const bob = address("bob")
      await current().send(outgoing(ada, { subject: "to ada" }))
      await current().send(outgoing(bob, { envelopeTo: [bob, ada.toUpperCase()], cc: [{ email: ada.toUpperCase() }], subject: "cc ada" }))
      await current().send(outgoing(bob, { subject: "to bob" }))
      expect((await outbox(`?to=${encodeURIComponent(ada.toUpperCase())}`)).body.data.map((entry) => entry.subject))
        .toEqual(["cc ada", "to ada"])
      expect((await outbox(`?to=${bob}`)).body.data.map((entry) => entry.subject)).toEqual(["to bob", "cc ada"])
      expect((await outbox(`?to=${address("nobody")}`)).body.data).toEqual([])
    })

    it("limit defaults to 20", async () => {
      const ada = address("ada")
      for (let i = 0; i < 21; i++) await current().send(outgoing(ada, { subject: `n${i}` }))
      const { data } = (await outbox(`?to=${ada}`)).body
      expect(data).toHaveLength(20)
      expect(data[0]!.subject).toBe("n20")
      expect(data[19]!.subject).toBe("n1")
    })

    it("without to, answers every recipient's entries, newest first", async () => {
      const ada = address("ada")
      const bob = address("bob")
      await current().send(outgoing(ada))
      await current().send(outgoing(bob))
      const { data } = (await outbox("?limit=100")).body
      const times = data.map((entry) => Date.parse(entry.createdAt))
      expect(times).toEqual([...times].sort((a, b) => b - a))
      expect(data.flatMap((entry) => entry.to)).toEqual(expect.arrayContaining([ada, bob]))
    })

    it("lists each message's attachments: filename, content type and decoded size, in message order", async () => {
      const ada = address("ada")
      const pdf = Buffer.from("%PDF-1.4 invoice ✓")
      const csv = Buffer.alloc(3000, "a,b\n")
      await current().send(outgoing(ada, {
        subject: "With files",
        attachments: [
          { filename: "invoice.pdf", contentType: "application/pdf", contentBase64: pdf.toString("base64") },
          { filename: "Grüße.csv", contentType: "text/csv", contentBase64: csv.toString("base64") },
        ],
      }))
      const [entry] = (await outbox(`?to=${ada}`)).body.data
      expect(entry!.attachments).toEqual([
        { filename: "invoice.pdf", contentType: "application/pdf", size: pdf.length },
        { filename: "Grüße.csv", contentType: "text/csv", size: 3000 },
      ])
    })

    it.each([["limit=0", "limit"], ["limit=101", "limit"], ["limit=ten", "limit"], ["to=not-an-address", "to"]])(
      "refuses ?%s with VALIDATION_ERROR naming the field",
      async (query, field) => {
        const response = await current().fetch(new Request(`http://mailroom.test/admin/outbox?${query}`, {
          headers: { authorization: `Bearer ${adminToken}` },
        }))
        const body = await response.json() as { error: { code: string; context: { field: string } } }
        expect({ status: response.status, code: body.error.code, field: body.error.context.field })
          .toEqual({ status: 400, code: "VALIDATION_ERROR", field })
      },
    )

    const clear = (headers: Record<string, string> = { authorization: `Bearer ${adminToken}` }) =>
      current().fetch(new Request("http://mailroom.test/admin/outbox", { method: "DELETE", headers }))

    it("DELETE needs the admin token, and without it deletes nothing", async () => {
      const ada = address("ada")
      await current().send(outgoing(ada))
      for (const headers of [{}, { authorization: "Bearer wrong-token" }]) {
        expect((await clear(headers)).status).toBe(401)
      }
      expect((await outbox(`?to=${ada}`)).body.data).toHaveLength(1)
    })

    // Last: it empties the outbox this suite's Mailroom shares with nobody else.
    it("DELETE empties the outbox and answers how many messages it deleted; mail kept after it shows again", async () => {
      await current().send(outgoing(address("ada")))
      const before = (await outbox("?limit=100")).body.data.length
      expect(before).toBeGreaterThan(0)
      const response = await clear()
      expect(response.status).toBe(200)
      const body = await response.json() as { deleted: number }
      expect(body).toEqual({ deleted: expect.any(Number) })
      expect(body.deleted).toBeGreaterThanOrEqual(before)
      expect((await outbox("?limit=100")).body.data).toEqual([])
      expect(await (await clear()).json()).toEqual({ deleted: 0 })
      const bob = address("bob")
      await current().send(outgoing(bob, { subject: "after the clear" }))
      expect((await outbox("?limit=100")).body.data.map((entry) => entry.subject)).toEqual(["after the clear"])
    })
  })
