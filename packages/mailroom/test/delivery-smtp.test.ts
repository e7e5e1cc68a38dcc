/** Message delivery end to end: a Mailroom on each backend with a real SMTP sink on 127.0.0.1 as its relay. Messages are
 *  stored as acceptance stores them (queued, with their email.queued events); the background work delivers them and
 *  GET /v1/emails/{id} shows the outcome: delivered (also through a slow relay), deferred (421, 452), bounced (550,
 *  with its suppression and the contact BOUNCED), held (the connection dropped after DATA), and nothing sent while the
 *  relay is down; DSN and ARF reports over HTTP. A
 *  Mailroom that stops between acceptance and delivery leaves the message to the next one on the same database. */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type AccountId, submissionInProgress } from "@mailroom/core"
import { findTestPostgres, scratchPostgres, sendBodyTo, type SmtpSink, startSmtpSink, storeAcceptedMessage } from "@mailroom/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMailroom, type Mailroom } from "../src/index.js"

const adminToken = "delivery-admin-token"
const directory = mkdtempSync(join(tmpdir(), "mailroom-delivery-smtp-"))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

interface Running {
  readonly mailroom: Mailroom
  readonly accountId: AccountId
  readonly apiKey: string
}

const start = async (database: string, smtpUrl: string, options: { readonly backgroundWork?: boolean } = {}): Promise<Running> => {
  const mailroom = createMailroom({ database, smtpUrl, adminToken, shutdownGraceMillis: 2_000, ...options })
  await mailroom.ready()
  const { account, apiKey } = await mailroom.accounts.create({ name: "delivery", plan: "pro" })
  return { mailroom, accountId: account.id, apiKey }
}

const accept = (running: Running, to: ReadonlyArray<string>, body: Record<string, unknown> = {}) =>
  running.mailroom.runtime.runPromise(storeAcceptedMessage(running.accountId, sendBodyTo(to, body)))

interface MessageJson {
  readonly status: string
  readonly recipients: ReadonlyArray<{ readonly email: string; readonly status: string; readonly attempts: number; readonly lastResponse: string | null }>
  readonly events: ReadonlyArray<{ readonly type: string; readonly recipient: string; readonly smtpResponse: string | null; readonly bounceType: string | null; readonly bounceCode: string | null }>
}

const getMessage = async (running: Running, id: string): Promise<MessageJson> => {
  const response = await running.mailroom.fetch(new Request(`http://host.test/v1/emails/${id}`, {
    headers: { authorization: `Bearer ${running.apiKey}` },
  }))
  expect(response.status).toBe(200)
  return ((await response.json()) as { data: MessageJson }).data
}

