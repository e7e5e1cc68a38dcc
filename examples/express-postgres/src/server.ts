// Mailroom inside an Express service, on PostgreSQL: the service's own routes first, then Mailroom's routes at
// the root (/v1/…, /admin/…, /api/health). Several instances of the service may share one database.
import { mailroomMiddleware } from "@mailroom/express"
import express from "express"
import { createMailroom } from "@mailroom/mailroom"
import type { AddressInfo } from "node:net"

const port = Number(process.env.PORT ?? 3000)
const host = process.env.HOST ?? "127.0.0.1"
const database = process.env.DATABASE_URL ?? ""
if (!/^postgres(ql)?:\/\//.test(database)) {
  console.error("DATABASE_URL must be a postgres:// or postgresql:// URL, e.g. postgres://mailroom@127.0.0.1:5432/mailroom")
  process.exit(1)
}

const appUrl = process.env.APP_URL ?? `http://localhost:${port}`
const mailroom = createMailroom({
  database,
  appUrl,
  trackUrl: process.env.TRACK_URL ?? appUrl,
  ...(process.env.MAILROOM_SECRET ? { secret: process.env.MAILROOM_SECRET } : {}),
  ...(process.env.ADMIN_TOKEN ? { adminToken: process.env.ADMIN_TOKEN } : {}),
  ...(process.env.SMTP_URL ? { smtpUrl: process.env.SMTP_URL } : {}),
})
await mailroom.ready()

const app = express()
app.disable("x-powered-by")

// The service's own routes, with their own body parser. Mailroom reads request bodies itself, so parsers
// must not run before it: scope them to the routes that need them, as here.
app.post("/orders", express.json(), (req, res) => {
  res.status(201).json({ received: req.body as unknown })
})

// Everything else is Mailroom's, including its 404 for unknown paths.
app.use("/", mailroomMiddleware(mailroom))

const server = app.listen(port, host, () => {
  const { port: listening } = server.address() as AddressInfo
  console.log(`Mailroom listening on http://${host}:${listening}`)
})

let stopping = false
const stop = () => {
  if (stopping) return
  stopping = true
  // Stop accepting; close kept-alive connections as they go idle; close Mailroom once the last request is done.
  const idle = setInterval(() => server.closeIdleConnections(), 50)
  server.close(() => {
    clearInterval(idle)
    mailroom.close().then(() => process.exit(0), (error) => {
      console.error("Mailroom did not close cleanly:", error)
      process.exit(1)
    })
  })
}
process.on("SIGINT", stop)
process.on("SIGTERM", stop)
