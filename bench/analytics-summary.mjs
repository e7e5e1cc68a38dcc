// analytics-summary: GET /v1/analytics/summary, /heatmap and /providers over 30 days for an account with 1,000,000
// delivery and engagement events, on SQLite and Postgres, through Mailroom's handler in process; beside it the bare SQL
// aggregate each route needs over the same rollup table, through the raw driver (better-sqlite3 or pg). Prints the
// median latency of each side and the ratio of the floor's median to Mailroom's (higher is better), target 0.70.
// The events are folded into hourly rollups by core's rollupRowsOf (what recording them does) and the rollup rows are
// written straight into analytics_rollups; the routes never read raw entries, so none are written.
// Run: `npm run bench -- analytics-summary` (MAILROOM_BENCH_BACKENDS=sqlite to run one backend; MAILROOM_BENCH_EVENTS
// to change the number of events, MAILROOM_BENCH_REQUESTS the requests per measured run).
import { createMailroom } from "@mailroom/mailroom"
import { consumerProvider, offsetSpans, rollupRowsOf } from "@mailroom/core"
import { freshPostgresUrl, freshSqliteFile, interleave, report } from "./lib.mjs"

const eventCount = Number(process.env.MAILROOM_BENCH_EVENTS ?? 1_000_000)
const requests = Number(process.env.MAILROOM_BENCH_REQUESTS ?? 15)
const target = 0.7
const hourMs = 3_600_000
const dayMs = 24 * hourMs

const domains = [
  "gmail.com", "googlemail.com", "outlook.com", "hotmail.com", "live.com", "yahoo.com", "ymail.com", "icloud.com", "me.com",
  "aol.com", "gmx.de", "gmx.net", "web.de", "yandex.ru", "proton.me", "mail.ru", "zoho.com", "fastmail.com", "comcast.net",
  "t-online.de", "orange.fr", "libero.it", "qq.com", "163.com", "naver.com",
]
const countries = ["US", "DE", "FR", "GB", "BR", "IN", "JP", "CA", "ES", "IT"]
const categories = ["news", "billing", "alerts", "onboarding", "promo"]
/** Metric mix of the events, by weight. */
const mix = [
  ["sent", 30], ["delivered", 28], ["bounced", 1], ["deferred", 1], ["opened", 18], ["unique_opened", 8], ["clicked", 5],
  ["unique_clicked", 3], ["machine_opened", 4], ["bot_clicked", 1], ["complained", 0.2], ["unsubscribed", 0.8],
]
const weights = mix.reduce((sum, [, w]) => sum + w, 0)

/** A small deterministic generator (mulberry32), so that both backends get the same events. */
const random = (() => {
  let seed = 20261129
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
})()
const pick = (list) => list[Math.floor(random() * list.length)]
const metricOf = () => {
  let r = random() * weights
  for (const [metric, w] of mix) if ((r -= w) < 0) return metric
  return "sent"
}

/** The rollup rows of `eventCount` events of the account over the 30 days before `now`, folded in chunks. */
const rollupsOf = (accountId, now) => {
  const sums = new Map()
  const chunk = 100_000
  for (let done = 0; done < eventCount; done += chunk) {
    const entries = []
    for (let i = done; i < Math.min(eventCount, done + chunk); i++) {
      const metric = metricOf()
      const person = metric === "opened" || metric === "clicked" || metric === "unique_opened" || metric === "unique_clicked"
      entries.push({
        id: `e${i}`, accountId, messageId: `m${i >> 2}`, recipient: `r${i % 50_000}@${pick(domains)}`, metric,
        occurredAt: new Date(now - Math.floor(random() * 30 * dayMs)),
        categories: random() < 0.6 ? [pick(categories)] : [], country: person && random() < 0.9 ? pick(countries) : null,
      })
    }
    for (const row of rollupRowsOf(entries)) {
      const key = `${row.category}\u0000${row.hour}\u0000${row.metric}\u0000${row.domain}\u0000${row.country}`
      const found = sums.get(key)
      if (found === undefined) sums.set(key, { ...row })
      else found.count += row.count
    }
  }
  return [...sums.values()]
}

