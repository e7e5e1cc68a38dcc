/** A campaign survives its process being killed: a process on a SQLite file sends a 1,200-recipient campaign to a real
 *  SMTP sink in send runs paced by the account's rate (100 messages a second); it is SIGKILLed part-way, and a new
 *  process on the same file finishes the campaign. Every eligible recipient gets the campaign once, none twice. A kill
 *  in the middle of a delivery run leaves that run's recipients held for an operator, as for any mail
 *  (docs/mail-delivery.md): each process runs one delivery run at a time, so at most one run's recipients (10) are held. */
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { recipientsPerRun } from "@mailroom/core"
import { startSmtpSink } from "@mailroom/testing"
import { afterAll, describe, expect, it } from "vitest"
import { createMailroom } from "../src/index.js"
import { call, seedCampaign, sleep, startInstance, waitFor } from "./support/campaign-processes.js"

const secret = "campaign-crash-platform-secret-0123456789"
const directory = mkdtempSync(join(tmpdir(), "mailroom-campaign-crash-"))
const database = `sqlite:${join(directory, "db.sqlite")}`
const children: Array<ChildProcess> = []
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  rmSync(directory, { recursive: true, force: true })
})
const start = (args: ReadonlyArray<string>, until: string) => startInstance(children, args, until, { DELIVERY_CONCURRENCY: "1" })

describe("a campaign whose process is killed", () => {
  it("is finished by the next process, and nobody gets it twice", async () => {
    const sink = await startSmtpSink()
    const emails = Array.from({ length: 1_200 }, (_, i) => `reader${String(i).padStart(4, "0")}@example.org`)
    // Set up with a process of its own, which sends nothing (no relay, and the campaign stays a draft).
    const setup = createMailroom({ database, secret })
    const { apiKey, campaign } = await seedCampaign(setup, { name: "Crash", emails, suppressed: emails[7]!, messagesPerSecond: 100, batch: 1_000 })
    // Reads the campaign through the API on the same file, without background work of its own.
    const reader = createMailroom({ database, secret, backgroundWork: false, logLevel: "error" })
    const read = async () => (await call(reader, apiKey, "GET", `/campaigns/${campaign}`)).data

    const first = await start([database, secret, sink.url, apiKey, campaign], "sent")
    await waitFor("a third of the campaign delivered", () => sink.messages.length >= 400, 30_000)
    first.kill("SIGKILL")
    await new Promise((done) => first.once("exit", done))
    const before = sink.messages.length
    expect(before).toBeLessThan(1_199)

    const second = await start([database, secret, sink.url], "ready")
    // Every eligible recipient is delivered, or held from the delivery run the kill cut short.
    await waitFor("the campaign finished, nothing queued", async () => {
      const now = await read()
      return now.status === "finished" && now.progress.queued === 0 && now.progress.sent === 1_199
    }, 150_000)
    await sleep(500)
    second.kill("SIGTERM")
    await new Promise((done) => second.once("exit", done))

    const received = sink.messages.flatMap((m) => m.rcptTo)
    expect(new Set(received).size).toBe(received.length)
    expect(received).not.toContain(emails[7])
    expect(received.length).toBeGreaterThan(before)
    try {
      const final = await read()
      expect(final.progress).toMatchObject({ audienceSize: 1_200, resolved: 1_200, sent: 1_199, queued: 0, cancelled: 0 })
      expect(final.progress.dropped).toEqual({ COMPLAINT_SUPPRESSION: 1 })
      const held = final.progress.sent - final.progress.delivered
      expect(held).toBeLessThanOrEqual(recipientsPerRun)
      expect(final.progress.delivered).toBeLessThanOrEqual(received.length)
    } finally {
      await reader.close()
      await sink.close()
    }
  }, 240_000)
})
