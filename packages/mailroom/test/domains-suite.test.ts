import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type DomainsTargetConfig, domainsSuite, findTestPostgres } from "@mailroom/testing"
import { describe } from "vitest"
import { createMailroom } from "../src/index.js"

const start = async (database: string, config: DomainsTargetConfig) => {
  const mailroom = createMailroom({ database, adminToken: "test-admin-token", backgroundWork: false, ...config })
  await mailroom.ready()
  return { fetch: mailroom.fetch, close: mailroom.close }
}

domainsSuite("memory", (config) => start("memory:", config))
domainsSuite("sqlite", (config) => start(`sqlite:${join(mkdtempSync(join(tmpdir(), "mailroom-domains-")), "db.sqlite")}`, config))
const url = await findTestPostgres()
describe.skipIf(url === undefined)("postgres", () => {
  domainsSuite("postgres", (config) => start(url!, config))
})
