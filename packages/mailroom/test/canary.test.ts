/** The delivery canary end to end through createMailroom, on every backend: POST /api/cron/email-canary with the cron
 *  token sends a real message through the dev outbox (signed with a configured DKIM key), reads it back, and records the
 *  latency and the SPF, DKIM and DMARC results that mailauth finds against a local DNS server; the run is listed at GET
 *  /admin/canary/runs. Also: the route without CRON_TOKEN (404) and with a wrong token (401), a relay that fails (a
 *  failed run and email_canary_failed), and the staleness watch (email_canary_stale, once per stale spell). */
import { generateKeyPairSync } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createServer } from "node:net"
import type { CanaryAlert } from "@mailroom/core"
import { findTestPostgres, scratchPostgres, startDnsServer, type TestDnsServer, txtChunks } from "@mailroom/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMailroom, type Mailroom, type MailroomConfig } from "../src/index.js"

const keys = generateKeyPairSync("rsa", { modulusLength: 2048 })
const privateKey = keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString()
const publicKey = keys.publicKey.export({ type: "spki", format: "der" }).toString("base64")

/** A TCP port on 127.0.0.1 that nothing listens on. */
const closedPort = () => new Promise<number>((resolve) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address() as { port: number }
    probe.close(() => resolve(port))
  })
})

const call = async (mailroom: Mailroom, method: string, path: string, token?: string) => {
  const response = await mailroom.fetch(new Request(`http://localhost${path}`, {
    method, headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  }))
  const text = await response.text()
  return { status: response.status, text, json: text === "" ? undefined : JSON.parse(text) }
}