const columns = ["account_id", "category", "hour", "metric", "domain", "country", "count"]
const values = (row) => [row.accountId, row.category, row.hour, row.metric, row.domain, row.country, row.count]

/** The projections Mailroom keeps beside the rollups (per hour without domain and country; per day and per hour by
 *  domain; per day and per hour by country), derived here from the loaded rollups. */
const projections = [
  `INSERT INTO analytics_hourly (account_id, category, hour, metric, count)
    SELECT account_id, category, hour, metric, SUM(count) FROM analytics_rollups GROUP BY account_id, category, hour, metric`,
  `INSERT INTO analytics_daily_domains (account_id, category, day, metric, domain, count)
    SELECT account_id, category, (hour / 86400000) * 86400000, metric, domain, SUM(count) FROM analytics_rollups
    GROUP BY account_id, category, (hour / 86400000) * 86400000, metric, domain`,
  `INSERT INTO analytics_daily_countries (account_id, category, day, metric, country, count)
    SELECT account_id, category, (hour / 86400000) * 86400000, metric, country, SUM(count) FROM analytics_rollups
    GROUP BY account_id, category, (hour / 86400000) * 86400000, metric, country`,
  `INSERT INTO analytics_hourly_domains (account_id, category, hour, metric, domain, count)
    SELECT account_id, category, hour, metric, domain, SUM(count) FROM analytics_rollups GROUP BY account_id, category, hour, metric, domain`,
  `INSERT INTO analytics_hourly_countries (account_id, category, hour, metric, country, count)
    SELECT account_id, category, hour, metric, country, SUM(count) FROM analytics_rollups GROUP BY account_id, category, hour, metric, country`,
]

const providerMetrics = "('sent', 'delivered', 'bounced', 'opened', 'clicked', 'complained', 'unique_opened', 'unique_clicked')"
const heatmapZone = "Europe/Paris"
/** The bare statements of the three routes over the same tables ($1 account, $2 and $3 the range, $4 and $5 the first
 *  and last whole day, $6 the quota's month): summary, the hourly projection and the month's quota row (the route
 *  answers both); heatmap, the hourly projection, placed in the timezone by Postgres itself (`AT TIME ZONE`) or, on
 *  SQLite (which has no timezones), per hour in JS; providers, the per-day projection by domain for whole days and the
 *  per-hour one for each edge's hours, in one statement grouped once, as Mailroom reads them (two ranges joined by OR
 *  make SQLite read every hour of the account). */
const floorQueries = {
  summary: [
    `SELECT metric, SUM(count) AS total FROM analytics_hourly WHERE account_id = $1 AND category IN ('') AND hour >= $2 AND hour < $3 GROUP BY metric`,
    `SELECT used FROM send_quota WHERE account_id = $1 AND period = $6`,
  ],
  heatmap: [`SELECT hour, SUM(count) AS total FROM analytics_hourly WHERE account_id = $1 AND category IN ('') AND hour >= $2 AND hour < $3 AND metric IN ('opened') GROUP BY hour`],
  heatmapPostgres: [`SELECT EXTRACT(DOW FROM local)::int AS day, EXTRACT(HOUR FROM local)::int AS hour, SUM(count) AS total
    FROM (SELECT to_timestamp(hour / 1000) AT TIME ZONE '${heatmapZone}' AS local, count FROM analytics_hourly
      WHERE account_id = $1 AND category IN ('') AND hour >= $2 AND hour < $3 AND metric IN ('opened')) AS hours GROUP BY 1, 2`],
  providers: [`SELECT metric, domain, SUM(count) AS total FROM (
    SELECT metric, domain, count FROM analytics_daily_domains WHERE account_id = $1 AND category IN ('') AND day >= $4 AND day < $5 AND metric IN ${providerMetrics}
    UNION ALL
    SELECT metric, domain, count FROM analytics_hourly_domains WHERE account_id = $1 AND category IN ('') AND hour >= $2 AND hour < $4 AND metric IN ${providerMetrics}
    UNION ALL
    SELECT metric, domain, count FROM analytics_hourly_domains WHERE account_id = $1 AND category IN ('') AND hour >= $5 AND hour < $3 AND metric IN ${providerMetrics}
  ) AS parts GROUP BY metric, domain`],
}

