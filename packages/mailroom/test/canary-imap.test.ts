/** The delivery canary in production form: mail goes through a real SMTP relay (the test's smtp-server sink, which
 *  files what it accepts into a Dovecot Maildir as an MTA would) and is read back over IMAP from Dovecot (Debian's
 *  dovecot-imapd, started by the test), then checked with mailauth against a local DNS server: SPF (the Received
 *  header's 127.0.0.1), DKIM and DMARC pass. Also a message that never arrives (a timeout: a failed run and
 *  email_canary_failed) and a mailbox that refuses the login. Under CI=true a missing Dovecot fails these tests. */
import { generateKeyPairSync } from "node:crypto"
import type { CanaryAlert } from "@mailroom/core"
import {
  dovecotRequired, type SmtpSink, startDnsServer, startDovecot, startSmtpSink, type TestDnsServer, type TestDovecot, txtChunks,
} from "@mailroom/testing"
import type { Duration } from "effect"
import { ImapFlow } from "imapflow"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMailroom, type Mailroom } from "../src/index.js"

const dovecot = await startDovecot()
if (dovecot === undefined) console.warn("Dovecot (/usr/sbin/dovecot) is not installed: the IMAP canary tests are skipped. apt-get install -y dovecot-imapd")

const keys = generateKeyPairSync("rsa", { modulusLength: 2048 })
const privateKey = keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString()
const publicKey = keys.publicKey.export({ type: "spki", format: "der" }).toString("base64")

const post = async (mailroom: Mailroom) => {
  const response = await mailroom.fetch(new Request("http://localhost/api/cron/email-canary", {
    method: "POST", headers: { authorization: "Bearer cron-secret" },
  }))
  return { status: response.status, json: await response.json() as { data: Record<string, any> } }
}

/** The messages left in the Dovecot INBOX. */
const inboxCount = async (server: TestDovecot) => {
  const url = new URL(server.url)
  const client = new ImapFlow({ host: url.hostname, port: Number(url.port), secure: false, auth: { user: url.username, pass: url.password }, logger: false })
  await client.connect()
  const status = await client.status("INBOX", { messages: true })
  await client.logout()
  if (status === false) throw new Error("Dovecot refused STATUS INBOX")
  return status.messages
}

describe.skipIf(dovecot === undefined && !dovecotRequired())("delivery canary over SMTP and IMAP (Dovecot)", () => {
  let dns: TestDnsServer
  let sink: SmtpSink
  let filing = true
  const alerts: Array<CanaryAlert> = []
  const opened: Array<Mailroom> = []
  const open = async (imapUrl: string, readTimeout: Duration.DurationInput = "10 seconds") => {
    const mailroom = createMailroom({
      database: "memory:", backgroundWork: false, cronToken: "cron-secret", smtpUrl: sink.url,
      dnsServers: [dns.server], dns: { timeoutMs: 500, tries: 1, cache: false },
      delivery: { dkimKeys: [{ domainName: "canary.test", keySelector: "default", privateKey }] },
      canary: { address: "canary@canary.test", from: "canary@canary.test", imapUrl, readTimeout, pollInterval: "200 millis" },
      alerts: { notify: (alert) => { alerts.push(alert) } },
    })
    opened.push(mailroom)
    await mailroom.ready()
    return mailroom
  }
  beforeAll(async () => {
    if (dovecot === undefined) throw new Error("Dovecot is required here (CI=true): apt-get install -y dovecot-imapd")
    dns = await startDnsServer({
      "canary.test": { txt: ["v=spf1 ip4:127.0.0.1 -all"] },
      "default._domainkey.canary.test": { txt: [txtChunks(`v=DKIM1; k=rsa; p=${publicKey}`)] },
      "_dmarc.canary.test": { txt: ["v=DMARC1; p=reject"] },
    })
    sink = await startSmtpSink({
      behaviour: { data: (message) => { if (filing) dovecot.deliver(message.raw, message.mailFrom); return undefined } },
    })
  })
  afterAll(async () => {
    for (const mailroom of opened) await mailroom.close()
    await sink?.close()
    await dns?.close()
    await dovecot?.close()
  })

  it("a run sends through the relay, finds its message in the IMAP mailbox, removes it, and SPF, DKIM and DMARC pass", async () => {
    const mailroom = await open(dovecot!.url)
    const answer = await post(mailroom)
    expect(answer.status, JSON.stringify(answer.json)).toBe(200)
    expect(answer.json.data).toMatchObject({
      status: "passed", recipient: "canary@canary.test", authentication: { spf: "pass", dkim: "pass", dmarc: "pass" }, error: null,
    })
    expect(answer.json.data.latencyMs).toBeGreaterThanOrEqual(0)
    expect(sink.messagesTo("canary@canary.test").at(-1)?.raw).toMatch(/^DKIM-Signature: .*d=canary\.test/)
    expect(await inboxCount(dovecot!)).toBe(0)
  })

  it("a message the relay accepts but that never arrives fails the run after the read timeout, with email_canary_failed", async () => {
    const mailroom = await open(dovecot!.url, "2 seconds")
    filing = false
    try {
      const answer = await post(mailroom)
      expect(answer.status).toBe(502)
      expect(answer.json.data).toMatchObject({ status: "failed", latencyMs: null, authentication: null, error: "the message did not arrive within 2s" })
      expect(alerts.some((alert) => alert.name === "email_canary_failed" && alert.run.id === answer.json.data["id"])).toBe(true)
    } finally {
      filing = true
    }
  })

  it("a mailbox that refuses the login fails the run, saying the mailbox could not be read", async () => {
    const wrong = new URL(dovecot!.url)
    wrong.password = "not-the-password"
    const mailroom = await open(wrong.toString())
    const answer = await post(mailroom)
    expect(answer.status).toBe(502)
    expect(answer.json.data["error"]).toMatch(/^the mailbox could not be read: IMAP 127\.0\.0\.1:/)
    expect(await inboxCount(dovecot!)).toBe(1)
  })
})
