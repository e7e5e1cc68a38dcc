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

  it("refuses a MAILROOM_TEST_DATABASE that is not a plain database name", async () => {
    vi.stubEnv("MAILROOM_TEST_DATABASE_URL", "")
    vi.stubEnv("MAILROOM_TEST_DATABASE", "x; DROP DATABASE postgres")
    await expect(findTestPostgres({ server: silentServer })).rejects.toThrow(/plain database name/)
  })
})
