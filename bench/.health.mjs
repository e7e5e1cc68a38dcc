import { createMailroom } from "mailroom"
import { Hono } from "hono"
const m = createMailroom({ database: process.argv[2] ?? "memory:", logLevel: "error" })
await m.ready()
const app = new Hono(); app.get("/api/health", (c) => c.json({ status: "ok" }))
const time = async (name, f, n = 5000) => { for (let i = 0; i < 500; i++) await f(); const t = performance.now(); for (let i = 0; i < n; i++) await f(); console.log(name, ((performance.now() - t) / n * 1000).toFixed(1), "µs") }
await time("bare hono", async () => (await app.fetch(new Request("http://x/api/health"))).arrayBuffer())
await time("mailroom health", async () => (await m.fetch(new Request("http://x/api/health"))).arrayBuffer())
await time("mailroom 404 v1 no auth", async () => (await m.fetch(new Request("http://x/v1/nothing"))).arrayBuffer())
await m.close()
