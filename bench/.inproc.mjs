import { createMailroom } from "mailroom"
import { rmSync } from "node:fs"
const db = process.argv[2] ?? "sqlite:/tmp/prof/inproc.sqlite"
if (db.startsWith("sqlite:")) for (const s of ["", "-wal", "-shm"]) rmSync(db.slice(7) + s, { force: true })
const m = createMailroom({ database: db, logLevel: "error", rateLimits: { contactsCreatePerMinute: 1e9, requestsPerSecond: 1e9 } })
await m.ready()
const { apiKey } = await m.accounts.create({ plan: "pro" })
let i = 0
const req = () => new Request("http://x/v1/contacts", { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ email: `a${i++}@example.com`, firstName: "Ada" }) })
const health = () => new Request("http://x/api/health")
const get = () => new Request("http://x/v1/contacts?limit=1", { headers: { authorization: `Bearer ${apiKey}` } })
for (const [name, mk] of [["create", req], ["health", health], ["get", get]]) {
  for (let w = 0; w < 300; w++) await m.fetch(mk())
  const n = 2000, t = performance.now()
  for (let k = 0; k < n; k++) { const r = await m.fetch(mk()); if (r.status >= 300) throw new Error(await r.text()); await r.arrayBuffer() }
  console.log(name, ((performance.now() - t) / n * 1000).toFixed(0), "µs/req")
}
await m.close()
