// The main starter: Mailroom's routes at the root of a Hono app on Node, SQLite by default. `npm start` at the
// repository root runs it. It migrates the schema at boot, prints one line with its URL, and on SIGINT or
// SIGTERM stops accepting, lets in-flight requests finish, closes Mailroom and exits 0.
import { serve } from "@hono/node-server"
import { mountMailroom } from "@mailroom/hono"
import { Hono } from "hono"
import { createMailroom, type Mailroom, type MailroomConfig, readEnvironmentOrExit, startupFailureLine } from "@mailroom/mailroom"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { homePage } from "./home-page.js"

/** How long in-flight requests get to finish after a stop signal before their connections are closed. */
const shutdownGraceMs = 10_000

const environment = readEnvironmentOrExit(process.env)

/** A Mailroom whose database is open and migrated. */
const openMailroom = async (config: MailroomConfig): Promise<Mailroom> => {
  const mailroom = createMailroom(config)
  try {
    await mailroom.ready()
    return mailroom
  } catch (error) {
    await mailroom.close().catch(() => undefined)
    throw error
  }
}

const mailroom = await openMailroom(environment.mailroom).catch((error: unknown) => {
  console.error(startupFailureLine(environment.mailroom.database, error))
  if (environment.mailroom.logLevel === "debug") console.error(error)
  return process.exit(1)
})

const app = new Hono()
app.get("/", (c) => c.html(homePage({
  adminOn: environment.mailroom.adminToken !== undefined,
  devOutbox: environment.mailroom.smtpUrl === undefined,
})))
mountMailroom(app, "/", mailroom)

const isLoopback = (hostname: string) => hostname === "localhost" || hostname === "[::1]" || hostname === "::1" ||
  /^127(\.\d{1,3}){3}$/.test(hostname)

/** The URL to print: the address listened on, spelled as APP_URL spells it when both are this machine on the same
 *  port (by default APP_URL is http://localhost:PORT), so that pages opened at the printed URL are on APP_URL's origin. */
const urlOf = ({ address, port }: AddressInfo) => {
  const appUrl = new URL(environment.mailroom.appUrl ?? "")
  if (appUrl.protocol === "http:" && isLoopback(appUrl.hostname) && isLoopback(address) && Number(appUrl.port || 80) === port) {
    return appUrl.origin
  }
  return `http://${address.includes(":") ? `[${address}]` : address}:${port}`
}

const server = serve({ fetch: app.fetch, port: environment.port, hostname: environment.host }, (address) => {
  console.log(`Mailroom listening on ${urlOf(address)}`)
  if (environment.mailroom.adminToken === undefined) {
    console.error("The operator API (/admin) is off: set ADMIN_TOKEN to a secret of your choice to turn it on, " +
      "then create accounts with POST /admin/accounts and Authorization: Bearer $ADMIN_TOKEN")
  }
}) as Server
server.once("error", async (error) => {
  console.error(`Mailroom could not listen on ${environment.host}:${environment.port}: ${error.message}`)
  await mailroom.close().catch(() => undefined)
  process.exit(1)
})

let stopping = false
const stop = async () => {
  if (stopping) return
  stopping = true
  const forced = setTimeout(() => server.closeAllConnections(), shutdownGraceMs)
  // close() stops accepting and calls back once every connection has ended. A kept-alive connection stays
  // open after its last response until it times out, so idle ones are closed as soon as they become idle.
  const idle = setInterval(() => server.closeIdleConnections(), 50)
  await new Promise<void>((resolve) => server.close(() => resolve()))
  clearTimeout(forced)
  clearInterval(idle)
  try {
    await mailroom.close()
  } catch (error) {
    console.error("Mailroom did not close cleanly:", error)
    process.exit(1)
  }
  process.exit(0)
}
process.on("SIGINT", stop)
process.on("SIGTERM", stop)
