/** A bulk validation job on Postgres whose process is killed with SIGKILL in the middle of a slice: another Mailroom
 *  process (a child running the package builds, as a host would) resumes it from its stored progress once pg-boss's
 *  expiry of the slice (its 1-minute timeout and a 30 s margin, plus a maintenance round) has passed, instead of the
 *  hour a whole job would wait; every address gets exactly one result, in order. */
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Accounts, AddressValidation } from "@mailroom/core"
import { findTestPostgres, scratchPostgres, startDnsServer, type ZoneEntry } from "@mailroom/testing"
import { Effect } from "effect"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { createMailroom } from "../src/index.js"

const serverUrl = await findTestPostgres()
const instanceScript = fileURLToPath(new URL("./fixtures/validation-instance.mjs", import.meta.url))
const secret = "validation-crash-platform-secret-0123456789"
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined)
})

const startInstance = (url: string, dnsServer: string) =>
  new Promise<ChildProcess>((resolve, reject) => {
    const child = spawn(process.execPath, [instanceScript, url, secret, dnsServer], { stdio: ["ignore", "pipe", "inherit"] })
    cleanups.push(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill("SIGTERM")
      await Promise.race([new Promise((done) => child.once("exit", done)), sleep(10_000)])
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    })
    child.stdout.on("data", (chunk: Buffer) => { if (chunk.toString().includes("ready")) resolve(child) })
    child.once("exit", (code) => reject(new Error(`instance exited with ${code} before it was ready`)))
  })

// Each group of 500 addresses is one domain whose lookup answers after 1.2 s: a slice (about a second) is one group.
const groups = 8
const zone: Record<string, ZoneEntry> = Object.fromEntries(Array.from({ length: groups }, (_, i) =>
  [`slow${i}.example`, { mx: [{ exchange: `mail.slow${i}.example`, priority: 10 }], delayMs: 1_200 }]))
const emails = Array.from({ length: groups * 500 }, (_, i) => `user${i}@slow${Math.floor(i / 500)}.example`)

describe.skipIf(serverUrl === undefined)("bulk validation across a crash (postgres, two processes)", () => {
  it("a slice killed mid-run is handed to another process after its short expiry, which resumes from the stored progress", async () => {
    const { url, drop } = await scratchPostgres(serverUrl!)
    cleanups.push(drop)
    const dns = await startDnsServer(zone)
    cleanups.push(() => dns.close())
    // The writer only stores the job and queues its first slice: no background work of its own.
    const writer = createMailroom({ database: url, secret, backgroundWork: false })
    cleanups.push(() => writer.close())
    await writer.ready()
    const { account, job } = await writer.runtime.runPromise(Effect.gen(function* () {
      const { account } = yield* (yield* Accounts).create({ plan: "pro" })
      const job = yield* (yield* AddressValidation).startBulk(account, { emails })
      return { account, job }
    }))
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    cleanups.push(() => client.end())
    const state = async () => (await client.query<{ status: string; processed: number }>(
      "SELECT status, processed FROM validation_jobs WHERE id = $1", [job.id])).rows[0]!

    const first = await startInstance(url, dns.server)
    let before = await state()
    const deadline = Date.now() + 60_000
    while (before.processed === 0 && Date.now() < deadline) {
      await sleep(100)
      before = await state()
    }
    expect(before.processed).toBeGreaterThan(0)
    // Killed in the middle of the next slice: its pg-boss job stays active until it expires.
    await sleep(400)
    first.kill("SIGKILL")
    await new Promise((done) => first.once("exit", done))
    const killedAt = Date.now()
    const atKill = await state()
    expect(atKill.status).toBe("running")
    expect(atKill.processed).toBeLessThan(emails.length)

    await startInstance(url, dns.server)
    let after = await state()
    while (after.status !== "completed" && Date.now() - killedAt < 240_000) {
      await sleep(1_000)
      after = await state()
    }
    expect(after).toEqual({ status: "completed", processed: emails.length })
    // Well within the slice's expiry and a maintenance round (under 3 minutes), far from the hour a whole job waited.
    expect(Date.now() - killedAt).toBeLessThan(220_000)
    const results = await writer.runtime.runPromise(Effect.flatMap(AddressValidation, (validation) => validation.getBulk(account, job.id)))
    expect(results.results?.map((r) => r.email)).toEqual(emails)
  }, 300_000)
})
