import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { findTestPostgres, webhooksSuite } from "@mailroom/testing"
import { describe } from "vitest"
import { createMailroom } from "../src/index.js"

const start = async (database: string) => {
  const mailroom = createMailroom({ database, adminToken: "test-admin-token", unsafeAllowPrivateUrls: true })
  await mailroom.ready()
  return { fetch: mailroom.fetch, close: mailroom.close }
}

webhooksSuite("memory", () => start("memory:"))
webhooksSuite("sqlite", () => start(`sqlite:${join(mkdtempSync(join(tmpdir(), "mailroom-webhooks-")), "db.sqlite")}`))
const url = await findTestPostgres()
describe.skipIf(url === undefined)("postgres", () => {
  webhooksSuite("postgres", () => start(url!))
})
