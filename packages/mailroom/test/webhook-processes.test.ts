/** Automatic delivery by two real Mailroom processes on one Postgres database (child processes running the package
 *  builds, as hosts would): every event reaches a real receiver on 127.0.0.1, verified with `standardwebhooks`, and
 *  each attempt is made exactly once (none lost, none twice), also after the database dropped every connection
 *  (with retries waiting in the queue) and when some first attempts fail and are retried by the queue. An attempt in
 *  flight when the database goes away may be made again (at least once; same webhook-id): the SQLite outage test
 *  covers that case. */
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Accounts, type DomainEvent, Store, Webhooks } from "@mailroom/core"
import { findTestPostgres, makeEvent, startWebhookReceiver, type WebhookReceiver } from "@mailroom/testing"
import { Effect } from "effect"
import pg from "pg"
import { Webhook } from "standardwebhooks"
import { afterAll, describe, expect, it } from "vitest"
import { createMailroom, type Mailroom } from "../src/index.js"

const serverUrl = await findTestPostgres()
const instanceScript = fileURLToPath(new URL("./fixtures/mailroom-instance.mjs", import.meta.url))
const secret = "two-instances-platform-secret-0123456789"
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined)
})

const admin = async (query: string) => {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    return await client.query(query)
  } finally {
    await client.end()
  }
}

const scratchDatabase = async () => {
  const name = `mailroom_webhooks_${Date.now()}_${Math.floor(Math.random() * 1e6)}`
  await admin(`CREATE DATABASE ${name}`)
  cleanups.push(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => undefined))
  const url = new URL(serverUrl!)
  url.pathname = `/${name}`
  return { name, url: url.toString() }
}

const startInstance = (url: string) =>
  new Promise<ChildProcess>((resolve, reject) => {
    const child = spawn(process.execPath, [instanceScript, url, secret], { stdio: ["ignore", "pipe", "inherit"] })
    cleanups.push(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill("SIGTERM")
      await Promise.race([new Promise((done) => child.once("exit", done)), sleep(10_000)])
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    })
    child.stdout.on("data", (chunk: Buffer) => { if (chunk.toString().includes("ready")) resolve(child) })
    child.once("exit", (code) => reject(new Error(`instance exited with ${code} before it was ready`)))
  })

/** Commits events in one transaction, trying again while the database drops connections. */
const commit = async (mailroom: Mailroom, events: ReadonlyArray<DomainEvent>) => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await mailroom.runtime.runPromise(Effect.flatMap(Store, (store) => store.transaction(store.events.append(events))))
    } catch (error) {
      if (attempt === 5) throw error
      await sleep(500)
    }
  }
}

describe.skipIf(serverUrl === undefined)("automatic webhook delivery by two processes on one Postgres database", () => {
  it("delivers every event, making each attempt exactly once, across a drop of every connection and retries", { timeout: 180_000 }, async () => {
    const database = await scratchDatabase()
    const receiver: WebhookReceiver = await startWebhookReceiver()
    cleanups.push(() => receiver.close())
    // This process only writes: its background work is off, so the two instances do all the delivering.
    const writer = createMailroom({ database: database.url, secret, unsafeAllowPrivateUrls: true, backgroundWork: false })
    cleanups.push(() => writer.close())
    await writer.ready()
    const { account, endpointSecret } = await writer.runtime.runPromise(Effect.gen(function* () {
      const { account } = yield* (yield* Accounts).create({ plan: "pro", ownerEmail: "owner@example.com" })
      const created = yield* (yield* Webhooks).create(account, { url: `${receiver.origin}/hooks`, events: ["list.member_added"] })
      return { account, endpointSecret: created.secret }
    }))

    // Every tenth event's first attempt is refused: the queue makes it again 30 seconds later.
    const failFirst = new Set<string>()
    receiver.answer = (request) => {
      const id = request.headers["webhook-id"]!
      const seen = receiver.requests.filter((r) => r.headers["webhook-id"] === id).length
      const messageId = (JSON.parse(request.body) as { messageId: string }).messageId
      return failFirst.has(messageId) && seen === 1 ? { status: 500, body: "try again" } : { status: 200, body: "ok" }
    }

    await Promise.all([startInstance(database.url), startInstance(database.url)])
    const events = Array.from({ length: 60 }, (_, i) => makeEvent({
      accountId: account.id, type: "list.member_added", recipient: `member${i}@example.com`,
    }))
    for (const [i, event] of events.entries()) if (i % 10 === 0) failFirst.add(event.id)
    for (let i = 0; i < 30; i += 5) await commit(writer, events.slice(i, i + 5))
    // Once every first attempt of these is made and recorded (three retries wait in the queue), the database drops
    // every connection: both instances', pg-boss's and the writer's.
    const recordedAttempts = async () => {
      const client = new pg.Client({ connectionString: database.url })
      await client.connect()
      return client.query<{ n: string }>("SELECT count(*) AS n FROM webhook_deliveries WHERE attempts >= 1")
        .then((r) => Number(r.rows[0]!.n)).finally(() => client.end())
    }
    for (let i = 0; i < 1200 && await recordedAttempts() < 30; i++) await sleep(100)
    expect(await recordedAttempts()).toBe(30)
    await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database.name}' AND pid <> pg_backend_pid()`)
    for (let i = 30; i < 60; i += 5) await commit(writer, events.slice(i, i + 5))

    // Every event arrives with a 2xx: 60 deliveries, plus one refused first attempt for each of 6 events.
    const expected = events.length + failFirst.size
    const deadline = Date.now() + 150_000
    while (receiver.requests.length < expected && Date.now() < deadline) await sleep(250)
    // Nothing more comes (no attempt made twice).
    await sleep(3_000)
    const requests = receiver.requests.filter((r) => r.path === "/hooks")
    expect(requests).toHaveLength(expected)

    const byEvent = new Map<string, Array<string>>()
    for (const request of requests) {
      const body = new Webhook(endpointSecret).verify(request.body, request.headers) as { messageId: string }
      byEvent.set(body.messageId, [...(byEvent.get(body.messageId) ?? []), request.headers["webhook-id"]!])
    }
    expect([...byEvent.keys()].sort()).toEqual(events.map((e) => e.id).sort())
    for (const event of events) {
      const ids = byEvent.get(event.id)!
      expect(ids).toHaveLength(failFirst.has(event.id) ? 2 : 1)
      expect(new Set(ids).size).toBe(1)
    }

    // The record agrees: each delivery succeeded with as many attempts as the receiver saw.
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    const recorded = await client.query<{ event_id: string; status: string; attempts: number }>(
      "SELECT event_id, status, attempts FROM webhook_deliveries WHERE account_id = $1", [account.id]).then((r) => r.rows)
      .finally(() => client.end())
    expect(recorded).toHaveLength(events.length)
    for (const row of recorded) {
      expect(row).toMatchObject({ status: "succeeded", attempts: failFirst.has(row.event_id) ? 2 : 1 })
    }
  })
})
