// csv-import: POST /v1/contacts/import of a 1,000-row file, and of a 2 MiB file (1,000 rows with a long skipped notes
// column) into a list, through the Hono mount on SQLite and Postgres. Its floor is a bare Hono route doing the same
// work with the bare parts: read the multipart form, csv-parse the same bytes, and one bulk INSERT of the parsed rows
// (plus one of their memberships for the list) through the raw driver, better-sqlite3 or pg (target 0.40). Both run
// in this process, one after the other, so that the longest event-loop stall during Mailroom's imports is measured
// (perf_hooks monitorEventLoopDelay) and printed: it must stay under 100 ms.
// Run alone with `npm run bench -- csv-import` (MAILROOM_BENCH_BACKENDS=sqlite to skip Postgres).
import { monitorEventLoopDelay } from "node:perf_hooks"
import { serve } from "@hono/node-server"
import { mountMailroom } from "@mailroom/hono"
import { parse } from "csv-parse/sync"
import { Hono } from "hono"
import { createMailroom } from "@mailroom/mailroom"
import { freshPostgresUrl, freshSqliteFile, interleave, report, timeOrderedId } from "./lib.mjs"

const target = 0.4
const stallLimitMs = 100
const synchronous = process.env.SQLITE_SYNCHRONOUS ?? "FULL"
const mappings = JSON.stringify([
  { csvColumn: "email", field: "email" },
  { csvColumn: "first_name", field: "firstName" },
  { csvColumn: "last_name", field: "lastName" },
  { csvColumn: "notes", field: "skip" },
])

const cases = [
  { label: "1000-rows", rows: 1_000, bytes: undefined, withList: false, importsPerRound: 8 },
  { label: "2mib-list", rows: 1_000, bytes: 2 * 1024 * 1024, withList: true, importsPerRound: 4 },
]

let fileCounter = 0
/** A CSV of `rows` fresh addresses; with `bytes`, the notes column pads the file to exactly that size. */
const makeCsv = ({ rows, bytes }) => {
  const prefix = `imp${process.pid}x${(fileCounter++).toString(36)}`
  const head = "email,first_name,last_name,notes\n"
  const lines = Array.from({ length: rows }, (_, i) => `${prefix}-${i}@example.com,Ada,Lovelace,`)
  if (bytes === undefined) return head + lines.map((line) => `${line}\n`).join("")
  const fixed = head.length + lines.reduce((sum, line) => sum + line.length + 1, 0)
  const perRow = Math.floor((bytes - fixed) / rows)
  const extra = bytes - fixed - perRow * rows
  return head + lines.map((line, i) => `${line}${"n".repeat(perRow + (i === rows - 1 ? extra : 0))}\n`).join("")
}

const formOf = (csv, listId) => {
  const form = new FormData()
  form.append("file", new File([csv], "contacts.csv", { type: "text/csv" }))
  form.append("mappings", mappings)
  if (listId !== undefined) form.append("listId", listId)
  return form
}

const listen = (app) =>
  new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) =>
      resolve({ url: `http://127.0.0.1:${info.port}`, close: () => new Promise((done) => server.close(() => done())) }))
  })

const databaseFor = async (backend, name) =>
  backend === "sqlite" ? `sqlite:${freshSqliteFile(name)}` : await freshPostgresUrl(name)

/** Mailroom mounted on Hono, with one pro account and one list. */
const startMailroom = async (database) => {
  const mailroom = createMailroom({
    database,
    sqliteSynchronous: synchronous,
    logLevel: "error",
    rateLimits: { contactsCreatePerMinute: 1_000_000_000, requestsPerSecond: 1_000_000_000, failedAuthenticationsPerMinute: 1_000_000_000 },
  })
  await mailroom.ready()
  const { apiKey } = await mailroom.accounts.create({ name: "bench", plan: "pro" })
  const app = new Hono()
  mountMailroom(app, "/", mailroom)
  const server = await listen(app)
  const created = await fetch(`${server.url}/v1/contacts/lists`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Imported" }),
  })
  if (created.status !== 201) throw new Error(`creating the list answered ${created.status}: ${await created.text()}`)
  const listId = (await created.json()).data.id
  return {
    url: server.url,
    path: "/v1/contacts/import",
    headers: { authorization: `Bearer ${apiKey}` },
    listId,
    stop: async () => {
      await server.close()
      await mailroom.close()
    },
  }
}

