/** Automatic delivery on a SQLite file through the facade (createMailroom, ready(), close()): a restart resumes a
 *  pending delivery even when its job was lost, and a database outage during a delivery (another connection holds the
 *  write lock) loses no event: the attempt is made again once the database answers, and later events flow; a fault
 *  between the fan-out of a batch and the enqueue of its jobs leaves no delivery without its job. */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Accounts, Store, type WebhookDelivery, Webhooks } from "@mailroom/core"
import { makeEvent, startWebhookReceiver, type WebhookReceiver } from "@mailroom/testing"
import Database from "better-sqlite3"
import { Effect, Option } from "effect"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMailroom, type Mailroom } from "../src/index.js"

const directory = mkdtempSync(join(tmpdir(), "mailroom-webhook-durability-"))
let receiver: WebhookReceiver
beforeAll(async () => { receiver = await startWebhookReceiver() })
afterAll(async () => {
  await receiver.close()
  rmSync(directory, { recursive: true, force: true })
})

const secret = "durability-test-platform-secret-0123456789"
const open = (file: string) => createMailroom({ database: `sqlite:${file}`, secret, unsafeAllowPrivateUrls: true, shutdownGraceMillis: 2_000 })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** An account with an endpoint on the receiver, subscribed to list.member_added. */
const setUp = (mailroom: Mailroom, path: string) => mailroom.runtime.runPromise(Effect.gen(function* () {
  const { account } = yield* (yield* Accounts).create({ plan: "pro", ownerEmail: "owner@example.com" })
  const created = yield* (yield* Webhooks).create(account, { url: `${receiver.origin}${path}`, events: ["list.member_added"] })
  return { account, secret: created.secret }
}))

/** Commits one event (as a list change would) and answers it. */
const commitEvent = (mailroom: Mailroom, accountId: string) => mailroom.runtime.runPromise(Effect.gen(function* () {
  const store = yield* Store
  const event = makeEvent({ accountId: accountId as never, type: "list.member_added", recipient: "ada@example.com" })
  yield* store.transaction(store.events.append([event]))
  return event
}))

const deliveryOf = (mailroom: Mailroom, accountId: string, id: string) =>
  mailroom.runtime.runPromise(Effect.map(Effect.flatMap(Store, (store) => store.webhooks.findDelivery(accountId as never, id)), Option.getOrThrow))

/** Polls the delivery until `done` holds (at most `ms`). */
const waitForDelivery = async (mailroom: Mailroom, accountId: string, id: string, done: (d: WebhookDelivery) => boolean, ms: number) => {
  const deadline = Date.now() + ms
  let delivery = await deliveryOf(mailroom, accountId, id)
  while (!done(delivery) && Date.now() < deadline) {
    await sleep(100)
    delivery = await deliveryOf(mailroom, accountId, id)
  }
  return delivery
}

const requestsTo = (path: string) => receiver.requests.filter((request) => request.path === path)
const waitForRequests = async (path: string, count: number, ms: number) => {
  const deadline = Date.now() + ms
  while (requestsTo(path).length < count && Date.now() < deadline) await sleep(50)
  return requestsTo(path)
}

