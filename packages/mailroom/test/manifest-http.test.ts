import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { findTestPostgres, manifestHttpSuite, scratchPostgres } from "@mailroom/testing"
import { afterAll, describe } from "vitest"
import { createMailroom } from "../src/index.js"

// Background work on: the installed templates are sent into the dev outbox in both accounts.
const start = async (database: string, drop?: () => Promise<void>) => {
  const mailroom = createMailroom({ database, adminToken: "test-admin-token", appUrl: "https://mail.example.com" })
  await mailroom.ready()
  return { fetch: mailroom.fetch, close: async () => { await mailroom.close(); await drop?.() } }
}

const directory = mkdtempSync(join(tmpdir(), "mailroom-manifest-"))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

manifestHttpSuite("memory", () => start("memory:"))
manifestHttpSuite("sqlite", () => start(`sqlite:${join(directory, "db.sqlite")}`))
const url = await findTestPostgres()
describe.skipIf(url === undefined)("postgres", () => {
  // A database of its own: background work runs against it.
  manifestHttpSuite("postgres", async () => {
    const scratch = await scratchPostgres(url!)
    return start(scratch.url, scratch.drop)
  })
})