const contactColumns = [
  "id", "account_id", "email", "first_name", "first_name_folded", "last_name", "last_name_folded", "source", "status",
  "subscribed_at", "consent_source", "consent_at", "created_at", "updated_at",
]
const memberColumns = ["id", "account_id", "list_id", "contact_id", "added_at"]

/** The raw driver: `insertMany(table, columns, rows)` writes the rows, `transaction(work)` wraps work. On SQLite that is
 *  one prepared single-row INSERT run per row (better-sqlite3 binds and steps it for less than a multi-row statement
 *  of the whole batch costs, see bench/servers/floor.mjs); on PostgreSQL one INSERT … SELECT FROM unnest(…) of one
 *  array per column, one round trip. */
const openDriver = async (database) => {
  if (database.startsWith("sqlite:")) {
    const { default: Database } = await import("better-sqlite3")
    const db = new Database(database.slice("sqlite:".length))
    db.pragma("journal_mode = WAL")
    db.pragma(`synchronous = ${synchronous}`)
    db.pragma("foreign_keys = ON")
    const statements = new Map()
    const insertMany = async (table, columns, rows) => {
      if (!statements.has(table)) {
        statements.set(table, db.prepare(`INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`))
      }
      const statement = statements.get(table)
      for (const row of rows) statement.run(row)
    }
    return {
      insertMany,
      transaction: async (work) => {
        db.exec("BEGIN")
        try {
          await work()
          db.exec("COMMIT")
        } catch (error) {
          db.exec("ROLLBACK")
          throw error
        }
      },
      close: async () => db.close(),
    }
  }
  const { default: pg } = await import("pg")
  const pool = new pg.Pool({ connectionString: database, max: 4 })
  const client = await pool.connect()
  const insertValues = async (table, columns, rows) => {
    const values = rows.map((_, r) => `(${columns.map((__, c) => `$${r * columns.length + c + 1}`).join(", ")})`)
    await client.query(`INSERT INTO ${table} (${columns.join(", ")}) VALUES ${values.join(", ")}`, rows.flat())
  }
  // Rows of text and BIGINT columns: one array parameter per column (faster than a VALUES list; see floor.mjs).
  const insertMany = async (table, columns, rows) => {
    if (table === "contact_lists") return insertValues(table, columns, rows)
    const arrays = columns.map((column, c) => `$${c + 1}::${column.endsWith("_at") ? "bigint" : "text"}[]`)
    await client.query(`INSERT INTO ${table} (${columns.join(", ")}) SELECT * FROM unnest(${arrays.join(", ")})`,
      columns.map((_, c) => rows.map((row) => row[c])))
  }
  return {
    insertMany,
    transaction: async (work) => {
      await client.query("BEGIN")
      try {
        await work()
        await client.query("COMMIT")
      } catch (error) {
        await client.query("ROLLBACK")
        throw error
      }
    },
    close: async () => {
      client.release()
      await pool.end()
    },
  }
}

