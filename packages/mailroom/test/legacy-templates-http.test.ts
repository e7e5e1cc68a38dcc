import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { findTestPostgres, legacyTemplatesHttpSuite } from "@mailroom/testing"
import { describe } from "vitest"
import { createMailroom } from "../src/index.js"

// Background work runs: a test send goes through delivery into the dev outbox.
const start = async (database: string) => {
  const mailroom = createMailroom({ database, adminToken: "test-admin-token" })
  await mailroom.ready()
  return { fetch: mailroom.fetch, close: mailroom.close }
}

legacyTemplatesHttpSuite("memory", () => start("memory:"))
legacyTemplatesHttpSuite("sqlite", () => start(`sqlite:${join(mkdtempSync(join(tmpdir(), "mailroom-legacy-")), "db.sqlite")}`))
const url = await findTestPostgres()
describe.skipIf(url === undefined)("postgres", () => {
  legacyTemplatesHttpSuite("postgres", () => start(url!))
})
