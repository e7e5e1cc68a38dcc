/** Two Mailroom processes on one Postgres database share a running campaign: a 700-recipient campaign (queued by one
 *  chunk, then written by send runs of 250 messages a second) is sent by instance A while instance B runs beside it;
 *  each instance relays to an SMTP sink of its own that takes 20 ms a message, so that what each delivered can be told
 *  apart. Chunk, send and delivery jobs go to whichever instance claims them. A is SIGKILLed mid-run; B finishes the campaign. No address reaches the
 *  sinks twice, across both; every eligible recipient is delivered, except those of A's delivery runs in flight when
 *  it died, which stay held for an operator (their submission may have happened: docs/mail-delivery.md). Each
 *  instance runs one delivery run at a time (see `start`). */
import type { ChildProcess } from "node:child_process"
import { recipientsPerRun } from "@mailroom/core"
import { findTestPostgres, scratchPostgres, startSmtpSink } from "@mailroom/testing"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { createMailroom } from "../src/index.js"
import { seedCampaign, sleep, startInstance, waitFor } from "./support/campaign-processes.js"

const serverUrl = await findTestPostgres()
const secret = "campaign-two-instances-secret-0123456789"
const children: Array<ChildProcess> = []
const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined)
})

// One delivery run at a time in each instance (recipientsPerRun, 10, at most): a run takes its recipients (held) as it
// starts, so a process killed mid-run leaves at most one run's recipients held. A kill between a job's claim and its
// run's first transaction leaves that job's recipients queued until pg-boss's maintenance expires the job (2 minutes
// and a half for delivery jobs, seen within its 30-second interval) and its retry comes a minute later: the wait for
// "nothing left queued" allows for that.
const start = (args: ReadonlyArray<string>, until: string) => startInstance(children, args, until, { DELIVERY_CONCURRENCY: "1" })

describe.skipIf(serverUrl === undefined)("a campaign shared by two Mailroom processes on one Postgres database", () => {
  it("is delivered by both, finished by the survivor of a SIGKILL, and no address is submitted twice", async () => {
    const { url: database, drop } = await scratchPostgres(serverUrl!)
    cleanups.push(drop)
    const slow = { data: () => ({ code: 250, message: "2.0.0 queued", delayMs: 20 }) }
    const sinkA = await startSmtpSink({ behaviour: slow })
    const sinkB = await startSmtpSink({ behaviour: slow })
    cleanups.push(() => sinkA.close(), () => sinkB.close())
    const emails = Array.from({ length: 700 }, (_, i) => `reader${String(i).padStart(4, "0")}@example.org`)

    const setup = createMailroom({ database, secret, backgroundWork: false, logLevel: "error" })
    // 250 messages a second: three send runs, a second apart.
    const { apiKey, campaign } = await seedCampaign(setup, { name: "Shared", emails, suppressed: emails[3]!, messagesPerSecond: 250, batch: 500 })

    const db = new pg.Client({ connectionString: database })
    await db.connect()
    cleanups.push(() => db.end())
    const statuses = async () => {
      const { rows } = await db.query<{ status: string; n: string }>(`SELECT mr.status, count(*) AS n FROM campaign_recipients cr
        JOIN message_recipients mr ON mr.message_id = cr.message_id WHERE cr.campaign_id = $1 GROUP BY mr.status`, [campaign])
      return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])) as Record<string, number>
    }
    const campaignStatus = async () =>
      (await db.query<{ status: string }>("SELECT status FROM campaigns WHERE id = $1", [campaign])).rows[0]!.status

    const smtp = (sink: { url: string }) => `${sink.url}?maxConnections=2`
    const b = await start([database, secret, smtp(sinkB)], "ready")
    const a = await start([database, secret, smtp(sinkA), apiKey, campaign], "sent")
    // Killed once every message is written and A is delivering, with recipients still waiting.
    await waitFor("every message written and A delivering", async () => (await campaignStatus()) === "finished" && sinkA.messages.length >= 20, 60_000)
    a.kill("SIGKILL")
    await new Promise((done) => a.once("exit", done))
    const atKill = sinkA.messages.length + sinkB.messages.length
    expect(atKill).toBeLessThan(699)

    await waitFor("nothing left queued", async () => {
      const s = await statuses()
      return (s["queued"] ?? 0) + (s["deferred"] ?? 0) === 0
    }, 270_000).catch(async (error) => {
      const jobs = await db.query(`SELECT name, state, retry_count, count(*) AS n FROM pgboss.job GROUP BY 1, 2, 3 ORDER BY 1, 2`)
      console.log(JSON.stringify({ statuses: await statuses(), a: sinkA.messages.length, b: sinkB.messages.length, atKill, jobs: jobs.rows }))
      throw error
    })
    await sleep(500)
    b.kill("SIGTERM")
    await new Promise((done) => b.once("exit", done))

    const final = await statuses()
    const received = [...sinkA.messages, ...sinkB.messages].flatMap((m) => m.rcptTo)
    const messageIds = [...sinkA.messages, ...sinkB.messages].map((m) => /^Message-ID:\s*(\S+)/im.exec(m.raw)?.[1])
    // Never twice: no address and no Message-ID reaches the sinks more than once, across both instances.
    expect(new Set(received).size).toBe(received.length)
    expect(new Set(messageIds).size).toBe(messageIds.length)
    expect(received).not.toContain(emails[3])
    // Both instances delivered; the survivor delivered after the kill.
    expect(sinkA.messages.length).toBeGreaterThan(0)
    expect(sinkB.messages.length).toBeGreaterThan(0)
    expect(received.length).toBeGreaterThan(atKill)
    // Nothing lost: each of the 699 eligible recipients is delivered, or held from A's runs in flight when it died.
    expect(final["queued"] ?? 0).toBe(0)
    expect((final["delivered"] ?? 0) + (final["held"] ?? 0)).toBe(699)
    expect(final["held"] ?? 0).toBeLessThanOrEqual(recipientsPerRun)
    const { rows: held } = await db.query<{ email: string }>(`SELECT mr.email FROM campaign_recipients cr
      JOIN message_recipients mr ON mr.message_id = cr.message_id WHERE cr.campaign_id = $1 AND mr.status = 'held'`, [campaign])
    // Every address the sinks did not receive is one of A's held runs; every delivered one reached a sink once.
    const missing = emails.filter((e, i) => i !== 3 && !received.includes(e))
    expect(missing.every((e) => held.some((h) => h.email === e))).toBe(true)
    expect(final["delivered"] ?? 0).toBeLessThanOrEqual(received.length)
    console.log(`two instances: A delivered ${sinkA.messages.length}, B ${sinkB.messages.length}, held ${held.length} (from A's runs in flight at the kill)`)
  }, 420_000)
})
