/** Automatic delivery by two real Mailroom processes on one Postgres database (child processes running the package
 *  builds, as hosts would): every event reaches a real receiver on 127.0.0.1, verified with `standardwebhooks`, and
 *  each attempt is made exactly once (none lost, none twice), also after the database dropped every connection
 *  (with retries waiting in the queue) and when some first attempts fail and are retried by the queue. An attempt in
 *  flight when the database goes away may be made again (at least once; same webhook-id). Faults: the database drops
 *  every connection while the receiver holds a delivery open, and events committed while no instance runs are
 *  delivered by the next one; an instance killed with SIGKILL while the receiver holds its request open leaves the
 *  job to pg-boss, and another instance delivers it (the killed attempt leaves no record); an instance killed between
 *  the fan-out of a batch and the enqueue of its jobs leaves neither, and the other instance delivers its events. */
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Accounts, type DomainEvent, Store, Webhooks } from "@mailroom/core"
import {
  findTestPostgres, makeEvent, type ReceiverAnswer, scratchPostgres, startWebhookReceiver, type WebhookReceiver,
} from "@mailroom/testing"
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

/** Runs `use` with a client of `url` of its own. */
const withClient = async <A>(url: string, use: (client: pg.Client) => Promise<A>) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await use(client)
  } finally {
    await client.end()
  }
}

const scratchDatabase = async () => {
  const { url, drop } = await scratchPostgres(serverUrl!)
  cleanups.push(drop)
  return { name: new URL(url).pathname.slice(1), url }
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

/** A scratch database with a writer (no background work of its own), a receiver and an account whose endpoint on the
 *  receiver takes list.member_added. */
const writerWithEndpoint = async () => {
  const database = await scratchDatabase()
  const receiver: WebhookReceiver = await startWebhookReceiver()
  cleanups.push(() => receiver.close())
  const writer = createMailroom({ database: database.url, secret, unsafeAllowPrivateUrls: true, backgroundWork: false })
  cleanups.push(() => writer.close())
  await writer.ready()
  const { account, endpointSecret } = await writer.runtime.runPromise(Effect.gen(function* () {
    const { account } = yield* (yield* Accounts).create({ plan: "pro", ownerEmail: "owner@example.com" })
    const created = yield* (yield* Webhooks).create(account, { url: `${receiver.origin}/hooks`, events: ["list.member_added"] })
    return { account, endpointSecret: created.secret }
  }))
  const event = (i: number) => makeEvent({ accountId: account.id, type: "list.member_added", recipient: `member${i}@example.com` })
  /** The deliveries and attempts as recorded, by event id. */
  const records = async () => {
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      const deliveries = await client.query<{ id: string; event_id: string; status: string; attempts: number }>(
        "SELECT id, event_id, status, attempts FROM webhook_deliveries WHERE account_id = $1", [account.id])
      const attempts = await client.query<{ delivery_id: string; attempt: number; succeeded: boolean; status_code: number | null }>(
        "SELECT delivery_id, attempt, succeeded, status_code FROM webhook_attempts WHERE account_id = $1 ORDER BY attempt", [account.id])
      return new Map(deliveries.rows.map((d) => [d.event_id, { ...d, attempts: attempts.rows.filter((a) => a.delivery_id === d.id), count: d.attempts }]))
    } finally {
      await client.end()
    }
  }
  /** The messageId and webhook-id of every request, each verified as a Standard Webhooks receiver would. */
  const received = () => receiver.requests.filter((r) => r.path === "/hooks").map((request) => ({
    messageId: (new Webhook(endpointSecret).verify(request.body, request.headers) as { messageId: string }).messageId,
    webhookId: request.headers["webhook-id"]!,
  }))
  return { database, receiver, writer, event, records, received }
}

const waitUntil = async (condition: () => boolean | Promise<boolean>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!(await condition()) && Date.now() < deadline) await sleep(250)
  return condition()
}

