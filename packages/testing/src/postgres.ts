/** Finds the Postgres database that Postgres test suites run against, or explains how to enable them. `pg` is loaded
 *  only when this is called, so that hosts testing on other backends do not need it. */

/** Where a local Postgres answers in development and CI (trust authentication). */
const localServer = "postgres://postgres@127.0.0.1:5432/postgres"
const defaultTestDatabase = "mailroom_test"

/** SQLSTATEs of a CREATE DATABASE that lost a race with another test process: duplicate_database, unique_violation. */
const alreadyCreated = new Set(["42P04", "23505"])

const errorCode = (error: unknown): string =>
  typeof error === "object" && error !== null && "code" in error ? String(error.code) : ""

/** How long a test database of another migration set, or a scratch database a test left behind, stays unused before
 *  findTestPostgres drops it. */
export const unusedTestDatabaseLifetimeMs = 24 * 60 * 60 * 1000

/** The comment findTestPostgres writes on the test database it answers, each time it answers it. */
const lastUsedMark = "mailroom test database, last used "
/** The shared test databases of checkouts (`mailroom_test_<digest of the migrations>`, see vitest.workspace.ts). */
const sharedTestDatabase = /^mailroom_test_[0-9a-f]{12}$/
/** The databases a single test makes for itself (`mailroom_<what>_<milliseconds>_<random>`) and drops when it ends. */
const scratchDatabase = /^mailroom_[a-z]+_([0-9]{13})_[0-9]+$/

/** When `name` was last used, as far as its name or its comment tell; undefined when neither does. */
const lastUseOf = (name: string, comment: string | null): number | undefined => {
  const scratch = scratchDatabase.exec(name)
  if (scratch !== null) return Number(scratch[1])
  if (comment === null || !comment.startsWith(lastUsedMark)) return undefined
  const at = Date.parse(comment.slice(lastUsedMark.length))
  return Number.isNaN(at) ? undefined : at
}

/**
 * Marks `current` as used now, then drops the test databases nobody has used for a day: the shared test databases of
 * other migration sets (each change of the migrations makes a new one, see vitest.workspace.ts) and scratch databases
 * left behind by a test that was killed. A database in use is never dropped: DROP DATABASE without FORCE refuses one
 * that has a connection, and a database is dropped only a day after the last findTestPostgres that answered it, which
 * every test file calls when it starts. A database without a mark (made before marks were written) is marked now and
 * dropped a day later if nothing answers it meanwhile. Nothing here may fail a test run: errors are ignored.
 */
const tidyTestDatabases = async (client: import("pg").Client, current: string) => {
  const now = Date.now()
  const mark = (name: string) => client.query(`COMMENT ON DATABASE ${name} IS '${lastUsedMark}${new Date(now).toISOString()}'`)
  await mark(current)
  const { rows } = await client.query<{ name: string; comment: string | null }>(
    "SELECT datname AS name, shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname LIKE 'mailroom\\_%' AND datname <> $1",
    [current],
  )
  for (const { name, comment } of rows) {
    if (!sharedTestDatabase.test(name) && !scratchDatabase.test(name)) continue
    const lastUse = lastUseOf(name, comment)
    if (lastUse === undefined) await mark(name).catch(() => undefined)
    else if (now - lastUse > unusedTestDatabaseLifetimeMs) await client.query(`DROP DATABASE IF EXISTS ${name}`).catch(() => undefined)
  }
}

/** The URL of the test database: MAILROOM_TEST_DATABASE_URL when set, otherwise the database named by
 *  MAILROOM_TEST_DATABASE (default `mailroom_test`) on the local server (or on `options.server`), created when
 *  missing; test databases left unused for a day are dropped on the way (see tidyTestDatabases). When no server
 *  answers, prints one line on how to enable the Postgres suites and answers undefined, unless
 *  MAILROOM_REQUIRE_POSTGRES=1 (as in CI): then it throws. */
export const findTestPostgres = async (options: { readonly server?: string } = {}): Promise<string | undefined> => {
  const configured = process.env["MAILROOM_TEST_DATABASE_URL"]
  if (configured !== undefined && configured !== "") return configured

  const testDatabase = process.env["MAILROOM_TEST_DATABASE"] || defaultTestDatabase
  if (!/^[a-z_][a-z0-9_]*$/.test(testDatabase)) throw new Error(`MAILROOM_TEST_DATABASE must be a plain database name`)
  const server = options.server ?? localServer
  const { host } = new URL(server)
  const imported = await import("pg")
  const pg = ("default" in imported ? imported.default : imported) as typeof import("pg")
  const client = new pg.Client({ connectionString: server, connectionTimeoutMillis: 3_000 })
  try {
    await client.connect()
  } catch (cause) {
    await client.end().catch(() => undefined)
    if (process.env["MAILROOM_REQUIRE_POSTGRES"] === "1") {
      throw new Error(`MAILROOM_REQUIRE_POSTGRES=1, but no Postgres answers at ${host}`, { cause })
    }
    console.warn(`Postgres suites skipped: no server answers at ${host}. Start Postgres or set MAILROOM_TEST_DATABASE_URL.`)
    return undefined
  }
  try {
    const existing = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [testDatabase])
    if (existing.rowCount === 0) {
      await client.query(`CREATE DATABASE ${testDatabase}`).catch((error: unknown) => {
        if (!alreadyCreated.has(errorCode(error))) throw error
      })
    }
    await tidyTestDatabases(client, testDatabase).catch(() => undefined)
  } finally {
    await client.end()
  }
  const url = new URL(server)
  url.pathname = `/${testDatabase}`
  return url.toString()
}

/** A database of its own on the server of `testUrl` (a findTestPostgres answer), for a test whose background work must
 *  not meet other test processes' outbox consumers and jobs on the shared test database. Answers its URL and `drop`. */
export const scratchPostgres = async (testUrl: string): Promise<{ readonly url: string; readonly drop: () => Promise<void> }> => {
  const imported = await import("pg")
  const pg = ("default" in imported ? imported.default : imported) as typeof import("pg")
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: testUrl })
    await client.connect()
    try {
      await client.query(sql)
    } finally {
      await client.end()
    }
  }
  const name = `mailroom_scratch_${Date.now()}_${Math.floor(Math.random() * 1e9)}`
  await admin(`CREATE DATABASE ${name}`)
  const url = new URL(testUrl)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}
