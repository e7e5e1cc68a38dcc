/** The Mailer a Mailroom sends through: the dev outbox (on every backend, read over HTTP), an SMTP relay from
 *  smtpUrl, or the host's own. */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Mailer, type OutgoingMessage } from "@mailroom/core"
import { devOutboxSuite, findTestPostgres, makeCaptureMailer, scratchPostgres, startSmtpSink } from "@mailroom/testing"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { createMailroom, type Mailroom, type MailroomConfig, SmtpUrlError } from "../src/index.js"

const adminToken = "test-admin-token"

const sendThrough = (mailroom: Mailroom, message: OutgoingMessage) =>
  mailroom.runtime.runPromise(Effect.flatMap(Mailer, (mailer) => mailer.send(message)))

const outboxTarget = (config: MailroomConfig) => async () => {
  const mailroom = createMailroom({ ...config, adminToken })
  await mailroom.ready()
  return { fetch: mailroom.fetch, send: (message: OutgoingMessage) => sendThrough(mailroom, message), close: mailroom.close }
}

const message = (to: string): OutgoingMessage => ({
  envelopeFrom: "bounces@mail.example.com",
  envelopeTo: [to],
  from: { email: "news@example.com" },
  to: [{ email: to }],
  subject: "Hello",
  text: "Hello",
})

const outbox = async (mailroom: Mailroom, query = "") =>
  mailroom.fetch(new Request(`http://host.test/admin/outbox${query}`, { headers: { authorization: `Bearer ${adminToken}` } }))

const directory = mkdtempSync(join(tmpdir(), "mailroom-mail-"))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

devOutboxSuite("memory", outboxTarget({ database: "memory:" }))
devOutboxSuite("sqlite", outboxTarget({ database: `sqlite:${join(directory, "outbox.sqlite")}` }))
const postgresUrl = await findTestPostgres()
describe.skipIf(postgresUrl === undefined)("postgres", () => {
  // A database of its own: the suite ends by clearing the outbox, which must not meet other test files' mail.
  devOutboxSuite("postgres", async () => {
    const scratch = await scratchPostgres(postgresUrl!)
    const target = await outboxTarget({ database: scratch.url })()
    return { ...target, close: async () => { await target.close(); await scratch.drop() } }
  })
})

describe("createMailroom's Mailer", () => {
  it("keeps the dev outbox in the database: it survives a restart", async () => {
    const database = `sqlite:${join(directory, "restart.sqlite")}`
    const first = createMailroom({ database, adminToken })
    await sendThrough(first, message("kept@example.net"))
    await first.close()
    const second = createMailroom({ database, adminToken })
    try {
      const body = await (await outbox(second, "?to=kept@example.net")).json()
      expect(body.data.map((entry: { to: Array<string> }) => entry.to)).toEqual([["kept@example.net"]])
    } finally {
      await second.close()
    }
  })

  it("sends through the relay of smtpUrl, and then has no dev outbox", async () => {
    const sink = await startSmtpSink({ auth: { user: "relay-user", pass: "relay-pass" } })
    const mailroom = createMailroom({ database: "memory:", adminToken, smtpUrl: sink.url })
    try {
      const result = await sendThrough(mailroom, message("ada@example.net"))
      expect(result.recipients.map((r) => [r.recipient, r.status, r.code])).toEqual([["ada@example.net", "accepted", 250]])
      expect(sink.messages.map((m) => [m.mailFrom, m.rcptTo])).toEqual([["bounces@mail.example.com", ["ada@example.net"]]])
      expect((await outbox(mailroom)).status).toBe(404)
      // Nor the DELETE that clears it, nor the mail viewer and its sign-in.
      const clear = await mailroom.fetch(new Request("http://host.test/admin/outbox", {
        method: "DELETE", headers: { authorization: `Bearer ${adminToken}` },
      }))
      expect(clear.status).toBe(404)
      const bearer = { authorization: `Bearer ${adminToken}` }
      expect((await mailroom.fetch(new Request("http://host.test/admin/mail", { headers: bearer }))).status).toBe(404)
      const login = await mailroom.fetch(new Request("http://host.test/admin/mail/login", {
        method: "POST", headers: { ...bearer, "content-type": "application/x-www-form-urlencoded" }, body: `token=${adminToken}`,
      }))
      expect(login.status).toBe(404)
      expect(login.headers.get("set-cookie")).toBeNull()
    } finally {
      await mailroom.close()
      await sink.close()
    }
  })

  it("uses the host's own Mailer when given one, and then has no dev outbox", async () => {
    const capture = makeCaptureMailer()
    const mailroom = createMailroom({ database: "memory:", adminToken, mailer: capture.layer })
    try {
      await sendThrough(mailroom, message("ada@example.net"))
      expect(capture.sentTo("ada@example.net")).toHaveLength(1)
      expect((await outbox(mailroom)).status).toBe(404)
    } finally {
      await mailroom.close()
    }
  })

  it.each([
    "smtp://mailer:hunter2@relay.example.com:port",
    "smtp://mailer:hunter2@relay.example.com?tls=off",
    "http://mailer:hunter2@relay.example.com",
  ])("refuses the malformed smtpUrl %s at once, without its password", (smtpUrl) => {
    expect(() => createMailroom({ database: "memory:", smtpUrl })).toThrow(SmtpUrlError)
    expect(() => createMailroom({ database: "memory:", smtpUrl })).toThrow(/mailer:\*\*\*@relay\.example\.com/)
    try {
      createMailroom({ database: "memory:", smtpUrl })
    } catch (error) {
      expect(String(error)).not.toContain("hunter2")
    }
  })

  it("refuses smtpUrl and mailer together", () => {
    expect(() => createMailroom({ database: "memory:", smtpUrl: "smtp://relay.example.com", mailer: makeCaptureMailer().layer }))
      .toThrow("smtpUrl or mailer")
  })
})
