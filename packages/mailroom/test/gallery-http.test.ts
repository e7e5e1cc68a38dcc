import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assetsHttpSuite, findTestPostgres, galleryHttpSuite } from "@mailroom/testing"
import { describe } from "vitest"
import { createMailroom } from "../src/index.js"

const start = async (database: string) => {
  const mailroom = createMailroom({ database, adminToken: "test-admin-token", backgroundWork: false, appUrl: "https://mail.example.com" })
  await mailroom.ready()
  return { fetch: mailroom.fetch, close: mailroom.close }
}
const sqlite = () => `sqlite:${join(mkdtempSync(join(tmpdir(), "mailroom-gallery-")), "db.sqlite")}`

galleryHttpSuite("memory", () => start("memory:"))
galleryHttpSuite("sqlite", () => start(sqlite()))
assetsHttpSuite("memory", () => start("memory:"))
assetsHttpSuite("sqlite", () => start(sqlite()))
const url = await findTestPostgres()
describe.skipIf(url === undefined)("postgres", () => {
  galleryHttpSuite("postgres", () => start(url!))
  assetsHttpSuite("postgres", () => start(url!))
})
