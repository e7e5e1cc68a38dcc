import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { findTestPostgres, type ValidationTargetConfig, validationSuite } from "@mailroom/testing"
import { describe } from "vitest"
import { createMailroom } from "../src/index.js"

const start = async (database: string, config: ValidationTargetConfig) => {
  const mailroom = createMailroom({ database, adminToken: "test-admin-token", ...config })
  await mailroom.ready()
  return { fetch: mailroom.fetch, close: mailroom.close }
}

validationSuite("memory", (config) => start("memory:", config))
validationSuite("sqlite", (config) => start(`sqlite:${join(mkdtempSync(join(tmpdir(), "mailroom-validation-")), "db.sqlite")}`, config))
const url = await findTestPostgres()
describe.skipIf(url === undefined)("postgres", () => {
  validationSuite("postgres", (config) => start(url!, config))
})
