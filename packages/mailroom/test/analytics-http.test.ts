import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { analyticsHttpSuite, findTestPostgres, scratchPostgres } from "@mailroom/testing"
import { afterAll, describe } from "vitest"
import { createMailroom } from "../src/index.js"

// Background work runs: mail is delivered to the dev outbox, hits are flushed and the outbox relayed to the analytics.
// A request handed to fetch() has no peer address, so no proxy is trusted: the Geo port given here reads the tests'
// CF-IPCountry header itself, as a host's GeoIP lookup would answer.
const start = async (database: string) => {
  const mailroom = createMailroom({
    database, adminToken: "test-admin-token", geo: { country: ({ headers }) => headers.get("cf-ipcountry") },
  })
  await mailroom.ready()
  return { fetch: mailroom.fetch, close: mailroom.close }
}

analyticsHttpSuite("memory", () => start("memory:"))
analyticsHttpSuite("sqlite", () => start(`sqlite:${join(mkdtempSync(join(tmpdir(), "mailroom-analytics-")), "db.sqlite")}`))
const url = await findTestPostgres()
const scratch = url === undefined ? undefined : await scratchPostgres(url)
afterAll(async () => { await scratch?.drop() })
describe.skipIf(scratch === undefined)("postgres", () => {
  analyticsHttpSuite("postgres", () => start(scratch!.url))
})
