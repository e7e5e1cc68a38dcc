// A Mailroom server for benchmarks, mounted like the starter: FRAMEWORK=hono|express|fastify, DATABASE_URL; PLAN (the
// account's plan, default pro), BACKGROUND=0 (no background work), AUDIENCE=1 (seeds bench/servers/audience.mjs and
// reports its topic id).
// Rate limits are raised through their configuration option so the load measures the work, not the limiter. (The
// failed-authentication limit counts an attempt whose key is not cached yet until it succeeds: 50 connections
// starting together, or meeting an expired cache entry, would pass its 30 per minute.)
import { createMailroom } from "@mailroom/mailroom"

const framework = process.env.FRAMEWORK ?? "hono"
const mailroom = createMailroom({
  database: process.env.DATABASE_URL,
  // Fixed by a scenario that signs tokens itself (track-click); generated and kept in the database otherwise.
  ...(process.env.MAILROOM_SECRET === undefined ? {} : { secret: process.env.MAILROOM_SECRET }),
  sqliteSynchronous: process.env.SQLITE_SYNCHRONOUS ?? "FULL",
  logLevel: "error",
  backgroundWork: process.env.BACKGROUND !== "0",
  rateLimits: {
    contactsCreatePerMinute: 1_000_000_000, requestsPerSecond: 1_000_000_000, failedAuthenticationsPerMinute: 1_000_000_000,
    emailsSendPerSecond: 1_000_000_000, emailsBatchPerSecond: 1_000_000_000,
  },
})
await mailroom.ready()
const { account, apiKey } = await mailroom.accounts.create({ name: "bench", plan: process.env.PLAN ?? "pro" })
const topicId = process.env.AUDIENCE === "1"
  ? await (await import("./audience.mjs")).seedAudience(mailroom, account.id, apiKey)
  : undefined

const listen = {
  async hono() {
    const { Hono } = await import("hono")
    const { serve } = await import("@hono/node-server")
    const { mountMailroom } = await import("@mailroom/hono")
    const app = new Hono()
    mountMailroom(app, "/", mailroom)
    return new Promise((resolve) => {
      const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => resolve({ port: info.port, server }))
    })
  },
  async express() {
    const { default: express } = await import("express")
    const { mailroomMiddleware } = await import("@mailroom/express")
    const app = express()
    app.use("/", mailroomMiddleware(mailroom))
    return new Promise((resolve) => {
      const server = app.listen(0, "127.0.0.1", () => resolve({ port: server.address().port, server }))
    })
  },
  async fastify() {
    const { default: Fastify } = await import("fastify")
    const { mailroomPlugin } = await import("@mailroom/fastify")
    const app = Fastify()
    await app.register(mailroomPlugin, { prefix: "/", mailroom })
    await app.listen({ host: "127.0.0.1", port: 0 })
    return { port: app.server.address().port, server: app.server }
  },
}

const { port, server } = await listen[framework]()
process.send({ port, apiKey, accountId: account.id, topicId })
process.on("SIGTERM", () => {
  server.close()
  mailroom.close().finally(() => process.exit(0))
})
