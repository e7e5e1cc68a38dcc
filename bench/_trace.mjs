import http from "node:http"
import { Accounts, deliveryIdFor, Store, Webhooks } from "@mailroom/core"
import { Effect } from "effect"
import { createMailroom } from "@mailroom/mailroom"
import pg from "pg"
import { freshPostgresUrl, freshSqliteFile } from "./lib.mjs"
const log = []
let on = false
globalThis.__mrT = (name, n) => { if (on) log.push([performance.now(), name, n]) }
const waiting = new Map()
const server = http.createServer((req, res) => { const c = []; req.on("data", (x) => c.push(x)); req.on("end", () => { res.writeHead(204).end(); const id = JSON.parse(Buffer.concat(c).toString()).messageId; const r = waiting.get(id); if (r) { waiting.delete(id); r(performance.now()) } }) })
server.keepAliveTimeout = 60000
await new Promise((r) => server.listen(0, "127.0.0.1", r))
const url = `http://127.0.0.1:${server.address().port}/hooks`
const database = process.argv[2] === "sqlite" ? `sqlite:${freshSqliteFile("trace_webhooks")}` : await freshPostgresUrl("trace_webhooks_lane2")
const mailroom = createMailroom({ database, secret: "bench-webhook-fanout-platform-secret-0123", unsafeAllowPrivateUrls: true, logLevel: "error" })
await mailroom.ready()
const { account, endpoint } = await mailroom.runtime.runPromise(Effect.gen(function* () {
  const { account } = yield* (yield* Accounts).create({ plan: "pro", ownerEmail: "o@example.com" })
  const created = yield* (yield* Webhooks).create(account, { url, events: ["list.member_added"] })
  return { account, endpoint: created.endpoint }
}))
const commit = (batch) => mailroom.runtime.runPromise(Effect.flatMap(Store, (store) => store.transaction(store.events.append(batch))))
let seq = 0
const events = (n) => Array.from({ length: n }, () => ({ id: `evt_t_${seq++}`, accountId: account.id, type: "list.member_added", recipient: `m${seq}@example.com`, details: { listId: "l", contactId: `c${seq}`, email: `m${seq}@example.com` }, occurredAt: new Date() }))
const pool = database.startsWith("sqlite") ? undefined : new pg.Pool({ connectionString: database, max: 1 })
const pending = async (ids) => pool ? (await pool.query("SELECT id FROM webhook_deliveries WHERE status = 'pending' AND id = ANY($1::text[])", [ids])).rows.map((r) => r.id) : []
const round = async (trace) => {
  const batch = events(1000)
  const arrivals = batch.map((e) => new Promise((r) => waiting.set(e.id, r)))
  on = trace; log.length = 0
  const t0 = performance.now()
  for (let i = 0; i < batch.length; i += 100) { await commit(batch.slice(i, i + 100)); if (trace) log.push([performance.now(), "committed", 100]) }
  const times = await Promise.all(arrivals)
  const tPosted = performance.now()
  let left = batch.map((e) => deliveryIdFor(e.id, endpoint.id))
  while (left.length > 0) { left = await pending(left); if (left.length) await new Promise((r) => setTimeout(r, 2)) }
  const t1 = performance.now()
  on = false
  if (trace) {
    times.sort((a, b) => a - b)
    console.log(`round ${(t1 - t0).toFixed(1)} ms; last 2xx at ${(tPosted - t0).toFixed(1)}; arrivals p10 ${(times[100] - t0).toFixed(1)} p50 ${(times[500] - t0).toFixed(1)} p90 ${(times[900] - t0).toFixed(1)}`)
    for (const [t, name, n] of log) console.log((t - t0).toFixed(1).padStart(8), name, n)
  }
  return 1000 / ((t1 - t0) / 1000)
}
for (let i = 0; i < 15; i++) await round(false)
const rates = []
for (let i = 0; i < 5; i++) rates.push(await round(false))
console.log("rates", rates.map((r) => r.toFixed(0)).join(" "))
await round(true)
await pool?.end(); await mailroom.close(); server.close(); process.exit(0)
