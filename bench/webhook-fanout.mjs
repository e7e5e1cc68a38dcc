// webhook-fanout: committed outbox events delivered to a local receiver on 127.0.0.1 through Mailroom's whole path
// (outbox, relay, fan-out, job queue, signing, POST through the pinned undici transport and the attempt record), on
// SQLite and Postgres, beside a floor: a bare undici loop POSTing the same signed bodies at the same concurrency
// (target 0.4: one lane through the ports, and a p99 from commit to 2xx under 50 ms). Throughput is in deliveries per
// second for a burst of events, until every attempt is recorded (checked
// with a narrow read of the deliveries still pending, on a connection of the benchmark's own); the
// end-to-end latency, from the commit of an event to the receiver's 2xx, is measured on events committed one at a
// time (median and p99).
import http from "node:http"
import { Accounts, defaultDeliveryConcurrency, deliveryIdFor, signedHeaders, Store, Webhooks } from "@mailroom/core"
import { Effect } from "effect"
import { createMailroom } from "@mailroom/mailroom"
import pg from "pg"
import { Agent, request } from "undici"
import { freshPostgresUrl, freshSqliteFile, interleave, report } from "./lib.mjs"

const burst = Number(process.env.MAILROOM_BENCH_WEBHOOKS ?? 1000)
const paced = Number(process.env.MAILROOM_BENCH_WEBHOOKS_PACED ?? 100)
const concurrency = defaultDeliveryConcurrency
/** Rounds of each side, alternated; each side's median is reported. With three, one slow round moved the median: the
 *  same code measured 0.33 to 0.50 on SQLite within an hour on a 2-core machine. A round takes well under a second. */
const rounds = Number(process.env.MAILROOM_BENCH_WEBHOOKS_ROUNDS ?? 7)
/** Warm-up rounds of each side, alternated, before the measured ones. V8 is still compiling Mailroom's path for the
 *  first ten thousand deliveries or so of a process; the floor, a short loop, within its first round. After one
 *  warm-up round, Mailroom's measured rounds ran about 40 ms a round more of V8's helper threads, compiling (on the
 *  other core, beside the database server), and 20–30 ms more of the main thread than after fifteen (Postgres, 2-core
 *  machine): the ratio measured a process starting rather than one delivering (Postgres 0.49–0.58 against
 *  0.57–0.61). Fifteen rounds (15,000 deliveries a side, about 5 seconds) are past the point where it stops moving
 *  (about ten), as the HTTP scenarios' two 3-second warm-up runs are. */
const warmups = Number(process.env.MAILROOM_BENCH_WEBHOOKS_WARMUPS ?? 15)
const secret = "bench-webhook-fanout-platform-secret-0123"

/** The receiver: answers 204 to every POST and tells who waits for an event (by messageId) when it arrived. */
const startReceiver = async () => {
  const waiting = new Map()
  const server = http.createServer((req, res) => {
    const chunks = []
    req.on("data", (chunk) => chunks.push(chunk))
    req.on("end", () => {
      res.writeHead(204).end()
      const id = JSON.parse(Buffer.concat(chunks).toString("utf8")).messageId
      const resolve = waiting.get(id)
      if (resolve !== undefined) {
        waiting.delete(id)
        resolve(performance.now())
      }
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    arrival: (id) => new Promise((resolve) => waiting.set(id, resolve)),
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve) }),
  }
}

let sequence = 0
const events = (accountId, count) => Array.from({ length: count }, () => ({
  id: `evt_bench_${process.pid}_${sequence++}`,
  accountId,
  type: "list.member_added",
  recipient: `member${sequence}@example.com`,
  details: { listId: "lst_bench", contactId: `ct_${sequence}`, email: `member${sequence}@example.com` },
  occurredAt: new Date(),
}))

const percentile = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]
}

/** Which of the named deliveries are still pending, read straight from the database on a connection of its own: the
 *  check that a round is over costs the round as little as the driver can (reading the deliveries through the Store
 *  would decode every column of every row, payload included, on the thread that delivers them). */
const pendingReader = async (database) => {
  if (database.startsWith("sqlite:")) {
    const { default: Database } = await import("better-sqlite3")
    const db = new Database(database.slice("sqlite:".length), { readonly: true })
    const statement = db.prepare("SELECT id FROM webhook_deliveries WHERE status = 'pending' AND id IN (SELECT value FROM json_each(?))").pluck()
    return Object.assign(async (ids) => statement.all(JSON.stringify(ids)), { close: async () => db.close() })
  }
  const pool = new pg.Pool({ connectionString: database, max: 1 })
  return Object.assign(
    async (ids) => (await pool.query("SELECT id FROM webhook_deliveries WHERE status = 'pending' AND id = ANY($1::text[])", [ids])).rows.map((row) => row.id),
    { close: () => pool.end() },
  )
}

