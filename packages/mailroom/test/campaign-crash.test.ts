/** A campaign survives its process being killed: a process on a SQLite file queues a 1,200-recipient campaign and
 *  delivers it to a real SMTP sink in runs of 100, paced by the account's rate; it is SIGKILLed between two runs, and
 *  a new process on the same file delivers the rest from the jobs the chunk left. Every eligible recipient gets the
 *  campaign once, none twice. (A kill in the middle of a delivery run leaves that run's recipients held for an
 *  operator, as for any mail: docs/mail-delivery.md.) */
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
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
const start = (args: ReadonlyArray<string>, until: string) => startInstance(children, args, until)

describe("a campaign whose process is killed", () => {
  it("is finished by the next process, and nobody gets it twice", async () => {
    const sink = await startSmtpSink()
    const emails = Array.from({ length: 1_200 }, (_, i) => `reader${String(i).padStart(4, "0")}@example.org`)
    // Set up with a process of its own, which sends nothing (no relay, and the campaign stays a draft).
    const setup = createMailroom({ database, secret })
    // 20 messages a second: a delivery run of 100 every 5 seconds (1,199 eligible, every one queued by the first chunk).
    const { apiKey, campaign } = await seedCampaign(setup, { name: "Crash", emails, suppressed: emails[7]!, messagesPerSecond: 20, batch: 1_000 })

    const first = await start([database, secret, sink.url, apiKey, campaign], "sent")
    // Killed between two runs (the sink quiet for a second after two runs or more), once the last run's deliveries are
    // recorded, while the next runs wait in the jobs table for their slots.
    let seen = 0
    let quietSince = Date.now()
    await waitFor("a pause between delivery runs", () => {
      const count = sink.messages.length
      if (count !== seen) [seen, quietSince] = [count, Date.now()]
      return count >= 200 && count % 100 === 0 && Date.now() - quietSince >= 1_000
    }, 60_000)
    first.kill("SIGKILL")
    await new Promise((done) => first.once("exit", done))
    const before = sink.messages.length
    expect(before % 100).toBe(0)
    expect(before).toBeLessThan(1_199)

    const second = await start([database, secret, sink.url], "ready")
    await waitFor("every eligible recipient", () => sink.messages.length >= 1_199, 90_000)
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
  }, 180_000)
})
