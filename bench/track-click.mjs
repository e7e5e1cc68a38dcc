// track-click: GET {TRACK_URL}/l/<token> of 100 recipients' click links with a browser's user agent, 50 connections,
// through the Hono mount on SQLite and Postgres (each click verified, classified, answered 302, then recorded in a
// batch with its email.clicked event), beside a bare Hono route that verifies the same HMAC, inserts one row per click
// with the raw driver and redirects (bench/servers/track-click-floor.mjs). Target 0.60; p99 latency printed.
import autocannon from "autocannon"
import { deriveTokenKey, signToken } from "@mailroom/core"
import { freshPostgresUrl, freshSqliteFile, interleave, report, startServer } from "./lib.mjs"

const seconds = Number(process.env.MAILROOM_BENCH_SECONDS ?? 3)
const secret = "track-click-bench-secret-0123456789abcdef"
const chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

const databaseFor = async (backend, name) =>
  backend === "sqlite" ? `sqlite:${freshSqliteFile(name)}` : await freshPostgresUrl(name)

/** Click link paths of 100 recipients of one message of `accountId`, each to its own target and position. */
const paths = (accountId) => {
  const key = deriveTokenKey(secret, "click")
  const now = Date.now()
  return Array.from({ length: 100 }, (_, i) => `/l/${signToken(key, {
    p: "click", a: accountId, r: `reader${i}@example.com`, m: "msg_bench", s: now - 3_600_000,
    u: `https://shop.example.com/item/${i}?ref=mail`, i: i % 5, e: now + 86_400_000,
  })}`)
}

/** Clicks per second and the p99 latency of one run: every answer must be a 302. */
const clicks = (server, links) => () =>
  new Promise((resolve, reject) => {
    let next = 0
    autocannon({
      url: server.url,
      connections: 50,
      duration: seconds,
      headers: { "user-agent": chrome },
      requests: [{ setupRequest: (request) => ({ ...request, path: links[next++ % links.length] }) }],
    }, (error, result) => {
      if (error) return reject(error)
      const redirects = result["3xx"]
      if (result["2xx"] + result["4xx"] + result["5xx"] > 0 || result.errors > 0) {
        return reject(new Error(`${server.url}: answers other than 302 under load (${JSON.stringify({ errors: result.errors, "2xx": result["2xx"], "4xx": result["4xx"], "5xx": result["5xx"] })})`))
      }
      resolve({ rate: redirects / (result.duration || seconds), p99: result.latency.p99 })
    })
  })

export const run = async ({ backends }) => {
  for (const backend of backends) {
    const mailroomDb = await databaseFor(backend, "bench_track_click_mailroom")
    const floorDb = await databaseFor(backend, "bench_track_click_floor")
    if (!mailroomDb || !floorDb) {
      console.log(`bench track-click ${backend}: skipped (no database server answers)`)
      continue
    }
    const mailroom = await startServer("mailroom.mjs", { FRAMEWORK: "hono", DATABASE_URL: mailroomDb, MAILROOM_SECRET: secret })
    const floor = await startServer("track-click-floor.mjs", { DATABASE_URL: floorDb, MAILROOM_SECRET: secret })
    try {
      const mailroomLinks = paths(mailroom.accountId)
      const floorLinks = paths("acc_floor")
      const p99s = { mailroom: [], floor: [] }
      const measured = (side, server, links) => async (warmup) => {
        const { rate, p99 } = await clicks(server, links)()
        if (!warmup) p99s[side].push(p99)
        return rate
      }
      const [x, y] = await interleave(measured("mailroom", mailroom, mailroomLinks), measured("floor", floor, floorLinks))
      const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
      report("track-click", backend, x, y, 0.6, `p99=${median(p99s.mailroom)}ms floor_p99=${median(p99s.floor)}ms`)
    } finally {
      await Promise.all([mailroom.stop(), floor.stop()])
    }
  }
}