/** Polls GET /v1/emails/{id} until `done` holds (or fails after `timeoutMs`). */
const waitFor = async (running: Running, id: string, done: (message: MessageJson) => boolean, timeoutMs = 15_000) => {
  const until = Date.now() + timeoutMs
  for (;;) {
    const message = await getMessage(running, id)
    if (done(message)) return message
    if (Date.now() > until) throw new Error(`message ${id} never got there: ${JSON.stringify(message)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Every recipient has an outcome: none waits, none is in the middle of its submission (held with that note). */
const settled = (m: MessageJson) =>
  m.recipients.every((r) => r.status !== "queued" && r.lastResponse !== submissionInProgress)

/** A port nothing listens on. */
const closedPort = () => new Promise<number>((resolve) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as { port: number }
    server.close(() => resolve(port))
  })
})

const postgresUrl = await findTestPostgres()
/** Databases of their own: on the shared Postgres test database, other test processes' Mailrooms would relay these
 *  messages' events and take their delivery jobs. */
const drops: Array<() => Promise<void>> = []
afterAll(async () => { for (const drop of drops) await drop() })
const backends: ReadonlyArray<readonly [string, () => Promise<string>]> = [
  ["memory", () => Promise.resolve("memory:")],
  ["sqlite", () => Promise.resolve(`sqlite:${join(directory, `${Math.random().toString(36).slice(2)}.sqlite`)}`)],
  ...(postgresUrl === undefined ? [] : [["postgres", async () => {
    const scratch = await scratchPostgres(postgresUrl)
    drops.push(scratch.drop)
    return scratch.url
  }] as const]),
]

describe.each(backends)("delivery through a real SMTP relay (%s)", (_name, database) => {
  let sink: SmtpSink
  let running: Running
  beforeAll(async () => {
    sink = await startSmtpSink()
    running = await start(await database(), `${sink.url}?socketTimeout=3000`)
  })
  afterAll(async () => {
    await running?.mailroom.close()
    await sink?.close()
  })

  it("2xx: every recipient is delivered, each with a submission of its own; a slow relay is waited for", async () => {
    sink.behave({ data: (message) => (message.rcptTo.includes("slow@example.org") ? { code: 250, message: "2.0.0 Slowly queued", delayMs: 1_000 } : undefined) })
    const message = await accept(running, ["ada@example.org", "slow@example.org"], { bcc: [{ email: "carol@example.org" }] })
    const done = await waitFor(running, message.id, settled)
    expect(done.status).toBe("delivered")
    expect(done.recipients.map((r) => [r.email, r.status, r.attempts])).toEqual([
      ["ada@example.org", "delivered", 1], ["slow@example.org", "delivered", 1], ["carol@example.org", "delivered", 1],
    ])
    expect(done.recipients[1]!.lastResponse).toContain("Slowly queued")
    const received = sink.messagesTo("carol@example.org").filter((m) => m.raw.includes(message.id))
    expect(received).toHaveLength(1)
    expect(received[0]!.rcptTo).toEqual(["carol@example.org"])
    expect(received[0]!.raw).not.toMatch(/^bcc:/im)
    expect(received[0]!.raw).toContain("Hello Ada <3")
    expect(received[0]!.raw).toContain("Ada &lt;3")
    expect(done.events.filter((e) => e.type === "email.delivered")).toHaveLength(3)
  })

  it("4xx at RCPT (421) and at the end of DATA (452): deferred with email.deferred, to be tried again", async () => {
    sink.behave({
      recipient: (address) => (address === "busy@example.org" ? { code: 421, message: "4.7.0 Try again later" } : undefined),
      data: (message) => (message.rcptTo.includes("full@example.org") ? { code: 452, message: "4.2.2 Mailbox full" } : undefined),
    })
    const message = await accept(running, ["busy@example.org", "full@example.org"])
    const done = await waitFor(running, message.id, (m) => m.recipients.every((r) => r.status === "deferred"))
    expect(done.status).toBe("queued")
    expect(done.recipients.map((r) => r.lastResponse)).toEqual([
      expect.stringContaining("421"), expect.stringContaining("452"),
    ])
    expect(done.events.filter((e) => e.type === "email.deferred").map((e) => e.recipient).sort()).toEqual(["busy@example.org", "full@example.org"])
  })

  it("5xx (550 5.1.1): bounced, hard, the address is suppressed with its bounce details and its contact is BOUNCED", async () => {
    sink.behave({ recipient: (address) => (address === "gone@example.org" ? { code: 550, message: "5.1.1 No such user" } : undefined) })
    const v1 = (path: string, init: RequestInit = {}) => running.mailroom.fetch(new Request(`http://host.test/v1${path}`, {
      ...init, headers: { authorization: `Bearer ${running.apiKey}`, "content-type": "application/json" },
    }))
    const contact = await v1("/contacts", { method: "POST", body: JSON.stringify({ email: "gone@example.org" }) })
    expect(contact.status).toBe(201)
    const contactId = ((await contact.json()) as { data: { id: string } }).data.id
    const message = await accept(running, ["gone@example.org", "ada@example.org"])
    const done = await waitFor(running, message.id, settled)
    expect(done.status).toBe("partially_delivered")
    expect(done.events.find((e) => e.type === "email.bounced")).toMatchObject({
      recipient: "gone@example.org", bounceType: "hard", bounceCode: "5.1.1", smtpResponse: expect.stringContaining("550 5.1.1"),
    })
    const suppression = await running.mailroom.fetch(new Request("http://host.test/v1/suppressions/gone@example.org", {
      headers: { authorization: `Bearer ${running.apiKey}` },
    }))
    expect(suppression.status).toBe(200)
    expect(JSON.stringify(await suppression.json())).toContain("5.1.1")
    expect(((await (await v1(`/contacts/${contactId}`)).json()) as { data: { status: string } }).data.status).toBe("BOUNCED")
  })

  it("a Complaint-suppressed Cc and a Bounce-suppressed To are named in no header of the message the others receive", async () => {
    sink.behave({})
    const v1 = (path: string, body: unknown) => running.mailroom.fetch(new Request(`http://host.test/v1${path}`, {
      method: "POST", body: JSON.stringify(body),
      headers: { authorization: `Bearer ${running.apiKey}`, "content-type": "application/json" },
    }))
    expect((await v1("/suppressions", { email: "complainer@example.org", reason: "Complaint" })).status).toBe(201)
    expect((await v1("/suppressions", { email: "bounced@example.org", reason: "Bounce" })).status).toBe(201)
    const sent = await v1("/emails/send", sendBodyTo(["ada@example.org", "bounced@example.org"], {
      cc: [{ email: "complainer@example.org" }, { email: "carol@example.org" }], bcc: [{ email: "erin@example.org" }],
    }))
    expect(sent.status).toBeLessThan(300)
    const id = ((await sent.json()) as { data: { id: string } }).data.id
    const done = await waitFor(running, id, settled)
    expect(done.recipients.map((r) => [r.email, r.status])).toEqual([
      ["ada@example.org", "delivered"], ["bounced@example.org", "dropped"],
      ["complainer@example.org", "dropped"], ["carol@example.org", "delivered"], ["erin@example.org", "delivered"],
    ])
    const received = sink.messages.filter((m) => m.raw.includes(id))
    expect(received.map((m) => m.rcptTo).sort()).toEqual([["ada@example.org"], ["carol@example.org"], ["erin@example.org"]])
    for (const message of received) {
      const headers = message.raw.slice(0, message.raw.indexOf("\r\n\r\n"))
      expect(headers).toMatch(/^To: ada@example\.org$/im)
      expect(headers).toMatch(/^Cc: carol@example\.org$/im)
      expect(headers).not.toContain("complainer@example.org")
      expect(headers).not.toContain("bounced@example.org")
      expect(headers).not.toContain("erin@example.org")
    }
  })

  it("the connection dropped in the middle of DATA of a small message: held, never sent again", async () => {
    const started: Array<ReadonlyArray<string>> = []
    sink.behave({
      dataStart: ({ rcptTo }) => {
        started.push(rcptTo)
        return rcptTo.includes("cut@example.org") ? "drop" : undefined
      },
    })
    try {
      const message = await accept(running, ["cut@example.org"])
      const done = await waitFor(running, message.id, (m) => m.status === "held" && settled(m))
      expect(done.recipients.map((r) => [r.email, r.status, r.attempts])).toEqual([["cut@example.org", "held", 1]])
      expect(done.events.map((e) => e.type)).toEqual(["email.queued"])
      // Long enough for a retry to have come if there were one.
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      expect(started.filter((rcptTo) => rcptTo.includes("cut@example.org"))).toHaveLength(1)
      expect(sink.messagesTo("cut@example.org")).toEqual([])
      expect((await getMessage(running, message.id)).recipients[0]!.status).toBe("held")
    } finally {
      sink.behave({})
    }
  })

  it("the connection dropped after DATA: held, never sent again, and an operator resolves it over /admin", async () => {
    sink.behave({ data: (message) => (message.rcptTo.includes("lost@example.org") ? "drop" : undefined) })
    const message = await accept(running, ["lost@example.org"])
    const done = await waitFor(running, message.id, (m) => m.status === "held" && settled(m))
    expect(done.events.map((e) => e.type)).toEqual(["email.queued"])
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(sink.messagesTo("lost@example.org").filter((m) => m.raw.includes(message.id))).toHaveLength(1)

    const admin = (path: string, init: RequestInit = {}) => running.mailroom.fetch(new Request(`http://host.test/admin${path}`, {
      ...init, headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    }))
    const listed = (await (await admin(`/accounts/${running.accountId}/held-recipients`)).json()) as { data: ReadonlyArray<{ messageId: string; email: string }> }
    expect(listed.data.filter((h) => h.messageId === message.id).map((h) => h.email)).toEqual(["lost@example.org"])
    sink.behave({})
    const resent = await admin(`/accounts/${running.accountId}/messages/${message.id}/recipients/lost@example.org/resolve`, {
      method: "POST", body: JSON.stringify({ action: "resend" }),
    })
    expect(resent.status).toBe(200)
    expect(await resent.json()).toMatchObject({ messageId: message.id, email: "lost@example.org", status: "queued" })
    const delivered = await waitFor(running, message.id, (m) => m.status === "delivered")
    expect(delivered.recipients[0]!.attempts).toBe(2)
    const again = await admin(`/accounts/${running.accountId}/messages/${message.id}/recipients/lost@example.org/resolve`, {
      method: "POST", body: JSON.stringify({ action: "resend" }),
    })
    expect(again.status).toBe(400)
    const wrong = await admin(`/accounts/${running.accountId}/messages/${message.id}/recipients/lost@example.org/resolve`, {
      method: "POST", body: JSON.stringify({ action: "forget" }),
    })
    expect(wrong.status).toBe(400)
  })
})