const canarySuite = (backend: string, database: () => string) =>
  describe(`delivery canary (${backend})`, () => {
    let dns: TestDnsServer
    const alerts: Array<CanaryAlert> = []
    const opened: Array<Mailroom> = []
    const open = async (config: MailroomConfig) => {
      const mailroom = createMailroom({
        database: database(), adminToken: "admin-secret", dnsServers: [dns.server], dns: { timeoutMs: 500, tries: 1, cache: false },
        alerts: { notify: (alert) => { alerts.push(alert) } }, backgroundWork: false, ...config,
      })
      opened.push(mailroom)
      await mailroom.ready()
      return mailroom
    }
    beforeAll(async () => {
      dns = await startDnsServer({
        "canary.test": { txt: ["v=spf1 -all"] },
        "default._domainkey.canary.test": { txt: [txtChunks(`v=DKIM1; k=rsa; p=${publicKey}`)] },
        "_dmarc.canary.test": { txt: ["v=DMARC1; p=reject"] },
      })
    })
    afterAll(async () => {
      for (const mailroom of opened) await mailroom.close()
      await dns?.close()
    })
    const canary = { address: "canary@canary.test", from: "canary@canary.test", readTimeout: "5 seconds" } as const
    const dkim = { dkimKeys: [{ domainName: "canary.test", keySelector: "default", privateKey }] }

    it("without CRON_TOKEN the route answers 404; with a wrong or missing token 401, and nothing runs", async () => {
      const unset = await open({ canary })
      expect((await call(unset, "POST", "/api/cron/email-canary", "anything")).status).toBe(404)
      const set = await open({ cronToken: "cron-secret", canary })
      const wrong = await call(set, "POST", "/api/cron/email-canary", "cron-secreT")
      expect([wrong.status, wrong.json.error.code]).toEqual([401, "INVALID_CREDENTIALS"])
      const longer = await call(set, "POST", "/api/cron/email-canary", "cron-secret-and-more")
      expect(longer.status).toBe(401)
      const missing = await call(set, "POST", "/api/cron/email-canary")
      expect([missing.status, missing.json.error.code]).toEqual([401, "UNAUTHORIZED"])
      expect((await call(set, "GET", "/admin/canary/runs", "admin-secret")).json.data).toEqual([])
    })

    it("a run through the dev outbox reads its message back, signed: DKIM and DMARC pass, SPF none (it never crossed SMTP)", async () => {
      const mailroom = await open({ cronToken: "cron-secret", canary, delivery: dkim })
      const answer = await call(mailroom, "POST", "/api/cron/email-canary", "cron-secret")
      expect(answer.status, answer.text).toBe(200)
      const run = answer.json.data
      expect(run).toEqual({
        id: expect.stringMatching(/^cnr_/), status: "passed", recipient: "canary@canary.test", messageId: expect.stringMatching(/^<.+>$/),
        startedAt: expect.any(String), finishedAt: expect.any(String), latencyMs: expect.any(Number),
        authentication: { spf: "none", dkim: "pass", dmarc: "pass" }, error: null,
      })
      expect(run.latencyMs).toBeGreaterThanOrEqual(0)
      const listed = await call(mailroom, "GET", "/admin/canary/runs?limit=5", "admin-secret")
      expect(listed.json.data[0]).toEqual(run)
      const outbox = await call(mailroom, "GET", "/admin/outbox?to=canary@canary.test", "admin-secret")
      expect(outbox.json.data[0].headers["dkim-signature"]).toMatch(/d=canary\.test/)
      expect(alerts.filter((alert) => alert.name === "email_canary_failed" && alert.run.id === run.id)).toEqual([])
    })

    it("a message whose DKIM signature does not verify fails the run and raises email_canary_failed", async () => {
      const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString()
      const mailroom = await open({
        cronToken: "cron-secret", canary, delivery: { dkimKeys: [{ domainName: "canary.test", keySelector: "default", privateKey: other }] },
      })
      const answer = await call(mailroom, "POST", "/api/cron/email-canary", "cron-secret")
      expect(answer.status, answer.text).toBe(502)
      expect(answer.json.data.authentication.dkim).toBe("fail")
      expect(answer.json.data.error).toMatch(/DKIM \(fail\)/)
      expect(alerts.some((alert) => alert.name === "email_canary_failed" && alert.run.id === answer.json.data.id)).toBe(true)
    })

    it("a relay that cannot be reached fails the run at once, records it and raises email_canary_failed (Critical)", async () => {
      const mailroom = await open({
        cronToken: "cron-secret", canary: { ...canary, imapUrl: "imap://canary:secret@127.0.0.1:1/INBOX" },
        smtpUrl: `smtp://127.0.0.1:${await closedPort()}`,
      })
      const answer = await call(mailroom, "POST", "/api/cron/email-canary", "cron-secret")
      expect(answer.status, answer.text).toBe(502)
      const run = answer.json.data
      expect([run.status, run.messageId, run.latencyMs, run.authentication]).toEqual(["failed", null, null, null])
      expect(run.error).toMatch(/^the relay took nothing/)
      const alert = alerts.find((one) => one.name === "email_canary_failed" && one.run.id === run.id)
      expect(alert?.severity).toBe("critical")
      expect((await call(mailroom, "GET", "/admin/canary/runs", "admin-secret")).json.data.map((one: { id: string }) => one.id)).toContain(run.id)
    })

    it("no run within the expected interval raises email_canary_stale (High) once, and again only after a run", async () => {
      const before = alerts.length
      const mailroom = await open({
        cronToken: "cron-secret", backgroundWork: true, delivery: dkim,
        canary: { ...canary, staleAfter: "1500 millis", staleCheckInterval: "100 millis" },
      })
      const staleAlerts = () => alerts.slice(before).filter((alert) => alert.name === "email_canary_stale")
      await new Promise((resolve) => setTimeout(resolve, 2500))
      expect(staleAlerts().map((alert) => alert.severity)).toEqual(["high"])
      const answer = await call(mailroom, "POST", "/api/cron/email-canary", "cron-secret")
      expect(answer.status, answer.text).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(staleAlerts()).toHaveLength(1)
      await new Promise((resolve) => setTimeout(resolve, 2000))
      expect(staleAlerts()).toHaveLength(2)
      const last = staleAlerts()[1]!
      expect(last.name === "email_canary_stale" && last.lastRun?.id).toBe(answer.json.data.id)
    })
  })

canarySuite("memory", () => "memory:")
canarySuite("sqlite", () => `sqlite:${join(mkdtempSync(join(tmpdir(), "mailroom-canary-")), "db.sqlite")}`)
const url = await findTestPostgres()
// A database of its own: canary runs belong to the platform, so runs of other test files would be listed too.
const scratch = url === undefined ? undefined : await scratchPostgres(url)
afterAll(async () => { await scratch?.drop() })
describe.skipIf(scratch === undefined)("postgres", () => {
  canarySuite("postgres", () => scratch!.url)
})
