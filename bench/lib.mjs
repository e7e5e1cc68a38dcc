// Shared helpers of the benchmark scenarios: child-process servers, load runs, databases and the result line.
import { fork } from "node:child_process"
import { mkdirSync, rmSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { dirname, join } from "node:path"
import autocannon from "autocannon"
import pg from "pg"

export const benchDir = dirname(fileURLToPath(import.meta.url))
export const tmpDir = join(benchDir, "..", ".bench-tmp")

/** A fresh SQLite file path under .bench-tmp (with its -wal and -shm siblings removed). */
export const freshSqliteFile = (name) => {
  mkdirSync(tmpDir, { recursive: true })
  const file = join(tmpDir, `${name}.sqlite`)
  for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true })
  return file
}

const pgAdminUrl = process.env.MAILROOM_BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

/** A freshly created Postgres database for one side of a scenario, or undefined when no server answers. Its name ends
 *  with MAILROOM_BENCH_DB_SUFFIX when set, so that runs from two checkouts on one server keep apart. */
export const freshPostgresUrl = async (scenarioName) => {
  const name = `${scenarioName}${(process.env.MAILROOM_BENCH_DB_SUFFIX ?? "").replace(/[^a-z0-9_]/g, "")}`
  const client = new pg.Client({ connectionString: pgAdminUrl })
  try {
    await client.connect()
  } catch {
    return undefined
  }
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await client.query(`CREATE DATABASE ${name}`)
  } finally {
    await client.end()
  }
  const url = new URL(pgAdminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** Starts `bench/servers/<script>` in a child process; resolves once it reports { port, ...extra }. */
export const startServer = (script, env, execArgv = []) =>
  new Promise((resolve, reject) => {
    const child = fork(join(benchDir, "servers", script), [], {
      env: { ...process.env, ...env },
      execArgv,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    })
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code} before it was ready`)))
    child.once("message", (message) => {
      child.removeAllListeners("exit")
      resolve({
        ...message,
        url: `http://127.0.0.1:${message.port}`,
        stop: () => new Promise((done) => {
          child.once("exit", () => done())
          child.kill("SIGTERM")
        }),
      })
    })
  })

/** Runs autocannon for `seconds` with `connections`; `makeBody()` gives each request its own JSON body. */
export const load = ({ url, path, method = "POST", headers = {}, makeBody, connections = 50, seconds = 3 }) =>
  new Promise((resolve, reject) => {
    autocannon({
      url: url + path,
      connections,
      duration: seconds,
      method,
      headers: { "content-type": "application/json", ...headers },
      requests: [{ setupRequest: (request) => (makeBody ? { ...request, body: makeBody() } : request) }],
    }, (error, result) => {
      if (error) return reject(error)
      const ok = result["2xx"]
      if (result.non2xx > 0 || result.errors > 0) {
        return reject(new Error(`${url}${path}: ${result.non2xx} non-2xx answers and ${result.errors} errors under load`))
      }
      resolve(ok / (result.duration || seconds))
    })
  })

/** Alternates `a` and `b` (each an async function answering a throughput) `rounds` times after `warmups` warm-up runs
 *  of each; answers the median throughput of each side. Two warm-ups, because Mailroom's code reaches its optimised
 *  steady state later than a bare route does: one run left the first measured round of Mailroom still warming up.
 *  Five rounds, because on a small shared machine single runs of either side swing by a fifth. */
export const interleave = async (a, b, rounds = 5, warmups = 2) => {
  for (let i = 0; i < warmups; i++) {
    await a(true)
    await b(true)
  }
  const as = []
  const bs = []
  for (let i = 0; i < rounds; i++) {
    as.push(await a(false))
    bs.push(await b(false))
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]
  return [median(as), median(bs)]
}

const fmt = (n) => (n >= 100 ? Math.round(n).toString() : n.toFixed(1))

/** The line of DESIGN.md, "Benchmarks": `bench NAME LABEL: mailroom=…/s floor=…/s ratio=… target=…`. */
export const report = (name, label, mailroom, floor, target, extra = "") => {
  const ratio = mailroom / floor
  const line = `bench ${name} ${label}: mailroom=${fmt(mailroom)}/s floor=${fmt(floor)}/s ratio=${ratio.toFixed(2)} target=${target.toFixed(2)}${extra ? ` ${extra}` : ""}`
  console.log(line)
  return { name, label, mailroom, floor, ratio, target }
}

let counter = 0
/** A unique address per call, across the whole run. */
export const uniqueEmail = (prefix = "bench") => `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter++}@example.com`

const crockford = "0123456789abcdefghjkmnpqrstvwxyz"
const base32 = (n, width) => {
  let out = ""
  for (let i = 0; i < width; i++) {
    out = crockford[n % 32] + out
    n = Math.floor(n / 32)
  }
  return out
}
const idSalt = base32(Math.floor(Math.random() * 32 ** 6), 6)
let idCounter = 0
/** An id shaped as Mailroom's: `<prefix>_`, the time in 9 base-32 characters, then 16 more that grow with each id, so
 *  that ids sort in the order they were made. Floors write ids like these rather than random UUIDs: a primary key
 *  index fed random keys dirties a page per row once the table outgrows the cache, which is other work than
 *  Mailroom's (its ids arrive in order and append). */
export const timeOrderedId = (prefix) => `${prefix}_${base32(Date.now(), 9)}${idSalt}${base32(idCounter++, 10)}`

/** One call of Mailroom's API in process (`mailroom.fetch`) with an API key: the answer's `data`; throws on a 3xx-5xx. */
export const apiCall = async (mailroom, apiKey, method, path, body) => {
  const response = await mailroom.fetch(new Request(`http://bench.test/v1${path}`, {
    method, headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }))
  const json = await response.json()
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
  return json.data
}
