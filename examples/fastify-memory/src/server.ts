// Mailroom inside a Fastify service with the in-memory backend: nothing to install, nothing kept after exit.
// Good for demos and for trying the API. Mailroom answers under /mailroom; the rest of the app is the host's.
import { mailroomPlugin } from "@mailroom/fastify"
import Fastify from "fastify"
import { createMailroom } from "@mailroom/mailroom"

const port = Number(process.env.PORT ?? 3000)
const host = process.env.HOST ?? "127.0.0.1"

const mailroom = createMailroom({
  database: "memory:",
  // Where Mailroom is reachable, prefix included, for the links it writes into mail.
  appUrl: process.env.APP_URL ?? `http://localhost:${port}/mailroom`,
  ...(process.env.ADMIN_TOKEN ? { adminToken: process.env.ADMIN_TOKEN } : {}),
})
await mailroom.ready()

const app = Fastify()

app.get("/", async () => ({ service: "demo", mailroom: "/mailroom/api/health" }))

// An encapsulated plugin: its catch-all routes and raw-body parser apply under the prefix only.
await app.register(mailroomPlugin, { prefix: "/mailroom", mailroom })

// Fastify's close() stops accepting, closes idle connections and waits for in-flight requests.
app.addHook("onClose", () => mailroom.close())

const address = await app.listen({ port, host })
console.log(`Mailroom listening on ${address}/mailroom`)

let stopping = false
const stop = () => {
  if (stopping) return
  stopping = true
  app.close().then(() => process.exit(0), (error) => {
    console.error("Shutdown failed:", error)
    process.exit(1)
  })
}
process.on("SIGINT", stop)
process.on("SIGTERM", stop)