/** The floor: Mailroom's schema and one account and list made by Mailroom, then a bare Hono route over the driver. */
const startFloor = async (database) => {
  const setup = createMailroom({ database, sqliteSynchronous: synchronous, logLevel: "error" })
  await setup.ready()
  const { account } = await setup.accounts.create({ name: "floor", plan: "pro" })
  await setup.close()
  const driver = await openDriver(database)
  const listId = timeOrderedId("lst")
  const now = Date.now()
  await driver.insertMany(
    "contact_lists",
    ["id", "account_id", "name", "type", "tracking_enabled", "is_archived", "created_at", "updated_at"],
    [[listId, account.id, "Imported", "STATIC", database.startsWith("sqlite:") ? 1 : true, database.startsWith("sqlite:") ? 0 : false, now, now]],
  )

  const app = new Hono()
  app.post("/import", async (c) => {
    const form = await c.req.formData()
    const bytes = Buffer.from(await form.get("file").arrayBuffer())
    // Mailroom's csv-parse options (naming the record delimiters spares csv-parse detecting them).
    const [header, ...records] = parse(bytes, {
      bom: true, relax_column_count: true, skip_empty_lines: true, record_delimiter: ["\r\n", "\n", "\r"],
    })
    const at = Date.now()
    const email = header.indexOf("email")
    // The folded columns hold Mailroom's foldText of the names: for the ASCII names imported here, their lower case.
    const contacts = records.map((record) => {
      const firstName = record[1] || null
      const lastName = record[2] || null
      return [
        timeOrderedId("ct"), account.id, record[email].trim().toLowerCase(), firstName, firstName?.toLowerCase() ?? null,
        lastName, lastName?.toLowerCase() ?? null, "CSV_IMPORT", "ACTIVE", at, "import", at, at, at,
      ]
    })
    const list = form.get("listId")
    await driver.transaction(async () => {
      await driver.insertMany("contacts", contactColumns, contacts)
      if (list !== null) {
        await driver.insertMany("list_members", memberColumns, contacts.map((row) => [timeOrderedId("mem"), account.id, list, row[0], at]))
      }
    })
    return c.json({ imported: contacts.length, skipped: 0, addedToList: list === null ? 0 : contacts.length, errors: [] })
  })
  const server = await listen(app)
  return {
    url: server.url,
    path: "/import",
    headers: {},
    listId,
    stop: async () => {
      await server.close()
      await driver.close()
    },
  }
}

/** Imports per second of `side` for one case: fresh files built first, then posted one after the other. With
 *  `stalls`, the longest event-loop stall of each measured round is pushed there. */
const importsPerSecond = (side, testCase, stalls) => async (warmUp) => {
  const forms = Array.from({ length: testCase.importsPerRound }, () =>
    formOf(makeCsv(testCase), testCase.withList ? side.listId : undefined))
  const monitor = monitorEventLoopDelay({ resolution: 5 })
  if (stalls && !warmUp) monitor.enable()
  const started = performance.now()
  for (const body of forms) {
    const response = await fetch(`${side.url}${side.path}`, { method: "POST", headers: side.headers, body })
    const answer = await response.json()
    if (response.status !== 200 || answer.imported !== testCase.rows) {
      throw new Error(`${side.url}${side.path} answered ${response.status}: ${JSON.stringify(answer).slice(0, 300)}`)
    }
  }
  const seconds = (performance.now() - started) / 1_000
  if (stalls && !warmUp) {
    monitor.disable()
    stalls.push(monitor.max / 1e6)
  }
  return forms.length / seconds
}

export const run = async ({ backends }) => {
  for (const backend of backends) {
    const mailroomDb = await databaseFor(backend, "bench_import_mailroom")
    const floorDb = await databaseFor(backend, "bench_import_floor")
    if (!mailroomDb || !floorDb) {
      console.log(`bench csv-import ${backend}: skipped (no database server answers)`)
      continue
    }
    const mailroom = await startMailroom(mailroomDb)
    const floor = await startFloor(floorDb)
    try {
      for (const testCase of cases) {
        // A fresh monitor per measured round: one disabled and enabled again would count the pause as a stall.
        const stalls = []
        const [x, y] = await interleave(importsPerSecond(mailroom, testCase, stalls), importsPerSecond(floor, testCase))
        const stallMs = Math.max(...stalls)
        const verdict = stallMs < stallLimitMs ? "" : ` (over ${stallLimitMs}ms)`
        report("csv-import", `${backend} ${testCase.label}`, x, y, target, `max-loop-stall=${stallMs.toFixed(1)}ms${verdict}`)
      }
    } finally {
      await Promise.all([mailroom.stop(), floor.stop()])
    }
  }
}

// Run directly: `node bench/csv-import.mjs [sqlite,postgres]`.
if (import.meta.url === `file://${process.argv[1]}`) {
  await run({ backends: (process.argv[2] ?? process.env.MAILROOM_BENCH_BACKENDS ?? "sqlite,postgres").split(",") })
}