const setUp = async (database, receiver) => {
  const mailroom = createMailroom({ database, secret, unsafeAllowPrivateUrls: true, logLevel: "error" })
  await mailroom.ready()
  const { account, endpoint, endpointSecret } = await mailroom.runtime.runPromise(Effect.gen(function* () {
    const { account } = yield* (yield* Accounts).create({ plan: "pro", ownerEmail: "owner@example.com" })
    const created = yield* (yield* Webhooks).create(account, { url: receiver.url, events: ["list.member_added"] })
    return { account, endpoint: created.endpoint, endpointSecret: created.secret }
  }))
  const commit = (batch) => mailroom.runtime.runPromise(Effect.flatMap(Store, (store) => store.transaction(store.events.append(batch))))
  const pending = await pendingReader(database)
  /** Waits until none of the deliveries is pending any longer (their attempts recorded), looking again every 2 ms at
   *  those still pending. */
  const recorded = async (deliveryIds) => {
    let left = deliveryIds
    while (left.length > 0) {
      left = await pending(left)
      if (left.length > 0) await new Promise((resolve) => setTimeout(resolve, 2))
    }
  }
  return { mailroom, accountId: account.id, endpointId: endpoint.id, endpointSecret, commit, recorded, close: pending.close }
}

/** Mailroom: commits `burst` events (100 per transaction) and answers deliveries per second until every attempt is
 *  recorded: the last 2xx, then the record of the last attempts (work left after the last 2xx would otherwise run in
 *  the floor's round). */
const mailroomRound = (side, receiver) => async () => {
  const batch = events(side.accountId, burst)
  const arrivals = batch.map((event) => receiver.arrival(event.id))
  const started = performance.now()
  for (let i = 0; i < batch.length; i += 100) await side.commit(batch.slice(i, i + 100))
  await Promise.all(arrivals)
  await side.recorded(batch.map((event) => deliveryIdFor(event.id, side.endpointId)))
  return burst / ((performance.now() - started) / 1000)
}

/** The floor: the same signed bodies POSTed by a bare undici loop at the same concurrency. */
const floorRound = (side, receiver) => {
  const dispatcher = new Agent({ connections: concurrency, pipelining: 1 })
  return async () => {
    const batch = events(side.accountId, burst)
    const bodies = batch.map((event) => {
      const body = JSON.stringify({ eventType: event.type, messageId: event.id, timestamp: event.occurredAt.toISOString(), recipient: event.recipient, details: event.details })
      return { body, id: event.id }
    })
    let next = 0
    const started = performance.now()
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) {
        const { body, id } = bodies[next++]
        const headers = signedHeaders({ current: side.endpointSecret }, { webhookId: `whd_${id}`, attemptId: `wha_${id}`, eventType: "list.member_added", body, at: new Date() })
        const response = await request(receiver.url, { method: "POST", headers, body, dispatcher, headersTimeout: 10_000, bodyTimeout: 10_000 })
        await response.body.dump()
        if (response.statusCode < 200 || response.statusCode >= 300) throw new Error(`receiver answered ${response.statusCode}`)
      }
    }))
    return burst / ((performance.now() - started) / 1000)
  }
}

/** Latency from commit to 2xx, on events committed one at a time, 20 ms apart. */
const latency = async (side, receiver) => {
  const samples = []
  for (const event of events(side.accountId, paced)) {
    const arrival = receiver.arrival(event.id)
    await side.commit([event])
    const committed = performance.now()
    samples.push((await arrival) - committed)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return { median: percentile(samples, 0.5), p99: percentile(samples, 0.99) }
}

export const run = async ({ backends }) => {
  for (const backend of backends) {
    const database = backend === "sqlite" ? `sqlite:${freshSqliteFile("bench_webhooks")}` : await freshPostgresUrl("bench_webhooks")
    if (!database) {
      console.log(`bench webhook-fanout ${backend}: skipped (no database server answers)`)
      continue
    }
    const receiver = await startReceiver()
    const side = await setUp(database, receiver)
    try {
      const [x, y] = await interleave(mailroomRound(side, receiver), floorRound(side, receiver), rounds, warmups)
      const { median, p99 } = await latency(side, receiver)
      report("webhook-fanout", backend, x, y, 0.4, `latency_ms median=${median.toFixed(1)} p99=${p99.toFixed(1)} (commit to 2xx)`)
    } finally {
      await side.close()
      await side.mailroom.close()
      await receiver.close()
    }
  }
}
