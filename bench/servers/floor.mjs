// The floor of contact-create: a bare framework route doing the same single INSERT through the raw driver
// (better-sqlite3 with the same pragmas, or pg). The schema comes from Mailroom's own migrations so both sides write
// the same table with the same indexes. FRAMEWORK=hono|express, DATABASE_URL=sqlite:PATH|postgres://…
import { randomUUID } from "node:crypto"
import { createMailroom } from "mailroom"

const framework = process.env.FRAMEWORK ?? "hono"
const databaseUrl = process.env.DATABASE_URL
const synchronous = process.env.SQLITE_SYNCHRONOUS ?? "FULL"

// Create the schema and one account with Mailroom, then let go of the database.
const setup = createMailroom({ database: databaseUrl, sqliteSynchronous: synchronous, logLevel: "error" })
await setup.ready()
const { account } = await setup.accounts.create({ name: "floor", plan: "pro" })
await setup.close()

const columns = "id, account_id, email, first_name, last_name, source, status, subscribed_at, created_at, updated_at"
const toRow = (body) => {
  const now = Date.now()
  return [`ct_${randomUUID()}`, account.id, body.email, body.firstName ?? null, body.lastName ?? null, "API", "ACTIVE", now, now, now]
}

const makeInsert = async () => {
  if (databaseUrl.startsWith("sqlite:")) {
    const { default: Database } = await import("better-sqlite3")
    const db = new Database(databaseUrl.slice("sqlite:".length))
    db.pragma("journal_mode = WAL")
    db.pragma(`synchronous = ${synchronous}`)
    db.pragma("foreign_keys = ON")
    const statement = db.prepare(`INSERT INTO contacts (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
    const insertAll = db.transaction((rows) => rows.reduce((created, row) => created + statement.run(row).changes, 0))
    return {
      insert: async (row) => statement.run(row),
      insertMany: async (rows) => insertAll(rows),
      close: async () => db.close(),
    }
  }
  const { default: pg } = await import("pg")
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
  const text = `INSERT INTO contacts (${columns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`
  const insertMany = async (rows) => {
    const client = await pool.connect()
    try {
      await client.query("BEGIN")
      const values = rows.map((_, r) => `(${columns.split(",").map((_, c) => `$${r * 10 + c + 1}`).join(", ")})`).join(", ")
      const result = await client.query(`INSERT INTO contacts (${columns}) VALUES ${values} ON CONFLICT DO NOTHING`, rows.flat())
      await client.query("COMMIT")
      return result.rowCount
    } catch (error) {
      await client.query("ROLLBACK")
      throw error
    } finally {
      client.release()
    }
  }
  return { insert: (row) => pool.query(text, row), insertMany, close: () => pool.end() }
}
const db = await makeInsert()

const created = (row) => ({ success: true, data: { id: row[0], email: row[2], firstName: row[3], lastName: row[4], source: row[5], status: row[6], createdAt: new Date(row[8]).toISOString() } })

const listen = {
  async hono() {
    const { Hono } = await import("hono")
    const { serve } = await import("@hono/node-server")
    const app = new Hono()
    app.post("/v1/contacts", async (c) => {
      const row = toRow(await c.req.json())
      await db.insert(row)
      return c.json(created(row), 201)
    })
    app.post("/v1/contacts/bulk", async (c) => {
      const { contacts } = await c.req.json()
      const rows = contacts.map(toRow)
      const createdCount = await db.insertMany(rows)
      return c.json({ success: true, data: { created: createdCount, skipped: rows.length - createdCount, errors: [] } })
    })
    return new Promise((resolve) => {
      const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => resolve({ port: info.port, server }))
    })
  },
  async express() {
    const { default: express } = await import("express")
    const app = express()
    app.post("/v1/contacts", express.json(), async (req, res) => {
      const row = toRow(req.body)
      await db.insert(row)
      res.status(201).json(created(row))
    })
    return new Promise((resolve) => {
      const server = app.listen(0, "127.0.0.1", () => resolve({ port: server.address().port, server }))
    })
  },
}

const { port, server } = await listen[framework]()
process.send({ port, apiKey: "unused" })
process.on("SIGTERM", () => {
  server.close()
  db.close().finally(() => process.exit(0))
})
