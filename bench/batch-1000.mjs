// batch-1000: POST /v1/emails/batch of 1,000 recipients, marketing mail under a topic, in an account of 100,000
// contacts of which 5% are suppressed and 2% opted out of the topic (bench/servers/audience.mjs), through the Hono
// mount on SQLite and Postgres. The answer comes once every message is queued, so a request's time is the time from
// request to all queued; throughput is in batches per second over 2 connections. The floor is a bare Hono route
// doing one anti-join query plus the multi-row insert of the messages and their recipients with the raw driver.
// Target 0.50.
import pg from "pg"
import { freshPostgresUrl, freshSqliteFile, interleave, load, report, startServer } from "./lib.mjs"
import { batchBody } from "./servers/audience.mjs"

const seconds = Number(process.env.MAILROOM_BENCH_SECONDS ?? 3)

const throughput = (server) => () =>
  load({
    url: server.url,
    path: "/v1/emails/batch",
    headers: { authorization: `Bearer ${server.apiKey}` },
    makeBody: () => batchBody(server.topicId),
    connections: 2,
    seconds,
  })

const analyze = async (url) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query("ANALYZE")
  } finally {
    await client.end()
  }
}

export const run = async ({ backends }) => {
  for (const backend of backends) {
    const database = async (name) => backend === "sqlite" ? `sqlite:${freshSqliteFile(name)}` : await freshPostgresUrl(name)
    const mailroomDb = await database("bench_batch_mailroom")
    const floorDb = await database("bench_batch_floor")
    if (!mailroomDb || !floorDb) {
      console.log(`bench batch-1000 ${backend}: skipped (no database server answers)`)
      continue
    }
    const mailroom = await startServer("mailroom.mjs", {
      FRAMEWORK: "hono", DATABASE_URL: mailroomDb, PLAN: "enterprise", BACKGROUND: "0", AUDIENCE: "1",
    })
    const floor = await startServer("sending-floor.mjs", { DATABASE_URL: floorDb, AUDIENCE: "1" })
    // Both audiences were just written: without statistics Postgres plans the anti-join over the account's 100,000
    // contacts (about 120 ms against 8 ms once analysed), and autovacuum gets to one database before the other at
    // random. A deployment's tables have their statistics, so both sides are measured with theirs.
    if (backend === "postgres") await Promise.all([mailroomDb, floorDb].map(analyze))
    try {
      const [x, y] = await interleave(throughput(mailroom), throughput(floor))
      report("batch-1000", backend, x, y, 0.5, `(${(1000 / x).toFixed(0)} ms per batch against ${(1000 / y).toFixed(0)} ms)`)
    } finally {
      await Promise.all([mailroom.stop(), floor.stop()])
    }
  }
}
