/** docs/domains.md followed on the main starter, as a new user would: `node scripts/start.mjs` with DNS_SERVERS pointing
 *  at a local DNS server, a Starter account, a domain added, the records it lists published, verified at once (the
 *  starter's DNS cache left on), then a send from it whose message waits in the dev outbox with its DKIM signature,
 *  which mailauth verifies (as the guide shows) from the raw message of GET /admin/outbox/{id}/raw against the same DNS
 *  server; a send from a domain the account has not verified is not signed. */
import { type ChildProcess, spawn } from "node:child_process"
import { promises as nodeDns } from "node:dns"
import { once } from "node:events"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { startDnsServer, type TestDnsServer, txtChunks } from "@mailroom/testing"
import { dkimVerify } from "mailauth/lib/dkim/verify.js"
import { afterAll, expect, it } from "vitest"
import { freePort } from "./free-port.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const adminToken = "domains-guide-admin-token"
const directory = mkdtempSync(join(tmpdir(), "mailroom-starter-domains-"))
let child: ChildProcess | undefined
let dns: TestDnsServer | undefined

afterAll(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM")
    await Promise.race([once(child, "exit"), new Promise((resolve) => setTimeout(resolve, 5_000))])
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }
  await dns?.close()
  rmSync(directory, { recursive: true, force: true })
})

/** Boots the starter; resolves with the URL of its first stdout line. */
const boot = async (variables: Record<string, string>): Promise<string> => {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ["PORT", "HOST", "DATABASE_URL", "ADMIN_TOKEN", "SMTP_URL", "DNS_SERVERS", "SPF_INCLUDE", "DMARC_REPORT_ADDRESS", "APP_URL"]) {
    delete env[name]
  }
  const started = spawn(process.execPath, ["scripts/start.mjs"], { cwd: root, env: { ...env, ...variables }, stdio: ["ignore", "pipe", "pipe"] })
  child = started
  let stdout = ""
  let stderr = ""
  started.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  return new Promise<string>((resolve, reject) => {
    started.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      const url = stdout.includes("\n") ? /https?:\/\/\S+/.exec(stdout.split("\n")[0]!)?.[0] : undefined
      if (url !== undefined) resolve(url)
    })
    started.once("exit", (code) => reject(new Error(`the starter exited (${code}) before it printed its URL\n${stdout}\n${stderr}`)))
  })
}

it("adds a domain, verifies the records published for it, and signs mail sent from it", { timeout: 300_000 }, async () => {
  dns = await startDnsServer()
  const base = await boot({
    PORT: String(await freePort()),
    HOST: "127.0.0.1",
    DATABASE_URL: `sqlite:${join(directory, "guide.sqlite")}`,
    ADMIN_TOKEN: adminToken,
    DNS_SERVERS: dns.server,
    // As docs/domains.md starts it.
    SPF_INCLUDE: "_spf.mailroom.example",
    DMARC_REPORT_ADDRESS: "dmarc@mailroom.example",
  })
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: response.status, json: await response.json() }
  }

  const account = await call("POST", "/admin/accounts", adminToken, { plan: "starter" })
  const key = account.json.apiKey as string
  const added = await call("POST", "/v1/domains", key, { hostname: "Mail.Example.com" })
  expect(added.status).toBe(201)
  const domain = added.json.data
  expect(domain.dnsRecords.spf.value).toBe("v=spf1 include:_spf.mailroom.example -all")
  expect(domain.dnsRecords.dmarc.value).toBe("v=DMARC1; p=quarantine; rua=mailto:dmarc@mailroom.example")

  const records = domain.dnsRecords
  dns.zone.set("mail.example.com", { txt: [records.verification.value, records.spf.value], ttl: 300 })
  dns.zone.set(records.dkim.host, { txt: [txtChunks(records.dkim.value)], ttl: 300 })
  dns.zone.set(records.dmarc.host, { txt: [records.dmarc.value], ttl: 300 })
  const verified = await call("POST", `/v1/domains/${domain.id}/verify`, key)
  expect(verified.status).toBe(200)
  expect(verified.json.data.status).toBe("verified")

  const sent = await call("POST", "/v1/emails/send", key, {
    from: { email: "hello@mail.example.com" }, to: [{ email: "ada@example.org" }], content: { subject: "Hi", text: "Signed." },
  })
  expect(sent.status).toBe(200)
  let entry: any
  for (let tries = 0; tries < 100 && entry === undefined; tries++) {
    entry = (await call("GET", "/admin/outbox?to=ada@example.org", adminToken)).json.data[0]
    if (entry === undefined) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  expect(entry.headers["dkim-signature"]).toMatch(/c=relaxed\/relaxed;.*d=mail\.example\.com;.*s=default;/s)

  // docs/domains.md, step 4: the raw message from the outbox, checked by mailauth against the same DNS server.
  const raw = await fetch(`${base}/admin/outbox/${entry.id}/raw`, { headers: { authorization: `Bearer ${adminToken}` } })
  expect(raw.status).toBe(200)
  expect(raw.headers.get("content-type")).toBe("message/rfc822")
  const resolver = new nodeDns.Resolver()
  resolver.setServers([dns.server])
  const { results } = await dkimVerify(Buffer.from(await raw.text()), {
    resolver: (name: string, type: string) => resolver.resolve(name, type as "TXT"),
  })
  expect(results.map((result: any) => `${result.signingDomain} ${result.selector} ${result.status.result}`))
    .toEqual(["mail.example.com default pass"])
  expect((await fetch(`${base}/admin/outbox/out_unknown/raw`, { headers: { authorization: `Bearer ${adminToken}` } })).status).toBe(404)

  // Mail from a domain the account has not verified goes out unsigned.
  const unsigned = await call("POST", "/v1/emails/send", key, {
    from: { email: "hello@other.example.com" }, to: [{ email: "bea@example.org" }], content: { subject: "Hi", text: "Not signed." },
  })
  expect(unsigned.status).toBe(200)
  let other: any
  for (let tries = 0; tries < 100 && other === undefined; tries++) {
    other = (await call("GET", "/admin/outbox?to=bea@example.org", adminToken)).json.data[0]
    if (other === undefined) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  expect(other.headers["dkim-signature"]).toBeUndefined()
})
