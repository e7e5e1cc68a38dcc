// subscribe: POST /v1/subscriptions of a new address into two lists, 50 connections, through the Hono mount on SQLite
// and Postgres beside a bare Hono route writing the same rows and events with the raw driver in one transaction
// (bench/servers/subscribe-floor.mjs). Target 0.50.
import { freshPostgresUrl, freshSqliteFile, interleave, load, report, startServer, uniqueEmail } from "./lib.mjs"

const seconds = Number(process.env.MAILROOM_BENCH_SECONDS ?? 3)

const databaseFor = async (backend, name) =>
  backend === "sqlite" ? `sqlite:${freshSqliteFile(name)}` : await freshPostgresUrl(name)

/** The two lists of the Mailroom side, made through its API. */
const makeLists = async (server) => {
  const ids = []
  for (const name of ["News", "Offers"]) {
    const response = await fetch(`${server.url}/v1/contacts/lists`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name }),
    })
    if (response.status !== 201) throw new Error(`POST /v1/contacts/lists answered ${response.status}`)
    ids.push((await response.json()).data.id)
  }
  return ids
}

const throughput = (server, listIds) => () =>
  load({
    url: server.url,
    path: "/v1/subscriptions",
    headers: { authorization: `Bearer ${server.apiKey}` },
    makeBody: () => JSON.stringify({ email: uniqueEmail("subscribe"), firstName: "Ada", listIds, consent: { text: "Yes" } }),
    seconds,
  })

export const run = async ({ backends }) => {
  for (const backend of backends) {
    const mailroomDb = await databaseFor(backend, "bench_subscribe_mailroom")
    const floorDb = await databaseFor(backend, "bench_subscribe_floor")
    if (!mailroomDb || !floorDb) {
      console.log(`bench subscribe ${backend}: skipped (no database server answers)`)
      continue
    }
    const mailroom = await startServer("mailroom.mjs", { FRAMEWORK: "hono", DATABASE_URL: mailroomDb })
    const floor = await startServer("subscribe-floor.mjs", { DATABASE_URL: floorDb })
    try {
      const lists = await makeLists(mailroom)
      const [x, y] = await interleave(throughput(mailroom, lists), throughput(floor, floor.listIds))
      report("subscribe", backend, x, y, 0.5)
    } finally {
      await Promise.all([mailroom.stop(), floor.stop()])
    }
  }
}
