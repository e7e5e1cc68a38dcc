/** findTestPostgres decides whether the Postgres suites run, and where. */
import { findTestPostgres } from "@mailroom/testing"
import pg from "pg"
import { afterEach, describe, expect, it, vi } from "vitest"

/** The local test database, when this run has one (found before any variable is stubbed). */
const local = process.env["MAILROOM_TEST_DATABASE_URL"] ? undefined : await findTestPostgres()

/** A port where nothing listens. */
const silentServer = "postgres://postgres@127.0.0.1:1/postgres"

afterEach(() => {
  vi.unstubAllEnvs()
  vi.restoreAllMocks()
})

describe("findTestPostgres", () => {
  it("answers MAILROOM_TEST_DATABASE_URL as it is, without connecting", async () => {
    vi.stubEnv("MAILROOM_TEST_DATABASE_URL", "postgres://ci@db.internal:6543/mailroom_ci")
    expect(await findTestPostgres({ server: silentServer })).toBe("postgres://ci@db.internal:6543/mailroom_ci")
  })

  it("prints one line on how to enable the suites and answers undefined when no server answers", async () => {
    vi.stubEnv("MAILROOM_TEST_DATABASE_URL", "")
    vi.stubEnv("MAILROOM_REQUIRE_POSTGRES", "")
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined)
    expect(await findTestPostgres({ server: silentServer })).toBeUndefined()
    expect(warn).toHaveBeenCalledTimes(1)
    expect(String(warn.mock.calls[0]![0])).toMatch(/Start Postgres or set MAILROOM_TEST_DATABASE_URL/)
  })

  it("throws instead when MAILROOM_REQUIRE_POSTGRES=1", async () => {
    vi.stubEnv("MAILROOM_TEST_DATABASE_URL", "")
    vi.stubEnv("MAILROOM_REQUIRE_POSTGRES", "1")
    await expect(findTestPostgres({ server: silentServer })).rejects.toThrow(/MAILROOM_REQUIRE_POSTGRES=1/)
  })

  it.skipIf(local === undefined)("answers the URL of the MAILROOM_TEST_DATABASE database on a server that answers", async () => {
    vi.stubEnv("MAILROOM_TEST_DATABASE_URL", "")
    const name = process.env["MAILROOM_TEST_DATABASE"] || "mailroom_test"
    const url = (await findTestPostgres())!
    expect(url).toBe(local)
    expect(new URL(url).pathname).toBe(`/${name}`)
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      expect((await client.query("SELECT current_database() AS name")).rows).toEqual([{ name }])
    } finally {
      await client.end()
    }
  })

  it.skipIf(local === undefined)("drops test databases unused for a day, never one in use, a recent one or another kind", async () => {
    vi.stubEnv("MAILROOM_TEST_DATABASE_URL", "")
    const server = new URL(local!)
    server.pathname = "/postgres"
    const admin = new pg.Client({ connectionString: server.toString() })
    await admin.connect()
    const digest = () => Array.from({ length: 12 }, () => Math.floor(Math.random() * 16).toString(16)).join("")
    const dayAndAHour = 25 * 60 * 60 * 1000
    const databases = {
      stale: `mailroom_test_${digest()}`,
      inUse: `mailroom_test_${digest()}`,
      recent: `mailroom_test_${digest()}`,
      unmarked: `mailroom_test_${digest()}`,
      leftScratch: `mailroom_scratch_${Date.now() - dayAndAHour}_${Math.floor(Math.random() * 1e9)}`,
      runningScratch: `mailroom_scratch_${Date.now()}_${Math.floor(Math.random() * 1e9)}`,
      other: `mailroom_testx_${digest()}`,
    }
    const used = (ms: number) => `mailroom test database, last used ${new Date(Date.now() - ms).toISOString()}`
    let holder: pg.Client | undefined
    try {
      for (const name of Object.values(databases)) await admin.query(`CREATE DATABASE ${name}`)
      // Connected before it looks stale, so that no other test file starting meanwhile may drop it either.
      const inUse = new URL(local!)
      inUse.pathname = `/${databases.inUse}`
      holder = new pg.Client({ connectionString: inUse.toString() })
      await holder.connect()
      for (const name of [databases.stale, databases.inUse, databases.other]) await admin.query(`COMMENT ON DATABASE ${name} IS '${used(dayAndAHour)}'`)
      await admin.query(`COMMENT ON DATABASE ${databases.recent} IS '${used(60_000)}'`)

      await findTestPostgres()

      const { rows } = await admin.query<{ name: string; comment: string | null }>(
        "SELECT datname AS name, shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = ANY($1)",
        [Object.values(databases)],
      )
      const left = new Map(rows.map(({ name, comment }) => [name, comment]))
      expect([...left.keys()].sort()).toEqual(
        [databases.inUse, databases.recent, databases.unmarked, databases.runningScratch, databases.other].sort())
      // A database made before marks were written is marked now, and so dropped only a day from now.
      expect(left.get(databases.unmarked)).toMatch(/^mailroom test database, last used /)
      // The database the run uses is marked as used now.
      const current = await admin.query<{ comment: string }>(
        "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1",
        [new URL(local!).pathname.slice(1)],
      )
      const lastUse = Date.parse(current.rows[0]!.comment.replace("mailroom test database, last used ", ""))
      expect(Date.now() - lastUse).toBeLessThan(60_000)
    } finally {
      await holder?.end()
      for (const name of Object.values(databases)) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    }
  })

  it("refuses a MAILROOM_TEST_DATABASE that is not a plain database name", async () => {
    vi.stubEnv("MAILROOM_TEST_DATABASE_URL", "")
    vi.stubEnv("MAILROOM_TEST_DATABASE", "x; DROP DATABASE postgres")
    await expect(findTestPostgres({ server: silentServer })).rejects.toThrow(/plain database name/)
  })
})
