/** Operator alerts POSTed to ALERT_WEBHOOK_URL (docs/canary.md, "Alerts"), against a real HTTP receiver on 127.0.0.1:
 *  email_canary_failed (Critical) from a canary run whose relay cannot be reached, and email_canary_stale (High) from the
 *  staleness watch, each a JSON body signed as Mailroom's outgoing webhooks are (verified with `standardwebhooks`);
 *  a failing receiver is tried again under the same webhook-id; the variables are read by the starter's environment,
 *  and a bad URL or secret is refused with one line that names the variable. */
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { startWebhookReceiver, type WebhookReceiver } from "@mailroom/testing"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EnvironmentError, readEnvironment } from "../src/environment.js"
import { createMailroom, type Mailroom, type MailroomConfig } from "../src/index.js"

const secret = `whsec_${randomBytes(32).toString("base64")}`
const root = fileURLToPath(new URL("../../../", import.meta.url))

/** A TCP port on 127.0.0.1 that nothing listens on. */
const closedPort = () => new Promise<number>((resolve) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address() as { port: number }
    probe.close(() => resolve(port))
  })
})

describe("alerts to ALERT_WEBHOOK_URL", () => {
  let receiver: WebhookReceiver
  const opened: Array<Mailroom> = []
  const open = async (config: Partial<MailroomConfig>) => {
    const mailroom = createMailroom({
      database: `sqlite:${join(mkdtempSync(join(tmpdir(), "mailroom-alerts-")), "db.sqlite")}`,
      cronToken: "cron-secret", backgroundWork: false, logLevel: "error",
      alerts: { webhook: { url: `${receiver.origin}/alerts`, secret, retryDelaysMs: [100, 100] } },
      canary: { address: "canary@canary.test", from: "canary@canary.test", readTimeout: "2 seconds" },
      ...config,
    })
    opened.push(mailroom)
    await mailroom.ready()
    return mailroom
  }
  const alertRequests = () => receiver.requests.filter((request) => request.path === "/alerts")
  /** The alert of one request, its signature verified as a Standard Webhooks receiver would. */
  const verified = (index: number) => {
    const request = alertRequests()[index]!
    return { request, alert: new Webhook(secret).verify(request.body, request.headers) as Record<string, any> }
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver()
  })
  afterAll(async () => {
    for (const mailroom of opened) await mailroom.close()
    await receiver?.close()
  })

  it("a failed canary run POSTs email_canary_failed (critical) with the run, signed with ALERT_WEBHOOK_SECRET", async () => {
    receiver.requests.length = 0
    const mailroom = await open({ smtpUrl: `smtp://127.0.0.1:${await closedPort()}` })
    const answer = await mailroom.fetch(new Request("http://localhost/api/cron/email-canary", {
      method: "POST", headers: { authorization: "Bearer cron-secret" },
    }))
    expect(answer.status).toBe(502)
    const run = (await answer.json()).data
    await receiver.waitFor(1, 10_000)
    const { request, alert } = verified(0)
    expect(request.method).toBe("POST")
    expect(request.headers["content-type"]).toBe("application/json")
    expect(request.headers["x-service-event"]).toBe("email_canary_failed")
    expect(request.headers["webhook-id"]).toBe(alert.id)
    expect(alert).toEqual({
      type: "alert", id: expect.stringMatching(/^alrt_/), name: "email_canary_failed", severity: "critical",
      message: expect.stringContaining(run.id), raisedAt: expect.any(String), details: { run },
    })
    // The same body fails verification with another secret.
    expect(() => new Webhook(`whsec_${randomBytes(32).toString("base64")}`).verify(request.body, request.headers)).toThrow()
  })

  it("no run within the expected interval POSTs email_canary_stale (high), with the last run (none yet)", async () => {
    receiver.requests.length = 0
    await open({
      backgroundWork: true,
      canary: { address: "canary@canary.test", from: "canary@canary.test", staleAfter: "1 second", staleCheckInterval: "100 millis" },
    })
    await receiver.waitFor(1, 10_000)
    const { request, alert } = verified(0)
    expect(request.headers["x-service-event"]).toBe("email_canary_stale")
    expect(alert).toEqual({
      type: "alert", id: expect.stringMatching(/^alrt_/), name: "email_canary_stale", severity: "high",
      message: expect.any(String), raisedAt: expect.any(String), details: { lastRun: null },
    })
  })

  it("a receiver that answers 500 is tried again with the same webhook-id until it answers 2xx", async () => {
    receiver.requests.length = 0
    receiver.answer = (request) => alertRequests().indexOf(request) < 2 ? { status: 500, body: "down" } : { status: 204 }
    try {
      const mailroom = await open({ smtpUrl: `smtp://127.0.0.1:${await closedPort()}` })
      await mailroom.fetch(new Request("http://localhost/api/cron/email-canary", { method: "POST", headers: { authorization: "Bearer cron-secret" } }))
      await receiver.waitFor(3, 10_000)
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(alertRequests()).toHaveLength(3)
      expect(new Set(alertRequests().map((request) => request.headers["webhook-id"])).size).toBe(1)
      expect([0, 1, 2].map((index) => verified(index).alert.name)).toEqual(["email_canary_failed", "email_canary_failed", "email_canary_failed"])
    } finally {
      receiver.answer = () => ({ status: 200, body: "ok" })
    }
  })

  it("without a secret the body is sent unsigned", async () => {
    receiver.requests.length = 0
    const mailroom = await open({
      smtpUrl: `smtp://127.0.0.1:${await closedPort()}`, alerts: { webhook: { url: `${receiver.origin}/alerts` } },
    })
    await mailroom.fetch(new Request("http://localhost/api/cron/email-canary", { method: "POST", headers: { authorization: "Bearer cron-secret" } }))
    await receiver.waitFor(1, 10_000)
    const request = alertRequests()[0]!
    expect(request.headers["webhook-signature"]).toBeUndefined()
    expect(JSON.parse(request.body)).toEqual(expect.objectContaining({ name: "email_canary_failed", severity: "critical" }))
  })
})