describe.skipIf(serverUrl === undefined)("automatic webhook delivery by two processes on one Postgres database", () => {
  it("a database outage while a delivery is in flight loses no event, and a restart delivers what was committed while no process ran", { timeout: 120_000 }, async () => {
    const { database, receiver, writer, event, records, received } = await writerWithEndpoint()
    let release: (answer: ReceiverAnswer) => void = () => undefined
    const held = new Promise<ReceiverAnswer>((resolve) => { release = resolve })
    receiver.answer = (request) => receiver.requests.indexOf(request) === 0 ? { after: held } : { status: 200, body: "ok" }

    const first = await startInstance(database.url)
    const inFlight = event(0)
    await commit(writer, [inFlight])
    await receiver.waitFor(1, 30_000)
    // The receiver holds the request open while the database drops every connection (the instance's, pg-boss's and the
    // writer's); then it answers 200.
    await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database.name}' AND pid <> pg_backend_pid()`)
    release({ status: 200, body: "ok" })
    expect(await waitUntil(async () => (await records()).get(inFlight.id)?.status === "succeeded", 60_000)).toBe(true)

    // The instance stops; events committed meanwhile wait in the outbox, and the next instance delivers them.
    first.kill("SIGTERM")
    await new Promise((done) => first.once("exit", done))
    const later = [event(1), event(2), event(3)]
    await commit(writer, later)
    await startInstance(database.url)
    expect(await waitUntil(async () => {
      const recorded = await records()
      return later.every((e) => recorded.get(e.id)?.status === "succeeded")
    }, 60_000)).toBe(true)

    // Every event reached the receiver (at least once, under one webhook-id each), and each record agrees with it.
    const requests = received()
    const recorded = await records()
    for (const e of [inFlight, ...later]) {
      const own = requests.filter((r) => r.messageId === e.id)
      expect(own.length).toBeGreaterThanOrEqual(1)
      expect(new Set(own.map((r) => r.webhookId))).toEqual(new Set([recorded.get(e.id)!.id]))
      const delivery = recorded.get(e.id)!
      expect(delivery.status).toBe("succeeded")
      expect(delivery.attempts.at(-1)).toMatchObject({ succeeded: true, status_code: 200, attempt: delivery.count })
      expect(delivery.attempts.length).toBe(delivery.count)
    }
  })

  it("a process killed in the middle of a delivery leaves it to be retried: another process delivers it", { timeout: 300_000 }, async () => {
    const { database, receiver, writer, event, records, received } = await writerWithEndpoint()
    // The first request is never answered: the process making it is killed while it waits.
    receiver.answer = (request) => receiver.requests.indexOf(request) === 0 ? { hang: true } : { status: 200, body: "ok" }
    const doomed = await startInstance(database.url)
    const target = event(0)
    await commit(writer, [target])
    await receiver.waitFor(1, 30_000)
    doomed.kill("SIGKILL")
    await new Promise((done) => doomed.once("exit", done))
    // Nothing was recorded: the process died before the attempt's record.
    expect((await records()).get(target.id)).toMatchObject({ status: "pending", count: 0 })

    // Another process takes the job once pg-boss finds its worker dead (the job's timeout plus the margin) and its
    // retry delay has passed, and delivers it.
    await startInstance(database.url)
    expect(await waitUntil(async () => (await records()).get(target.id)?.status === "succeeded", 280_000)).toBe(true)
    await sleep(2_000)
    const requests = received()
    expect(requests).toHaveLength(2)
    const delivery = (await records()).get(target.id)!
    expect(requests.every((r) => r.messageId === target.id && r.webhookId === delivery.id)).toBe(true)
    // One attempt recorded (the killed one left no record), made by the second process.
    expect(delivery.count).toBe(1)
    expect(delivery.attempts).toEqual([expect.objectContaining({ attempt: 1, succeeded: true, status_code: 200 })])
  })


  it("an instance killed between the fan-out of a batch and the enqueue of its jobs strands nothing: the other delivers every event within 60 seconds, with no restart", { timeout: 180_000 }, async () => {
    const { database, receiver, writer, event, records, received } = await writerWithEndpoint()
    receiver.answer = () => ({ after: sleep(300).then(() => ({ status: 200, body: "ok" })) })
    // The fault: the first enqueue of delivery jobs stalls for 5 seconds as it writes them (a trigger on
    // pg-boss's job table; a sequence, which no rollback resets, makes it the first only), after its batch's fan-out,
    // so that its process is killed between the two.
    await withClient(database.url, (client) => client.query(`
      CREATE SEQUENCE enqueue_fault;
      CREATE FUNCTION stall_first_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF nextval('enqueue_fault') = 1 THEN PERFORM pg_sleep(5); END IF; RETURN NEW; END $$;
      CREATE TRIGGER stall_first_enqueue BEFORE INSERT ON pgboss.job FOR EACH ROW
        WHEN (NEW.name = 'webhook.deliver') EXECUTE FUNCTION stall_first_enqueue();`))
    // Each instance names its connections, so that the one stalled is known.
    const instances = new Map<string, ChildProcess>()
    for (const name of ["mailroom-a", "mailroom-b"]) {
      const url = new URL(database.url)
      url.searchParams.set("application_name", name)
      instances.set(name, await startInstance(url.toString()))
    }
    const events = Array.from({ length: 200 }, (_, i) => event(i))
    for (let i = 0; i < events.length; i += 20) await commit(writer, events.slice(i, i + 20))
    let stalled: string | undefined
    expect(await waitUntil(async () => {
      const rows = await withClient(database.url, (client) => client.query<{ application_name: string }>(
        "SELECT application_name FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep'"))
      stalled = rows.rows[0]?.application_name
      return stalled !== undefined
    }, 30_000)).toBe(true)
    const doomed = instances.get(stalled!)!
    doomed.kill("SIGKILL")
    await new Promise((done) => doomed.once("exit", done))
    const killedAt = Date.now()

    // The other instance delivers every event, the batch of the killed one included, without a restart.
    expect(await waitUntil(async () => {
      const recorded = await records()
      return events.every((e) => recorded.get(e.id)?.status === "succeeded")
    }, 60_000)).toBe(true)
    expect(Date.now() - killedAt).toBeLessThan(60_000)
    const requests = received()
    const recorded = await records()
    for (const e of events) {
      const own = requests.filter((r) => r.messageId === e.id)
      expect(own.length).toBeGreaterThanOrEqual(1)
      expect(new Set(own.map((r) => r.webhookId))).toEqual(new Set([recorded.get(e.id)!.id]))
    }
  })

  it("delivers every event, making each attempt exactly once, across a drop of every connection and retries", { timeout: 180_000 }, async () => {
    // The writer only writes: its background work is off, so the two instances do all the delivering.
    const { database, receiver, writer, event, records, received } = await writerWithEndpoint()

    // Every tenth event's first attempt is refused: the queue makes it again 30 seconds later.
    const failFirst = new Set<string>()
    receiver.answer = (request) => {
      const id = request.headers["webhook-id"]!
      const seen = receiver.requests.filter((r) => r.headers["webhook-id"] === id).length
      const messageId = (JSON.parse(request.body) as { messageId: string }).messageId
      return failFirst.has(messageId) && seen === 1 ? { status: 500, body: "try again" } : { status: 200, body: "ok" }
    }

    await Promise.all([startInstance(database.url), startInstance(database.url)])
    const events = Array.from({ length: 60 }, (_, i) => event(i))
    for (const [i, event] of events.entries()) if (i % 10 === 0) failFirst.add(event.id)
    for (let i = 0; i < 30; i += 5) await commit(writer, events.slice(i, i + 5))
    // Once every first attempt of these is made and recorded (three retries wait in the queue), the database drops
    // every connection: both instances', pg-boss's and the writer's.
    const recordedAttempts = async () => [...(await records()).values()].filter((delivery) => delivery.count >= 1).length
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
    const requests = received()
    expect(requests).toHaveLength(expected)

    const byEvent = new Map<string, Array<string>>()
    for (const { messageId, webhookId } of requests) byEvent.set(messageId, [...(byEvent.get(messageId) ?? []), webhookId])
    expect([...byEvent.keys()].sort()).toEqual(events.map((e) => e.id).sort())
    for (const event of events) {
      const ids = byEvent.get(event.id)!
      expect(ids).toHaveLength(failFirst.has(event.id) ? 2 : 1)
      expect(new Set(ids).size).toBe(1)
    }

    // The record agrees: each delivery succeeded with as many attempts as the receiver saw.
    const recorded = await records()
    expect(recorded.size).toBe(events.length)
    for (const [eventId, delivery] of recorded) {
      expect(delivery).toMatchObject({ status: "succeeded", count: failFirst.has(eventId) ? 2 : 1 })
    }
  })
})
