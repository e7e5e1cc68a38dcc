// contacts-bulk: POST /v1/contacts/bulk of 1,000 contacts of which 10% are already in the account, through the Hono
// mount on SQLite and Postgres, beside a bare Hono route inserting the same rows in one transaction with the raw
// driver (target 0.40). Throughput is in requests (of 1,000 contacts) per second.
import { freshPostgresUrl, freshSqliteFile, interleave, load, report, startServer, uniqueEmail } from "./lib.mjs"

const seconds = Number(process.env.MAILROOM_BENCH_SECONDS ?? 3)
const batchSize = 1000
const duplicateShare = 0.1

/** Bodies of 1,000 contacts: 900 new addresses and 100 taken from the previous batch sent to the same server. */
const bodies = () => {
  let previous = []
  return () => {
    const fresh = Array.from({ length: batchSize * (1 - duplicateShare) }, () => uniqueEmail("bulk"))
    const repeats = previous.length > 0 ? previous.slice(0, batchSize * duplicateShare) : Array.from({ length: batchSize * duplicateShare }, () => uniqueEmail("bulk"))
    previous = fresh
    return JSON.stringify({ contacts: [...fresh, ...repeats].map((email) => ({ email, firstName: "Ada" })) })
  }
}

const throughput = (server) => {
  const makeBody = bodies()
  return () => load({
    url: server.url,
    path: "/v1/contacts/bulk",
    headers: { authorization: `Bearer ${server.apiKey}` },
    makeBody,
    connections: 4,
    seconds,
  })
}

export const run = async ({ backends }) => {
  for (const backend of backends) {
    const database = async (name) => backend === "sqlite" ? `sqlite:${freshSqliteFile(name)}` : await freshPostgresUrl(name)
    const mailroomDb = await database("bench_bulk_mailroom")
    const floorDb = await database("bench_bulk_floor")
    if (!mailroomDb || !floorDb) {
      console.log(`bench contacts-bulk ${backend}: skipped (no database server answers)`)
      continue
    }
    const mailroom = await startServer("mailroom.mjs", { FRAMEWORK: "hono", DATABASE_URL: mailroomDb })
    const floor = await startServer("floor.mjs", { FRAMEWORK: "hono", DATABASE_URL: floorDb })
    try {
      const [x, y] = await interleave(throughput(mailroom), throughput(floor))
      report("contacts-bulk", backend, x, y, 0.4)
    } finally {
      await Promise.all([mailroom.stop(), floor.stop()])
    }
  }
}
