import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { designsHttpSuite, findTestPostgres } from "@mailroom/testing"
import { describe } from "vitest"
import { createMailroom } from "../src/index.js"

const start = async (database: string) => {
  const mailroom = createMailroom({ database, adminToken: "test-admin-token", backgroundWork: false })
  await mailroom.ready()
  return { fetch: mailroom.fetch, close: mailroom.close }
}

designsHttpSuite("memory", () => start("memory:"))
designsHttpSuite("sqlite", () => start(`sqlite:${join(mkdtempSync(join(tmpdir(), "mailroom-designs-")), "db.sqlite")}`))
const url = await findTestPostgres()
describe.skipIf(url === undefined)("postgres", () => {
  designsHttpSuite("postgres", () => start(url!))
})
