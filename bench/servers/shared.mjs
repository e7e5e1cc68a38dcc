// What the floor servers share: the database they were given (DATABASE_URL=sqlite:PATH|postgres://…, with
// SQLITE_SYNCHRONOUS), the schema and account made by Mailroom itself, the raw driver opened as Mailroom opens it,
// a pg transaction, and the child-process protocol of bench/lib.mjs's startServer (report the port, stop on SIGTERM).
import { createMailroom } from "@mailroom/mailroom"

export const databaseUrl = process.env.DATABASE_URL
export const synchronous = process.env.SQLITE_SYNCHRONOUS ?? "FULL"
export const sqlite = databaseUrl.startsWith("sqlite:")

/** Creates the schema and one account of `plan` with Mailroom, runs `seed(setup, account, apiKey)` when given, then
 *  lets go of the database. Answers { account, apiKey, seeded }. */
export const setUpWithMailroom = async ({ plan, seed, backgroundWork }) => {
  const setup = createMailroom({
    database: databaseUrl, sqliteSynchronous: synchronous, logLevel: "error",
    ...(backgroundWork === undefined ? {} : { backgroundWork }),
  })
  await setup.ready()
  const { account, apiKey } = await setup.accounts.create({ name: "floor", plan })
  const seeded = seed === undefined ? undefined : await seed(setup, account, apiKey)
  await setup.close()
  return { account, apiKey, seeded }
}

/** better-sqlite3 on the file, with the pragmas Mailroom sets. */
export const openSqlite = async () => {
  const { default: Database } = await import("better-sqlite3")
  const db = new Database(databaseUrl.slice("sqlite:".length))
  db.pragma("journal_mode = WAL")
  db.pragma(`synchronous = ${synchronous}`)
  db.pragma("foreign_keys = ON")
  return db
}

/** A pg pool of Mailroom's default size. */
export const openPgPool = async () => {
  const { default: pg } = await import("pg")
  return new pg.Pool({ connectionString: databaseUrl, max: 10 })
}

/** Runs `work(client, rollback)` between BEGIN and COMMIT on a pooled connection; ROLLBACK instead when it throws
 *  (the error goes on) or called `rollback()`. */
export const pgTransaction = async (pool, work) => {
  const client = await pool.connect()
  let rolledBack = false
  try {
    await client.query("BEGIN")
    const result = await work(client, () => { rolledBack = true })
    await client.query(rolledBack ? "ROLLBACK" : "COMMIT")
    return result
  } catch (error) {
    await client.query("ROLLBACK")
    throw error
  } finally {
    client.release()
  }
}

/** Serves the Hono `app` on 127.0.0.1 and answers the node server once it listens. */
export const serveHono = async (app) => {
  const { serve } = await import("@hono/node-server")
  return new Promise((resolve) => {
    const made = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(made))
  })
}

/** Tells the parent the server is ready ({ port, ...extra }) and stops it (then `close()`) on SIGTERM. */
export const announce = (server, extra, close) => {
  process.send({ port: server.address().port, ...extra })
  process.on("SIGTERM", () => {
    server.close()
    close().finally(() => process.exit(0))
  })
}
