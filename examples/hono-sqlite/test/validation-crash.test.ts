/** A bulk validation interrupted by a crash: the main starter (`node scripts/start.mjs`, SQLite file) runs a job of
 *  5,000 addresses against a slow local DNS server, is killed with SIGKILL once part of the results are stored, and is
 *  started again on the same database. The job is taken up again (the queue counts the lost run as a failed attempt
 *  and retries it), resumes after the chunks already stored, and completes with every address's result once, in
 *  order. */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { startDnsServer, type TestDnsServer } from "@mailroom/testing"
import { afterAll, expect, it } from "vitest"
import { freePort } from "./free-port.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const adminToken = "validation-crash-admin-token"
const directory = mkdtempSync(join(tmpdir(), "mailroom-starter-validation-crash-"))
const children: Array<ChildProcess> = []
let dns: TestDnsServer | undefined

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue
    child.kill("SIGTERM")
    await Promise.race([once(child, "exit"), new Promise((resolve) => setTimeout(resolve, 5_000))])
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }
  await dns?.close()
  rmSync(directory, { recursive: true, force: true })
})

/** Boots the starter; resolves with the process and the URL of its first stdout line. */
const boot = async (variables: Record<string, string>) => {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ["PORT", "HOST", "DATABASE_URL", "ADMIN_TOKEN", "SMTP_URL", "DNS_SERVERS", "APP_URL"]) delete env[name]
  const started = spawn(process.execPath, ["scripts/start.mjs"], { cwd: root, env: { ...env, ...variables }, stdio: ["ignore", "pipe", "pipe"] })
  children.push(started)
  let stdout = ""
  let stderr = ""
  started.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const url = await new Promise<string>((resolve, reject) => {
    started.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      const found = stdout.includes("\n") ? /https?:\/\/\S+/.exec(stdout.split("\n")[0]!)?.[0] : undefined
      if (found !== undefined) resolve(found)
    })
    started.once("exit", (code) => reject(new Error(`the starter exited (${code}) before it printed its URL\n${stdout}\n${stderr}`)))
  })
  return { child: started, url }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

it("a bulk job cut short by SIGKILL is retried after a restart and completes, each result once", { timeout: 240_000 }, async () => {
  // 5,000 addresses, 50 per domain in a row: each chunk of 500 meets 10 new domains, whose MX answers take 600 ms.
  dns = await startDnsServer({ "mx.crash.example": { a: ["127.0.0.1"], ttl: 300 } })
  const domainOf = (at: number) => `d${Math.floor(at / 50)}.crash.example`
  const emails = Array.from({ length: 5_000 }, (_, at) => `user${at}@${domainOf(at)}`)
  for (let at = 0; at < 100; at++) {
    dns.zone.set(`d${at}.crash.example`, { mx: [{ exchange: "mx.crash.example", priority: 10 }], ttl: 300, delayMs: 600 })
  }
  const variables = {
    HOST: "127.0.0.1", DATABASE_URL: `sqlite:${join(directory, "crash.sqlite")}`, ADMIN_TOKEN: adminToken, DNS_SERVERS: dns.server,
  }
  const first = await boot({ ...variables, PORT: String(await freePort()) })
  const call = async (base: string, method: string, path: string, token: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: response.status, json: await response.json() }
  }
  const key = (await call(first.url, "POST", "/admin/accounts", adminToken, { plan: "pro" })).json.apiKey as string
  const started = await call(first.url, "POST", "/v1/emails/validate/bulk", key, { emails })
  expect(started.status).toBe(202)
  const id = started.json.data.id as string

  // Killed once some results are stored and before the last.
  let before: Record<string, any> | undefined
  for (let tries = 0; tries < 600; tries++) {
    const job = (await call(first.url, "GET", `/v1/emails/validate/bulk/${id}`, key)).json.data
    if (job.processed > 0) {
      before = job
      break
    }
    await sleep(50)
  }
  first.child.kill("SIGKILL")
  await once(first.child, "exit")
  expect(before).toEqual(expect.objectContaining({ status: "running", total: 5_000, results: null }))
  expect(before!.processed).toBeLessThan(5_000)
  expect(before!.processed % 500).toBe(0)
  const askedBefore = dns.questions.filter((question) => question === `MX ${domainOf(0)}`).length
  expect(askedBefore).toBe(1)

  const second = await boot({ ...variables, PORT: String(await freePort()) })
  let job: Record<string, any> | undefined
  for (let tries = 0; tries < 600 && job?.status !== "completed" && job?.status !== "failed"; tries++) {
    if (tries > 0) await sleep(100)
    job = (await call(second.url, "GET", `/v1/emails/validate/bulk/${id}`, key)).json.data
  }
  expect(job).toEqual(expect.objectContaining({ status: "completed", total: 5_000, processed: 5_000, progress: 100, error: null }))
  // Every address answered once, in the order given, each valid.
  expect(job!.results.map((result: any) => result.email)).toEqual(emails)
  expect(job!.results.every((result: any) => result.valid === true && result.error === null)).toBe(true)
  // The chunks stored before the crash were not checked again: the first domain was asked for once, by the first run.
  expect(dns.questions.filter((question) => question === `MX ${domainOf(0)}`).length).toBe(1)
  // The last domain was asked only after the restart (the first run never reached it).
  expect(dns.questions.filter((question) => question === `MX ${domainOf(4_999)}`).length).toBe(1)
})
