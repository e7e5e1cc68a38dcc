/** A campaign survives its process being killed: a process on a SQLite file sends a 1,200-recipient campaign to a real
 *  SMTP sink in chunks of 500, paced by the account's rate; it is SIGKILLed between chunks, and a new process on the
 *  same file finishes the campaign. Every eligible recipient gets the campaign once, none twice. (A kill in the middle
 *  of a delivery run leaves that run's recipients held for an operator, as for any mail: docs/mail-delivery.md.) */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { startSmtpSink } from "@mailroom/testing"
import { afterAll, describe, expect, it } from "vitest"
import { createMailroom, type Mailroom } from "../src/index.js"

const script = fileURLToPath(new URL("./fixtures/campaign-instance.mjs", import.meta.url))
const secret = "campaign-crash-platform-secret-0123456789"
const directory = mkdtempSync(join(tmpdir(), "mailroom-campaign-crash-"))
const database = `sqlite:${join(directory, "db.sqlite")}`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const children: Array<ChildProcess> = []
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  rmSync(directory, { recursive: true, force: true })
})

const call = async (mailroom: Mailroom, apiKey: string, method: string, path: string, body?: unknown) => {
  const response = await mailroom.fetch(new Request(`http://host.test/v1${path}`, {
    method, headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }))
  return (await response.json()) as { data: any }
}

const start = (args: ReadonlyArray<string>, until: string) =>
  new Promise<ChildProcess>((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "inherit"] })
    children.push(child)
    let seen = ""
    child.stdout.on("data", (chunk: Buffer) => {
      seen += chunk.toString()
      if (seen.includes("failed")) reject(new Error(seen))
      if (seen.includes(until)) resolve(child)
    })
    child.once("exit", (code) => reject(new Error(`instance exited with ${code}: ${seen}`)))
  })

const waitFor = async (what: string, done: () => boolean, ms: number) => {
  const deadline = Date.now() + ms
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

describe("a campaign whose process is killed", () => {
  it("is finished by the next process, and nobody gets it twice", async () => {
    const sink = await startSmtpSink()
    const emails = Array.from({ length: 1_200 }, (_, i) => `reader${String(i).padStart(4, "0")}@example.org`)
    // Set up with a process of its own, which sends nothing (no relay, and the campaign stays a draft).
    const setup = createMailroom({ database, secret })
    const { apiKey } = await setup.accounts.create({ name: "crash", plan: "pro" })
    const list = (await call(setup, apiKey, "POST", "/contacts/lists", { name: "Readers" })).data.id as string
    for (const part of [emails.slice(0, 1_000), emails.slice(1_000)]) {
      await call(setup, apiKey, "POST", "/contacts/bulk", { contacts: part.map((email) => ({ email })) })
      await call(setup, apiKey, "POST", `/contacts/lists/${list}/members`, { emails: part })
    }
    await call(setup, apiKey, "POST", "/suppressions", { email: emails[7], reason: "Complaint" })
    // 40 messages a second: the second chunk waits about 12 seconds after the first (499 eligible of its 500).
    await call(setup, apiKey, "PUT", "/campaigns/settings", { messagesPerSecond: 40 })
    const campaign = (await call(setup, apiKey, "POST", "/campaigns", {
      name: "Crash", listIds: [list], subject: "Issue", from: { email: "news@example.com" }, text: "Hello {{contact.email}}",
    })).data.id as string
    await setup.close()

    const first = await start([database, secret, sink.url, apiKey, campaign], "sent")
    await waitFor("the first chunk to be delivered", () => sink.messages.length >= 499, 30_000)
    // Killed once its deliveries are recorded, while the next chunk waits in the jobs table.
    await sleep(1_000)
    first.kill("SIGKILL")
    await new Promise((done) => first.once("exit", done))
    const before = sink.messages.length
    expect(before).toBe(499)

    const second = await start([database, secret, sink.url], "ready")
    await waitFor("every eligible recipient", () => sink.messages.length >= 1_199, 60_000)
    await sleep(1_000)
    second.kill("SIGTERM")
    await new Promise((done) => second.once("exit", done))

    const received = sink.messages.flatMap((m) => m.rcptTo)
    expect(received).toHaveLength(1_199)
    expect(new Set(received).size).toBe(1_199)
    expect(received).not.toContain(emails[7])

    const after = createMailroom({ database, secret })
    try {
      const read = (await call(after, apiKey, "GET", `/campaigns/${campaign}`)).data
      expect(read.status).toBe("finished")
      expect(read.progress).toMatchObject({ audienceSize: 1_200, resolved: 1_200, sent: 1_199, delivered: 1_199, queued: 0 })
      expect(read.progress.dropped).toEqual({ COMPLAINT_SUPPRESSION: 1 })
    } finally {
      await after.close()
      await sink.close()
    }
  }, 120_000)
})