describe("a relay that is down, and a Mailroom stopped between acceptance and delivery", () => {
  it("nothing is sent while the relay is down: recipients stay queued with the reason", async () => {
    const running = await start("memory:", `smtp://127.0.0.1:${await closedPort()}?connectionTimeout=1000`)
    try {
      const message = await accept(running, ["ada@example.org"])
      const waiting = await waitFor(running, message.id, (m) => m.recipients[0]!.lastResponse?.startsWith("not sent") === true)
      expect(waiting.recipients[0]).toMatchObject({ status: "queued", attempts: 0 })
      expect(waiting.recipients[0]!.lastResponse).toMatch(/^not sent: /)
      expect(waiting.events.map((e) => e.type)).toEqual(["email.queued"])
    } finally {
      await running.mailroom.close()
    }
  })

  it("a message accepted by a Mailroom that stopped before delivering is delivered once by the next one (SQLite file)", async () => {
    const sink = await startSmtpSink()
    const database = `sqlite:${join(directory, "restart.sqlite")}`
    try {
      const first = await start(database, sink.url, { backgroundWork: false })
      const message = await accept(first, ["ada@example.org"])
      await first.mailroom.close()
      expect(sink.messages).toHaveLength(0)
      const second = createMailroom({ database, smtpUrl: sink.url, shutdownGraceMillis: 2_000 })
      await second.ready()
      try {
        await sink.waitForMessages(1, 15_000)
        const next: Running = { ...first, mailroom: second }
        const done = await waitFor(next, message.id, settled)
        expect(done.status).toBe("delivered")
        await new Promise((resolve) => setTimeout(resolve, 500))
        expect(sink.messages).toHaveLength(1)
      } finally {
        await second.close()
      }
    } finally {
      await sink.close()
    }
  })
})