/** The floor's own work after its statements, the part of each route's answer that SQL does not give: the heatmap's
 *  168 cells (SQLite: each UTC hour placed by the offset of its span, read from Intl once per span of one offset, the
 *  fewest Intl reads there are; Postgres: the cells it grouped), and the providers' rows (each domain's provider from
 *  the consumer list; these domains need no MX lookup). */
const finish = {
  summary: (rows) => rows,
  heatmap: (rows, [, from, to]) => {
    const spans = offsetSpans(heatmapZone, from, to)
    const cells = new Array(168).fill(0)
    for (const row of rows) {
      const hour = Number(row.hour)
      let i = spans.length - 1
      while (i > 0 && spans[i][0] > hour) i--
      const local = Math.floor((hour + spans[i][1]) / hourMs)
      cells[((Math.floor(local / 24) + 4) % 7) * 24 + (local % 24)] += Number(row.total)
    }
    return cells
  },
  heatmapPostgres: (rows) => {
    const cells = new Array(168).fill(0)
    for (const row of rows) cells[row.day * 24 + row.hour] += Number(row.total)
    return cells
  },
  providers: (rows) => {
    const byProvider = new Map()
    for (const row of rows) {
      const provider = consumerProvider(row.domain) ?? "Other"
      const sums = byProvider.get(provider) ?? {}
      byProvider.set(provider, sums)
      sums[row.metric] = (sums[row.metric] ?? 0) + Number(row.total)
    }
    return byProvider
  },
}

/** The parameters a floor statement uses, in the order of its $n (SQLite binds positionally). */
const paramsOf = (text, params) => [...text.matchAll(/\$(\d)/g)].map((m) => params[Number(m[1]) - 1])