describe("ALERT_WEBHOOK_URL and ALERT_WEBHOOK_SECRET in the environment", () => {
  it("are read into alerts.webhook; unset, alerts are only logged", () => {
    expect(readEnvironment({ ALERT_WEBHOOK_URL: "https://ops.example.com/alerts", ALERT_WEBHOOK_SECRET: secret }).mailroom.alerts)
      .toEqual({ webhook: { url: "https://ops.example.com/alerts", secret } })
    expect(readEnvironment({ ALERT_WEBHOOK_URL: "http://127.0.0.1:9000/hook" }).mailroom.alerts)
      .toEqual({ webhook: { url: "http://127.0.0.1:9000/hook" } })
    expect(readEnvironment({}).mailroom.alerts).toBeUndefined()
  })

  it.each([
    ["a URL that does not parse", { ALERT_WEBHOOK_URL: "ops.example.com/alerts" }, /^ALERT_WEBHOOK_URL must be an http:\/\/ or https:\/\/ URL/],
    ["another scheme", { ALERT_WEBHOOK_URL: "ftp://ops.example.com/alerts" }, /^ALERT_WEBHOOK_URL must be an http:\/\/ or https:\/\/ URL/],
    ["credentials in the URL", { ALERT_WEBHOOK_URL: "https://ops:hunter2@ops.example.com/" }, /^ALERT_WEBHOOK_URL must not carry a user name or password/],
    ["a secret without the whsec_ prefix", { ALERT_WEBHOOK_URL: "https://ops.example.com/", ALERT_WEBHOOK_SECRET: "hunter2" }, /^ALERT_WEBHOOK_SECRET must be whsec_/],
    ["a secret too short", { ALERT_WEBHOOK_URL: "https://ops.example.com/", ALERT_WEBHOOK_SECRET: "whsec_c2hvcnQ=" }, /^ALERT_WEBHOOK_SECRET must be whsec_/],
    ["a secret without a URL", { ALERT_WEBHOOK_SECRET: secret }, /^ALERT_WEBHOOK_SECRET is set but ALERT_WEBHOOK_URL is not/],
  ])("refuses %s with one line naming the variable", (_, env, message) => {
    expect(() => readEnvironment(env)).toThrow(EnvironmentError)
    expect(() => readEnvironment(env)).toThrow(message)
    expect(() => readEnvironment(env)).not.toThrow(/hunter2|\n/)
  })

  it("the starter refuses a bad ALERT_WEBHOOK_URL at startup with that one line on stderr and exit code 1", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, ALERT_WEBHOOK_URL: "not a url", PORT: "0", DATABASE_URL: "memory:" }
    const started = spawnSync(process.execPath, ["scripts/start.mjs"], { cwd: root, env, encoding: "utf8", timeout: 120_000 })
    expect(started.status).toBe(1)
    const lines = started.stderr.split("\n").filter((line) => line.trim() !== "" && !/^(built|building)\b/.test(line))
    expect(lines).toEqual(['ALERT_WEBHOOK_URL must be an http:// or https:// URL, not "not a url"'])
  })
})