const dsn = (recipient: string, messageId: string) => [
  "From: Mail Delivery System <MAILER-DAEMON@mx.example.org>",
  "To: bounces@mail.example.com",
  "Subject: Undelivered Mail Returned to Sender",
  "Message-ID: <20261123100005.ABC123@mx.example.org>",
  "MIME-Version: 1.0",
  "Content-Type: multipart/report; report-type=delivery-status; boundary=\"B1\"",
  "",
  "--B1",
  "Content-Type: text/plain; charset=us-ascii",
  "",
  "Your message could not be delivered.",
  "",
  "--B1",
  "Content-Type: message/delivery-status",
  "",
  "Reporting-MTA: dns; mx.example.org",
  "",
  `Final-Recipient: rfc822; ${recipient}`,
  "Action: failed",
  "Status: 5.1.1",
  "Diagnostic-Code: smtp; 550 5.1.1 User unknown",
  "",
  "--B1",
  "Content-Type: text/rfc822-headers",
  "",
  "From: Example News <news@example.com>",
  `Message-ID: ${messageId}`,
  "",
  "--B1--",
  "",
].join("\r\n")

const arf = (messageId: string) => [
  "From: Feedback Loop <fbl@fbl.mailbox.example>",
  "To: fbl@example.com",
  "Subject: Email Feedback Report",
  "Message-ID: <1764194531.99123@fbl.mailbox.example>",
  "MIME-Version: 1.0",
  "Content-Type: multipart/report; report-type=\"feedback-report\"; boundary=\"P1\"",
  "",
  "--P1",
  "Content-Type: text/plain; charset=UTF-8",
  "",
  "This is an email abuse report.",
  "",
  "--P1",
  "Content-Type: message/feedback-report",
  "",
  "Feedback-Type: abuse",
  "User-Agent: MailboxFBL/2.4",
  "Version: 1",
  "",
  "--P1",
  "Content-Type: text/rfc822-headers",
  "",
  "From: Example News <news@example.com>",
  "To: redacted",
  `Message-ID: ${messageId}`,
  "",
  "--P1--",
  "",
].join("\r\n")

