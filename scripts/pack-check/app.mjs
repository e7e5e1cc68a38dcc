// The scratch app of scripts/pack-check.mjs: Mailroom as a user installs it from the registry, mounted on one framework.
// Usage: node app.mjs hono|express|fastify DATABASE_URL. Prints "listening <base URL>" once it serves; SIGTERM stops it.
import { createMailroom } from "@mailroom/mailroom"

const [framework, database] = process.argv.slice(2)
const adminToken = process.env.ADMIN_TOKEN
const mailroom = createMailroom({ database, adminToken, logLevel: "warn" })
await mailroom.ready()

const listen = {
  hono: async () => {
    const { serve } = await import("@hono/node-server")
    const { Hono } = await import("hono")
    const { mountMailroom } = await import("@mailroom/hono")
    const app = new Hono()
    app.get("/", (c) => c.text("host app"))
    mountMailroom(app, "/", mailroom)
    return new Promise((resolve) => {
      const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) =>
        resolve({ base: `http://127.0.0.1:${info.port}`, close: () => new Promise((done) => { server.close(done); server.closeAllConnections() }) }))
    })
  },
  express: async () => {
    const { default: express } = await import("express")
    const { mailroomMiddleware } = await import("@mailroom/express")
    const app = express()
    app.post("/orders", express.json(), (req, res) => res.status(201).json(req.body))
    app.use("/", mailroomMiddleware(mailroom))
    return new Promise((resolve) => {
      const server = app.listen(0, "127.0.0.1", () =>
        resolve({ base: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((done) => { server.close(done); server.closeAllConnections() }) }))
    })
  },
  fastify: async () => {
    const { default: Fastify } = await import("fastify")
    const { mailroomPlugin } = await import("@mailroom/fastify")
    const app = Fastify()
    await app.register(mailroomPlugin, { prefix: "/mailroom", mailroom })
    const address = await app.listen({ port: 0, host: "127.0.0.1" })
    return { base: `${address}/mailroom`, close: () => app.close() }
  },
}

const server = await listen[framework]()
console.log(`listening ${server.base}`)
process.once("SIGTERM", async () => {
  await server.close()
  await mailroom.close()
  process.exit(0)
})