describe("automatic webhook delivery on a SQLite file", () => {
  it("a restart resumes a pending delivery whose job was lost", { timeout: 60_000 }, async () => {
    const file = join(directory, "restart.sqlite")
    const first = open(file)
    await first.ready()
    const { account, secret: endpointSecret } = await setUp(first, "/restart")
    receiver.answer = (request) => request.path === "/restart" ? { status: 503, body: "down" } : { status: 200 }
    const event = await commitEvent(first, account.id)
    const [failed] = await waitForRequests("/restart", 1, 10_000)
    const deliveryId = failed!.headers["webhook-id"]!
    expect(JSON.parse(failed!.body)).toMatchObject({ eventType: "list.member_added", messageId: event.id })
    await waitForDelivery(first, account.id, deliveryId, (d) => d.attempts === 1, 5_000)
    await first.close()

    // The jobs table kept the retry (due in 30 seconds); drop it, as a queue that lost its jobs would.
    const db = new Database(file)
    const jobs = db.prepare("SELECT state, run_at FROM jobs WHERE name = 'webhook.deliver'").all() as Array<{ state: string; run_at: number }>
    expect(jobs.map((job) => job.state)).toEqual(["pending"])
    expect(jobs[0]!.run_at).toBeGreaterThan(Date.now() + 20_000)
    db.prepare("DELETE FROM jobs WHERE name = 'webhook.deliver'").run()
    db.close()

    receiver.answer = () => ({ status: 200, body: "ok" })
    const second = open(file)
    await second.ready()
    try {
      const requests = await waitForRequests("/restart", 2, 15_000)
      expect(requests).toHaveLength(2)
      expect(requests[1]!.headers["webhook-id"]).toBe(deliveryId)
      expect(new Webhook(endpointSecret).verify(requests[1]!.body, requests[1]!.headers)).toMatchObject({ messageId: event.id })
      const delivery = await waitForDelivery(second, account.id, deliveryId, (d) => d.status === "succeeded", 5_000)
      expect(delivery).toMatchObject({ status: "succeeded", attempts: 2, lastStatusCode: 200 })
    } finally {
      await second.close()
    }
  })

  it("a database outage during a delivery loses no event: the attempt is made again once the database answers", { timeout: 90_000 }, async () => {
    const file = join(directory, "outage.sqlite")
    const mailroom = open(file)
    await mailroom.ready()
    try {
      const { account, secret: endpointSecret } = await setUp(mailroom, "/outage")
      // The first request takes the database's write lock from another connection for 7 seconds (past Mailroom's
      // 5-second busy timeout), then answers 200: the attempt cannot be recorded.
      const locker = new Database(file)
      let locked = false
      receiver.answer = (request) => {
        if (request.path === "/outage" && !locked) {
          locked = true
          locker.prepare("BEGIN IMMEDIATE").run()
          setTimeout(() => locker.prepare("COMMIT").run(), 7_000)
        }
        return { status: 200, body: "ok" }
      }
      const event = await commitEvent(mailroom, account.id)
      const [first] = await waitForRequests("/outage", 1, 10_000)
      const deliveryId = first!.headers["webhook-id"]!
      // The unrecorded attempt fails the run; the queue makes it again after 30 seconds.
      const requests = await waitForRequests("/outage", 2, 60_000)
      locker.close()
      expect(requests.length).toBeGreaterThanOrEqual(2)
      expect(requests.map((request) => request.headers["webhook-id"])).toEqual(requests.map(() => deliveryId))
      for (const request of requests) {
        expect(new Webhook(endpointSecret).verify(request.body, request.headers)).toMatchObject({ messageId: event.id })
      }
      const delivery = await waitForDelivery(mailroom, account.id, deliveryId, (d) => d.status === "succeeded", 5_000)
      expect(delivery.status).toBe("succeeded")
      // After the outage, a new event is delivered at once.
      const later = await commitEvent(mailroom, account.id)
      const after = await waitForRequests("/outage", requests.length + 1, 10_000)
      expect(JSON.parse(after.at(-1)!.body)).toMatchObject({ messageId: later.id })
    } finally {
      await mailroom.close()
    }
  })

  it("a fault between the fan-out of a batch and the enqueue of its jobs strands nothing: every event is delivered within 60 seconds, with no restart", { timeout: 120_000 }, async () => {
    const file = join(directory, "enqueue-fault.sqlite")
    const mailroom = open(file)
    try {
      await mailroom.ready()
      const { account, secret: endpointSecret } = await setUp(mailroom, "/enqueue-fault")
      // The fault: for 20 seconds, writing a delivery job fails (a trigger on the jobs table, from a connection of
      // the test's own), after its batch's deliveries were made in the same transaction.
      const faulty = new Database(file)
      faulty.exec(`CREATE TABLE enqueue_fault (until_ms REAL NOT NULL);
        INSERT INTO enqueue_fault VALUES ((julianday('now') - 2440587.5) * 86400000.0 + 20000);
        CREATE TRIGGER enqueue_fault BEFORE INSERT ON jobs
          WHEN NEW.name = 'webhook.deliver' AND (julianday('now') - 2440587.5) * 86400000.0 < (SELECT until_ms FROM enqueue_fault)
          BEGIN SELECT RAISE(ABORT, 'injected fault'); END;`)
      faulty.close()
      const events = await mailroom.runtime.runPromise(Effect.gen(function* () {
        const store = yield* Store
        const made = Array.from({ length: 50 }, (_, i) => makeEvent({ accountId: account.id, type: "list.member_added", recipient: `m${i}@example.com` }))
        for (let i = 0; i < made.length; i += 10) yield* store.transaction(store.events.append(made.slice(i, i + 10)))
        return made
      }))
      const committedAt = Date.now()
      // While the fault lasts, no delivery is left behind without its job: the batch is not committed at all.
      await sleep(5_000)
      expect(requestsTo("/enqueue-fault")).toHaveLength(0)
      const requests = await waitForRequests("/enqueue-fault", events.length, 60_000)
      expect(Date.now() - committedAt).toBeLessThan(60_000)
      const delivered = requests.map((request) => (new Webhook(endpointSecret).verify(request.body, request.headers) as { messageId: string }).messageId)
      expect([...new Set(delivered)].sort()).toEqual(events.map((e) => e.id).sort())
    } finally {
      await mailroom.close()
    }
  })
})