describe.each(backends)("reports that arrive later: POST /v1/inbound/bounces and /v1/inbound/complaints (%s)", (_name, database) => {
  it("a DSN bounces the recipient its Message-ID names, whose contact becomes BOUNCED; an ARF report suppresses and unsubscribes the complainer", async () => {
    const sink = await startSmtpSink()
    const running = await start(await database(), sink.url)
    try {
      const post = (path: string, body: string, key = running.apiKey) => running.mailroom.fetch(new Request(`http://host.test/v1${path}`, {
        method: "POST", body, headers: { authorization: `Bearer ${key}`, "content-type": "message/rfc822" },
      }))
      const contactStatus = async (email: string) => {
        const found = await running.mailroom.fetch(new Request(`http://host.test/v1/contacts?search=${email}`, {
          headers: { authorization: `Bearer ${running.apiKey}` },
        }))
        return ((await found.json()) as { data: ReadonlyArray<{ status: string }> }).data.map((c) => c.status)
      }
      for (const email of ["ada@example.org", "bob@example.org"]) {
        const contact = await running.mailroom.fetch(new Request("http://host.test/v1/contacts", {
          method: "POST", body: JSON.stringify({ email }),
          headers: { authorization: `Bearer ${running.apiKey}`, "content-type": "application/json" },
        }))
        expect(contact.status).toBe(201)
      }
      const message = await accept(running, ["ada@example.org", "bob@example.org"])
      await waitFor(running, message.id, (m) => m.status === "delivered")

      const bounced = await post("/inbound/bounces", dsn("ada@example.org", `<${message.id}-0@example.com>`))
      expect(bounced.status).toBe(200)
      expect(await bounced.json()).toEqual({
        success: true,
        data: { type: "delivery_status", recipients: [{ recipient: "ada@example.org", messageId: message.id, result: "bounced", bounceType: "hard" }] },
      })
      const after = await getMessage(running, message.id)
      expect(after.status).toBe("partially_delivered")
      expect(after.events.find((e) => e.type === "email.bounced")).toMatchObject({ recipient: "ada@example.org", bounceCode: "5.1.1" })
      expect(await contactStatus("ada@example.org")).toEqual(["BOUNCED"])

      const complained = await post("/inbound/complaints", arf(`<${message.id}-1@example.com>`))
      expect(complained.status).toBe(200)
      expect(await complained.json()).toMatchObject({
        data: { type: "complaint", feedbackType: "abuse", recipients: [{ recipient: "bob@example.org", messageId: message.id, result: "complained" }] },
      })
      const suppression = await running.mailroom.fetch(new Request("http://host.test/v1/suppressions/bob@example.org", {
        headers: { authorization: `Bearer ${running.apiKey}` },
      }))
      expect(JSON.stringify(await suppression.json())).toContain("Complaint")
      expect(await contactStatus("bob@example.org")).toEqual(["COMPLAINED"])

      // Not a report, no credentials, a key without suppressions:write: refused, nothing recorded.
      const notReport = await post("/inbound/bounces", "From: a@example.com\r\nSubject: hi\r\n\r\nhello\r\n")
      expect(notReport.status).toBe(400)
      expect(await notReport.json()).toMatchObject({ error: { code: "VALIDATION_ERROR" } })
      expect((await post("/inbound/complaints", arf(`<${message.id}-0@example.com>`), "svc_live_wrong")).status).toBe(401)
      const { key } = await running.mailroom.accounts.createApiKey(running.accountId, { scopes: ["emails:send"] })
      expect((await post("/inbound/complaints", arf(`<${message.id}-0@example.com>`), key)).status).toBe(403)
      const ada = await running.mailroom.fetch(new Request("http://host.test/v1/suppressions/ada@example.org", {
        headers: { authorization: `Bearer ${running.apiKey}` },
      }))
      expect(JSON.stringify(await ada.json())).not.toContain("Complaint")
    } finally {
      await running.mailroom.close()
      await sink.close()
    }
  })
})

