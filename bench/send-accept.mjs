// send-accept: POST /v1/emails/send to 3 recipients, 50 connections, through the Hono mount on SQLite and Postgres,
// beside a bare Hono route doing the same work with the raw driver in one transaction (the eligibility anti-join, the
// quota upsert, the message, its recipients, its email.queued events and its event log). Target 0.50. The account is
// Enterprise (no monthly quota to run out of) and background work is off: this measures acceptance, not delivery.
import { freshPostgresUrl, freshSqliteFile, interleave, load, report, startServer, uniqueEmail } from "./lib.mjs"

const seconds = Number(process.env.MAILROOM_BENCH_SECONDS ?? 3)

const body = () => JSON.stringify({
  from: { email: "receipts@sender.example", name: "Receipts" },
  to: [{ email: uniqueEmail("to"), name: "Ada" }],
  cc: [{ email: uniqueEmail("cc") }],
  bcc: [{ email: uniqueEmail("bcc") }],
  content: { subject: "Your receipt {{number}}", html: "<p>Thanks for order {{number}}.</p>" },
  variables: { number: "1042" },
})

const throughput = (server) => () =>
  load({
    url: server.url,
    path: "/v1/emails/send",
    headers: { authorization: `Bearer ${server.apiKey}` },
    makeBody: body,
    seconds,
  })

export const run = async ({ backends }) => {
  for (const backend of backends) {
    const database = async (name) => backend === "sqlite" ? `sqlite:${freshSqliteFile(name)}` : await freshPostgresUrl(name)
    const mailroomDb = await database("bench_send_mailroom")
    const floorDb = await database("bench_send_floor")
    if (!mailroomDb || !floorDb) {
      console.log(`bench send-accept ${backend}: skipped (no database server answers)`)
      continue
    }
    const mailroom = await startServer("mailroom.mjs", { FRAMEWORK: "hono", DATABASE_URL: mailroomDb, PLAN: "enterprise", BACKGROUND: "0" })
    const floor = await startServer("sending-floor.mjs", { DATABASE_URL: floorDb })
    try {
      const [x, y] = await interleave(throughput(mailroom), throughput(floor))
      report("send-accept", backend, x, y, 0.5)
    } finally {
      await Promise.all([mailroom.stop(), floor.stop()])
    }
  }
}
