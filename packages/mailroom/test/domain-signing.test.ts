/** DKIM signing with real parts: a domain added over HTTP, its records published in a DNS server on 127.0.0.1, verified;
 *  mail from it reaches an SMTP sink signed, and mailauth verifies the signature against the same DNS server. Mail from
 *  a domain that is not verified carries no signature of Mailroom's; under the verified-only sender policy it is
 *  refused. The dev outbox keeps the signed message too. */
import { promises as nodeDns } from "node:dns"
import { domainsTargetConfig, type SmtpSink, startDnsServer, startSmtpSink, type TestDnsServer, txtChunks } from "@mailroom/testing"
import { dkimVerify } from "mailauth/lib/dkim/verify.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMailroom, type Mailroom, type MailroomConfig } from "../src/index.js"

const adminToken = "signing-admin-token"
let dns: TestDnsServer
let sink: SmtpSink
beforeAll(async () => {
  dns = await startDnsServer()
  sink = await startSmtpSink()
})
afterAll(async () => {
  await sink.close()
  await dns.close()
})

const call = async (mailroom: Mailroom, method: string, path: string, key: string, body?: unknown) => {
  const response = await mailroom.fetch(new Request(`http://mailroom.test${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }))
  return { status: response.status, json: await response.json() }
}

const start = async (config: Partial<MailroomConfig>) => {
  const mailroom = createMailroom({ database: "memory:", adminToken, shutdownGraceMillis: 1_000, ...domainsTargetConfig(dns.server), ...config })
  await mailroom.ready()
  const { apiKey } = await mailroom.accounts.create({ name: "signing", plan: "pro" })
  return { mailroom, key: apiKey }
}

/** Adds `hostname`, publishes the records it lists (the DKIM key in 255-byte strings) and verifies it. */
const verifiedDomain = async (mailroom: Mailroom, key: string, hostname: string) => {
  const added = await call(mailroom, "POST", "/v1/domains", key, { hostname })
  expect(added.status).toBe(201)
  const records = added.json.data.dnsRecords
  dns.zone.set(hostname, { txt: [records.verification.value, records.spf.value] })
  dns.zone.set(records.dkim.host, { txt: [txtChunks(records.dkim.value)] })
  dns.zone.set(records.dmarc.host, { txt: [records.dmarc.value] })
  const verified = await call(mailroom, "POST", `/v1/domains/${added.json.data.id}/verify`, key)
  expect(verified.json.data.status).toBe("verified")
  return added.json.data
}

const send = (mailroom: Mailroom, key: string, from: string, to: string) =>
  call(mailroom, "POST", "/v1/emails/send", key, {
    from: { email: from, name: "Ada" }, to: [{ email: to }],
    content: { subject: "Signed hello", html: "<p>Hello from a verified domain</p>", text: "Hello from a verified domain" },
  })

/** mailauth's DKIM check, asking the test DNS server. */
const verifyDkim = (raw: string) => {
  const resolver = new nodeDns.Resolver()
  resolver.setServers([dns.server])
  return dkimVerify(Buffer.from(raw), { resolver: (name: string, type: string) => resolver.resolve(name, type as "TXT") })
}

describe("DKIM signing of mail from verified domains", () => {
  it("signs mail from a verified domain (relaxed/relaxed, RFC 6376's headers) so that mailauth passes it; mail from another domain is not signed", async () => {
    const { mailroom, key } = await start({ smtpUrl: sink.url })
    try {
      await verifiedDomain(mailroom, key, "signed.example")
      expect((await send(mailroom, key, "ada@Signed.example", "grace@receiver.test")).status).toBe(200)
      expect((await send(mailroom, key, "ada@unverified.example", "alan@receiver.test")).status).toBe(200)
      await sink.waitForMessages(2, 15_000)

      const signed = sink.messagesTo("grace@receiver.test")[0]!.raw
      const result = await verifyDkim(signed)
      expect(result.results.map((r: any) => [r.signingDomain, r.selector, r.status.result])).toEqual([["signed.example", "default", "pass"]])
      const signature = /^DKIM-Signature:([^]*?)\r?\n(?=\S)/m.exec(signed)![1]!.replace(/\s+/g, "")
      expect(signature).toContain("c=relaxed/relaxed")
      const headers = /(?:^|;)h=([^;]+)/.exec(signature)![1]!.toLowerCase().split(":")
      for (const header of ["from", "to", "subject", "date", "message-id"]) expect(headers).toContain(header)
      const tampered = await verifyDkim(signed.replace("Subject: Signed hello", "Subject: Changed"))
      expect(tampered.results[0]?.status.result).toBe("fail")

      const unsigned = sink.messagesTo("alan@receiver.test")[0]!.raw
      expect(unsigned).not.toMatch(/^DKIM-Signature:/im)
    } finally {
      await mailroom.close()
      sink.reset()
    }
  })

  it("stops signing a domain once it is deleted", async () => {
    const { mailroom, key } = await start({ smtpUrl: sink.url })
    try {
      const domain = await verifiedDomain(mailroom, key, "deleted.example")
      expect((await call(mailroom, "DELETE", `/v1/domains/${domain.id}`, key)).status).toBe(200)
      expect((await send(mailroom, key, "ada@deleted.example", "grace@receiver.test")).status).toBe(200)
      const [message] = await sink.waitForMessages(1, 15_000)
      expect(message!.raw).not.toMatch(/^DKIM-Signature:/im)
    } finally {
      await mailroom.close()
      sink.reset()
    }
  })

  it("keeps the signed message in the dev outbox, where its DKIM-Signature header can be read", async () => {
    const { mailroom, key } = await start({})
    try {
      await verifiedDomain(mailroom, key, "outbox.example")
      expect((await send(mailroom, key, "ada@outbox.example", "grace@receiver.test")).status).toBe(200)
      let entry: any
      for (let tries = 0; tries < 100 && entry === undefined; tries++) {
        entry = (await call(mailroom, "GET", "/admin/outbox?to=grace@receiver.test", adminToken)).json.data[0]
        if (entry === undefined) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(entry.headers["dkim-signature"]).toMatch(/d=outbox\.example;.*s=default;/s)
    } finally {
      await mailroom.close()
    }
  })

  it("under the verified-only sender policy, refuses a send from an unverified domain with 403 naming it, and sends from a verified one", async () => {
    const { mailroom, key } = await start({ smtpUrl: sink.url, senderPolicy: "verified-only" })
    try {
      await verifiedDomain(mailroom, key, "policy.example")
      const refused = await send(mailroom, key, "ada@elsewhere.example", "grace@receiver.test")
      expect([refused.status, refused.json.error.code]).toEqual([403, "SENDER_DOMAIN_NOT_VERIFIED"])
      expect(refused.json.error.message).toContain("elsewhere.example")
      const batch = await call(mailroom, "POST", "/v1/emails/batch", key, {
        from: { email: "ada@elsewhere.example" }, recipients: [{ to: { email: "grace@receiver.test" } }],
        content: { subject: "s", text: "t" },
      })
      expect([batch.status, batch.json.error.code]).toEqual([403, "SENDER_DOMAIN_NOT_VERIFIED"])
      expect((await send(mailroom, key, "ada@policy.example", "grace@receiver.test")).status).toBe(200)
      const [message] = await sink.waitForMessages(1, 15_000)
      expect(message!.raw).toMatch(/^DKIM-Signature:.*d=policy\.example/ims)
    } finally {
      await mailroom.close()
      sink.reset()
    }
  })
})
