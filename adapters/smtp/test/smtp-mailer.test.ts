/** The SMTP engine against a real smtp-server sink on 127.0.0.1: what the relay answers, per recipient, is what the
 *  Mailer reports. */
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import { generateKeyPairSync } from "node:crypto"
import { type MailerError, type MailResult } from "@mailroom/core"
import { type SmtpSink, startSmtpSink } from "@mailroom/testing"
import { Effect } from "effect"
import { simpleParser } from "mailparser"
import { dkimVerify } from "mailauth/lib/dkim/verify.js"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { readHeaders } from "../src/index.js"
import { message, sinkOptions, withMailer } from "./support.js"

const send = (sink: SmtpSink, outgoing = message(), overrides = {}) =>
  withMailer(sinkOptions(sink.port, overrides), (mailer) => mailer.send(outgoing))

const sendFailing = (port: number, outgoing = message(), overrides = {}) =>
  withMailer(sinkOptions(port, overrides), (mailer) => Effect.flip(mailer.send(outgoing)))

/** A port nothing listens on: bound once, then released. */
const closedPort = async () => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe("SmtpMailer over a real SMTP sink", () => {
  let sink: SmtpSink
  beforeAll(async () => {
    sink = await startSmtpSink()
  })
  afterEach(() => sink.reset())
  afterAll(() => sink.close())

  it("delivers: every recipient accepted with the end-of-DATA reply; the envelope apart from the headers", async () => {
    const result = await send(sink, message({
      envelopeTo: ["ada@example.net", "grace@example.org", "hidden@example.com"],
      to: [{ email: "ada@example.net", name: "Ada Lovelace" }],
      cc: [{ email: "grace@example.org" }],
      replyTo: { email: "support@example.com" },
      headers: {
        "List-Unsubscribe": "<https://track.example.com/u/tok_123>, <mailto:unsubscribe@example.com?subject=tok_123>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      },
      attachments: [{ filename: "a.txt", contentBase64: Buffer.from("attached").toString("base64"), contentType: "text/plain" }],
      messageId: "<fixed-1@mail.example.com>",
    }))
    expect(result.messageId).toBe("<fixed-1@mail.example.com>")
    expect(result.recipients).toEqual(["ada@example.net", "grace@example.org", "hidden@example.com"].map((recipient) => ({
      recipient, status: "accepted", code: 250, reply: "250 2.0.0 OK: queued", enhancedCode: "2.0.0",
    })))
    expect(sink.messages).toHaveLength(1)
    const [received] = sink.messages
    expect(received!.mailFrom).toBe("bounces+abc@mail.example.com")
    expect(received!.rcptTo).toEqual(["ada@example.net", "grace@example.org", "hidden@example.com"])
    const parsed = await simpleParser(received!.raw)
    expect(parsed.from?.text).toBe("\"Example News\" <news@example.com>")
    expect(parsed.subject).toBe("Hello Ada")
    expect(parsed.messageId).toBe("<fixed-1@mail.example.com>")
    expect(parsed.html).toBe("<p>Hello <b>Ada</b></p>")
    expect(parsed.text?.trim()).toBe("Hello Ada")
    const headers = readHeaders(Buffer.from(received!.raw))
    expect(headers["list-unsubscribe"]).toBe("<https://track.example.com/u/tok_123>, <mailto:unsubscribe@example.com?subject=tok_123>")
    expect(headers["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click")
    expect(headers["reply-to"]).toBe("support@example.com")
    expect(headers.bcc).toBeUndefined()
    expect(received!.raw).not.toContain("hidden@example.com")
    expect(parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([["a.txt", "attached"]])
  })

  it("makes a Message-ID on the sender's domain when none is given, and reports it", async () => {
    const result = await send(sink, message({ messageId: undefined }))
    expect(result.messageId).toMatch(/^<[0-9a-f-]{36}@example\.com>$/)
    expect((await simpleParser(sink.messages[0]!.raw)).messageId).toBe(result.messageId)
  })

  it.each([
    [451, "4.2.1 Mailbox busy, try later", "deferred", "4.2.1"],
    [452, "4.5.3 Too many recipients", "deferred", "4.5.3"],
    [550, "5.1.1 No such user", "bounced", "5.1.1"],
    [553, "Mailbox name not allowed", "bounced", undefined],
  ])("a %i at RCPT TO: the recipient is %s with code, enhanced code and reply; nothing is sent", async (code, text, status, enhanced) => {
    sink.behave({ recipient: () => ({ code, message: text }) })
    const result = await send(sink)
    expect(result.recipients).toEqual([{
      recipient: "ada@example.net", status, code, reply: `${code} ${text}`, ...(enhanced === undefined ? {} : { enhancedCode: enhanced }),
    }])
    expect(sink.messages).toEqual([])
  })

  it("a mixed envelope: one recipient accepted, one refused at RCPT TO, in envelope order", async () => {
    sink.behave({ recipient: (address) => address === "gone@example.org" ? { code: 550, message: "5.1.1 gone" } : undefined })
    const result = await send(sink, message({ envelopeTo: ["gone@example.org", "ada@example.net"] }))
    expect(result.recipients.map((r) => [r.recipient, r.status, r.code, r.enhancedCode])).toEqual([
      ["gone@example.org", "bounced", 550, "5.1.1"],
      ["ada@example.net", "accepted", 250, "2.0.0"],
    ])
    expect(sink.messages.map((m) => m.rcptTo)).toEqual([["ada@example.net"]])
  })

  it.each([
    [451, "4.3.0 Temporary failure", "deferred"],
    [554, "5.7.1 Message rejected as spam", "bounced"],
  ])("a %i at the end of DATA answers every recipient RCPT TO accepted; a refused recipient keeps its own answer", async (code, text, status) => {
    sink.behave({
      recipient: (address) => address === "gone@example.org" ? { code: 550, message: "5.1.1 gone" } : undefined,
      data: () => ({ code, message: text }),
    })
    const result = await send(sink, message({ envelopeTo: ["ada@example.net", "gone@example.org", "bob@example.net"] }))
    expect(result.recipients).toEqual([
      { recipient: "ada@example.net", status, code, enhancedCode: text.slice(0, 5), reply: `${code} ${text}` },
      { recipient: "gone@example.org", status: "bounced", code: 550, enhancedCode: "5.1.1", reply: "550 5.1.1 gone" },
      { recipient: "bob@example.net", status, code, enhancedCode: text.slice(0, 5), reply: `${code} ${text}` },
    ])
  })

  it("the connection dropped after DATA: the accepted recipients are unknown, the refused one keeps its bounce", async () => {
    sink.behave({
      recipient: (address) => address === "gone@example.org" ? { code: 550, message: "5.1.1 gone" } : undefined,
      data: () => "drop",
    })
    const result = await send(sink, message({ envelopeTo: ["ada@example.net", "gone@example.org"] }))
    expect(result.recipients.map((r) => [r.recipient, r.status, r.code])).toEqual([
      ["ada@example.net", "unknown", undefined],
      ["gone@example.org", "bounced", 550],
    ])
    expect(result.recipients[0]!.reply).toContain("before the relay answered")
    // The message did reach the relay: re-sending it could deliver it twice.
    expect(sink.messages).toHaveLength(1)
  })

  it.each([
    ["MAIL FROM", { mailFrom: () => "drop" as const }],
    ["RCPT TO", { recipient: () => "drop" as const }],
  ])("the connection dropped at %s, before the message was sent: MailerError, safe to retry", async (_stage, behaviour) => {
    sink.behave(behaviour)
    const error = await sendFailing(sink.port)
    expect(error._tag).toBe("MailerError")
    expect(error.detail).toContain("broke before the message was submitted")
    expect(sink.messages).toEqual([])
  })

  it("the connection dropped in the middle of DATA (a large message): MailerError, nothing submitted, safe to retry", async () => {
    sink.behave({ dataStart: () => "drop" })
    // Far more than the socket buffers hold, so the relay hangs up long before the end of the message was written.
    const large = Buffer.alloc(24 * 1024 * 1024, 7).toString("base64")
    const error = await sendFailing(sink.port, message({ attachments: [{ filename: "big.bin", contentBase64: large, contentType: "application/octet-stream" }] }))
    expect(error._tag).toBe("MailerError")
    expect(error.detail).toContain("broke before the message was submitted")
    expect(sink.messages).toEqual([])
  })

  it("the connection dropped in the middle of DATA (a small message): unknown, since the whole message was already handed over", async () => {
    // The relay hangs up on the first chunk of the message; a small message went out whole, final dot included, before
    // the client could see it: the relay may have it, so re-sending it could deliver it twice.
    let started = 0
    sink.behave({ dataStart: () => (started++, "drop") })
    const result = await send(sink, message({ envelopeTo: ["ada@example.net", "bob@example.net"] }))
    expect(result.recipients.map((r) => [r.recipient, r.status])).toEqual([["ada@example.net", "unknown"], ["bob@example.net", "unknown"]])
    expect(result.recipients[0]!.reply).toContain("before the relay answered")
    expect(started).toBe(1)
    expect(sink.messages).toEqual([])
  })

  it("a relay that never answers the end of DATA within the socket timeout: unknown", async () => {
    sink.behave({ data: () => ({ code: 250, delayMs: 3_000 }) })
    const result = await send(sink, message(), { socketTimeoutMs: 300 })
    expect(result.recipients.map((r) => r.status)).toEqual(["unknown"])
  })

  it("a relay that is down: MailerError, nothing submitted", async () => {
    const error = await sendFailing(await closedPort())
    expect(error._tag).toBe("MailerError")
    expect(error.detail).toMatch(/could not open a session with the SMTP relay 127\.0\.0\.1:\d+: .*ECONNREFUSED/)
  })

  it("a sender the relay refuses at MAIL FROM: MailerError", async () => {
    sink.behave({ mailFrom: () => ({ code: 553, message: "5.7.1 Sender not allowed" }) })
    const error = await sendFailing(sink.port)
    expect(error._tag).toBe("MailerError")
    expect(error.detail).toContain("553 5.7.1 Sender not allowed")
    expect(sink.messages).toEqual([])
  })

  it.each([
    ["no recipients", message({ envelopeTo: [] })],
    ["a line break in a recipient", message({ envelopeTo: ["ada@example.net\r\nRCPT TO:<eve@example.org>"] })],
  ])("an envelope that cannot be sent (%s): MailerError, nothing submitted", async (_case, outgoing) => {
    const error = await sendFailing(sink.port, outgoing)
    expect(error.detail).toMatch(/^the envelope was refused: /)
    expect(sink.messages).toEqual([])
  })

  it("reuses pooled connections: sequential sends share one session, and a broken one is replaced", async () => {
    const results = await withMailer(sinkOptions(sink.port), (mailer) =>
      Effect.gen(function* () {
        const answers: Array<MailResult> = []
        for (let i = 0; i < 5; i++) answers.push(yield* mailer.send(message({ subject: `n${i}` })))
        sink.behave({ data: () => "drop" })
        answers.push(yield* mailer.send(message({ subject: "dropped" })))
        sink.behave({})
        answers.push(yield* mailer.send(message({ subject: "after" })))
        return answers
      }))
    expect(results.map((r) => r.recipients[0]!.status)).toEqual([
      "accepted", "accepted", "accepted", "accepted", "accepted", "unknown", "accepted",
    ])
    expect(new Set(sink.messages.slice(0, 6).map((m) => m.sessionId)).size).toBe(1)
    expect(sink.messages[6]!.sessionId).not.toBe(sink.messages[0]!.sessionId)
    expect(sink.connectionCount()).toBe(2)
  })

  it("opens at most maxConnections sessions for concurrent sends", async () => {
    const own = await startSmtpSink()
    try {
      await withMailer(sinkOptions(own.port, { maxConnections: 2 }), (mailer) =>
        Effect.forEach(Array.from({ length: 12 }, (_, i) => message({ subject: `c${i}` })), mailer.send, { concurrency: 6 }))
      expect(own.messages).toHaveLength(12)
      expect(new Set(own.messages.map((m) => m.sessionId)).size).toBe(2)
      expect(own.peakConnections()).toBe(2)
    } finally {
      await own.close()
    }
  })

  it("replaces a connection once it has sent maxMessages", async () => {
    await withMailer(sinkOptions(sink.port, { maxConnections: 2, maxMessagesPerConnection: 3 }), (mailer) =>
      Effect.forEach(Array.from({ length: 12 }, (_, i) => message({ subject: `c${i}` })), mailer.send, { concurrency: 2 }))
    expect(sink.messages).toHaveLength(12)
    const perSession = new Map<string, number>()
    for (const m of sink.messages) perSession.set(m.sessionId, (perSession.get(m.sessionId) ?? 0) + 1)
    expect([...perSession.values()]).toEqual([3, 3, 3, 3])
  })
})

describe("SmtpMailer: login and TLS", () => {
  it("logs in with the configured credentials, and a refused login is a MailerError without the password", async () => {
    const sink = await startSmtpSink({ auth: { user: "mailroom", pass: "s3cret-pass" } })
    try {
      const ok = await send(sink, message(), { auth: { user: "mailroom", pass: "s3cret-pass" } })
      expect(ok.recipients[0]!.status).toBe("accepted")
      const error: MailerError = await sendFailing(sink.port, message(), { auth: { user: "mailroom", pass: "wrong-pass" } })
      expect(error.detail).toContain("535")
      expect(error.detail).not.toContain("wrong-pass")
      expect(sink.messages).toHaveLength(1)
    } finally {
      await sink.close()
    }
  })

  it("smtps: TLS from the first byte; an unverifiable certificate is refused unless rejectUnauthorized is false", async () => {
    const sink = await startSmtpSink({ secure: true })
    try {
      const refused = await sendFailing(sink.port, message(), { secure: true })
      expect(refused._tag).toBe("MailerError")
      const sent = await send(sink, message(), { secure: true, rejectUnauthorized: false })
      expect(sent.recipients[0]!.status).toBe("accepted")
      expect(sink.messages).toHaveLength(1)
    } finally {
      await sink.close()
    }
  })

  it("STARTTLS: required refuses a relay that does not offer it, and upgrades when it does", async () => {
    const plain = await startSmtpSink()
    const tls = await startSmtpSink({ starttls: true })
    try {
      const refused = await sendFailing(plain.port, message(), { starttls: "required" })
      expect(refused._tag).toBe("MailerError")
      expect(plain.messages).toEqual([])
      const sent = await send(tls, message(), { starttls: "required", rejectUnauthorized: false })
      expect(sent.recipients[0]!.status).toBe("accepted")
      const unverified = await sendFailing(tls.port, message(), { starttls: "required" })
      expect(unverified._tag).toBe("MailerError")
    } finally {
      await plain.close()
      await tls.close()
    }
  })
})

describe("SmtpMailer: DKIM", () => {
  it("signs with the message's key, and the signature verifies against the published key", async () => {
    const sink = await startSmtpSink()
    try {
      const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
      const record = `v=DKIM1; k=rsa; p=${publicKey.export({ type: "spki", format: "der" }).toString("base64")}`
      await send(sink, message({
        dkim: { domainName: "example.com", keySelector: "mr2026", privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString() },
      }))
      const raw = sink.messages[0]!.raw
      expect(raw.startsWith("DKIM-Signature:")).toBe(true)
      const resolver = async (name: string, type: string) => {
        if (name === "mr2026._domainkey.example.com" && type === "TXT") return [[record]]
        throw Object.assign(new Error(`no ${type} for ${name}`), { code: "ENOTFOUND" })
      }
      const verified = await dkimVerify(Buffer.from(raw), { resolver })
      expect(verified.results.map((r) => [r.signingDomain, r.selector, r.status.result])).toEqual([["example.com", "mr2026", "pass"]])
      // Changing a signed header breaks the signature: the check above can fail.
      const tampered = await dkimVerify(Buffer.from(raw.replace("Subject: Hello Ada", "Subject: Hello Eve")), { resolver })
      expect(tampered.results[0]!.status.result).toBe("fail")
    } finally {
      await sink.close()
    }
  })

  it("a message without a key is not signed", async () => {
    const sink = await startSmtpSink()
    try {
      await send(sink)
      expect(sink.messages[0]!.raw).not.toMatch(/^DKIM-Signature:/im)
    } finally {
      await sink.close()
    }
  })
})