const openSqlite = async (file) => {
  const { default: Database } = await import("better-sqlite3")
  const db = new Database(file)
  db.pragma("journal_mode = WAL")
  db.pragma("busy_timeout = 5000")
  const insert = db.prepare(`INSERT INTO analytics_rollups (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
  const statements = Object.fromEntries(Object.entries(floorQueries).filter(([name]) => name !== "heatmapPostgres").map(([name, texts]) =>
    [name, texts.map((text) => ({ text, statement: db.prepare(text.replace(/\$\d/g, "?")) }))]))
  return {
    load: async (rows) => db.transaction(() => {
      for (const row of rows) insert.run(...values(row))
      for (const text of projections) db.prepare(text).run()
    })(),
    query: async (name, params) =>
      finish[name](statements[name].flatMap(({ text, statement }) => statement.all(...paramsOf(text, params))), params),
    close: async () => db.close(),
  }
}

const openPostgres = async (url) => {
  const { default: pg } = await import("pg")
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  // Serial plans: providers' statement ran in 10 to 13 ms without parallel workers against 14 to 25 ms with the two
  // PostgreSQL starts for it (measured on the bench's database), so the fastest raw way turns them off.
  await client.query("SET max_parallel_workers_per_gather = 0")
  return {
    load: async (rows) => {
      for (let i = 0; i < rows.length; i += 20_000) {
        const slice = rows.slice(i, i + 20_000)
        await client.query(`INSERT INTO analytics_rollups (${columns.join(", ")})
          SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::bigint[])`,
        columns.map((_, c) => slice.map((row) => values(row)[c])))
      }
      for (const text of projections) await client.query(text)
      for (const table of ["analytics_rollups", "analytics_hourly", "analytics_daily_domains", "analytics_daily_countries", "analytics_hourly_domains", "analytics_hourly_countries"]) await client.query(`VACUUM ANALYZE ${table}`)
    },
    query: async (route, params) => {
      const name = route === "heatmap" ? "heatmapPostgres" : route
      const rows = []
      for (const [i, text] of floorQueries[name].entries()) {
        // Only the parameters the statement uses, renumbered in order (Postgres cannot type one it does not use).
        const used = [...new Set([...text.matchAll(/\$(\d)/g)].map((m) => Number(m[1])))].sort()
        const renumbered = text.replace(/\$(\d)/g, (_, n) => `$${used.indexOf(Number(n)) + 1}`)
        rows.push(...(await client.query({ name: `floor_${name}_${i}`, text: renumbered, values: used.map((n) => params[n - 1]) })).rows)
      }
      return finish[name](rows, params)
    },
    close: () => client.end(),
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
/** Runs `call` `requests` times; answers 1000 / the median milliseconds (a throughput, for interleave). */
const timed = async (call) => {
  const times = []
  for (let i = 0; i < requests; i++) {
    const started = performance.now()
    await call()
    times.push(performance.now() - started)
  }
  return 1000 / median(times)
}

const runBackend = async (backend) => {
  const database = backend === "sqlite" ? `sqlite:${freshSqliteFile("analytics-summary")}` : await freshPostgresUrl("bench_analytics_summary")
  if (database === undefined) {
    console.log(`bench analytics-summary ${backend}: skipped (no Postgres at 127.0.0.1:5432)`)
    return
  }
  const mailroom = createMailroom({ database, adminToken: "bench-admin", backgroundWork: false })
  await mailroom.ready()
  const created = await mailroom.fetch(new Request("http://bench.test/admin/accounts", {
    method: "POST", headers: { authorization: "Bearer bench-admin", "content-type": "application/json" }, body: JSON.stringify({ plan: "pro" }),
  }))
  const account = await created.json()
  const now = Date.now()
  const loadStarted = performance.now()
  const rows = rollupsOf(account.id, now)
  const raw = backend === "sqlite" ? await openSqlite(database.slice("sqlite:".length)) : await openPostgres(database)
  await raw.load(rows)
  console.log(`bench analytics-summary ${backend}: ${eventCount} events as ${rows.length} rollup rows, loaded in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`)
  const to = Math.ceil((now + 1) / hourMs) * hourMs
  const from = Math.floor((now + 1 - 30 * dayMs) / hourMs) * hourMs
  const routes = { summary: "/v1/analytics/summary", heatmap: "/v1/analytics/heatmap?timezone=Europe/Paris", providers: "/v1/analytics/providers" }
  const results = []
  for (const [name, path] of Object.entries(routes)) {
    const mailroomSide = () => timed(async () => {
      const answer = await mailroom.fetch(new Request(`http://bench.test${path}`, { headers: { authorization: `Bearer ${account.apiKey}` } }))
      if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${await answer.text()}`)
      await answer.json()
    })
    const firstDay = Math.ceil(from / dayMs) * dayMs
    const lastDay = Math.floor(to / dayMs) * dayMs
    const floorSide = () => timed(() => raw.query(name, [account.id, from, to, firstDay, lastDay, new Date().toISOString().slice(0, 7)]))
    const [m, f] = await interleave(mailroomSide, floorSide, 3, 1)
    results.push(report("analytics-summary", `${backend} ${name}`, m, f, target, `median=${(1000 / m).toFixed(1)}ms floor-median=${(1000 / f).toFixed(1)}ms`))
  }
  await raw.close()
  await mailroom.close()
  return results
}

export const run = async ({ backends }) => {
  for (const backend of backends) await runBackend(backend)
}