/** Starts the crash fixture (a Mailroom in its own process) and answers what it stored, with a way to SIGKILL it. */
const startProcess = (env: Record<string, string>) =>
  new Promise<{ readonly accountId: AccountId; readonly apiKey: string; readonly messageId: string; readonly kill: () => Promise<void> }>((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(new URL("./fixtures/accept-then-wait.mjs", import.meta.url))], {
      env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"],
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString()
      if (!output.includes("\n")) return
      const stored = JSON.parse(output.split("\n")[0]!) as { accountId: AccountId; apiKey: string; messageId: string }
      resolve({
        ...stored,
        kill: () => new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done()
          child.once("exit", () => done())
          child.kill("SIGKILL")
        }),
      })
    })
    child.once("exit", (code, signal) => reject(new Error(`the Mailroom process exited (${code ?? signal}) before it stored its message`)))
  })

/** The backends whose data outlives a process. */
const durable = backends.filter(([name]) => name !== "memory")

describe.each(durable)("a Mailroom process killed with SIGKILL (%s)", (_name, makeDatabase) => {
  it("killed between acceptance and delivery: the next process delivers the message, once", async () => {
    const sink = await startSmtpSink()
    const database = await makeDatabase()
    try {
      const first = await startProcess({ DATABASE: database, SMTP_URL: sink.url, BACKGROUND: "0", RECIPIENT: "ada@example.org" })
      await first.kill()
      expect(sink.messages).toHaveLength(0)
      const second = createMailroom({ database, smtpUrl: sink.url, shutdownGraceMillis: 2_000 })
      await second.ready()
      try {
        const done = await waitFor({ mailroom: second, accountId: first.accountId, apiKey: first.apiKey }, first.messageId, settled, 40_000)
        expect(done.status).toBe("delivered")
        await new Promise((resolve) => setTimeout(resolve, 500))
        expect(sink.messagesTo("ada@example.org")).toHaveLength(1)
      } finally {
        await second.close()
      }
    } finally {
      await sink.close()
    }
  }, 90_000)

  it("killed while the relay holds its answer to DATA: the recipient is held in the next process, never sent again", async () => {
    const sink = await startSmtpSink({ behaviour: { data: () => ({ code: 250, message: "2.0.0 late", delayMs: 10_000 }) } })
    const database = await makeDatabase()
    try {
      const first = await startProcess({ DATABASE: database, SMTP_URL: sink.url, BACKGROUND: "1", RECIPIENT: "ada@example.org" })
      await sink.waitForMessages(1, 15_000)
      await first.kill()
      sink.behave({})
      const second = createMailroom({ database, smtpUrl: sink.url, shutdownGraceMillis: 2_000 })
      await second.ready()
      try {
        const running: Running = { mailroom: second, accountId: first.accountId, apiKey: first.apiKey }
        await new Promise((resolve) => setTimeout(resolve, 1_500))
        const message = await getMessage(running, first.messageId)
        expect(message.status).toBe("held")
        expect(message.recipients[0]!.lastResponse).toBe(submissionInProgress)
        expect(sink.messages).toHaveLength(1)
      } finally {
        await second.close()
      }
    } finally {
      await sink.close()
    }
  }, 90_000)
})
