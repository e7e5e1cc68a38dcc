import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { brandsHttpSuite, findTestPostgres, scratchPostgres } from "@mailroom/testing"
import { afterAll, describe } from "vitest"
import { createMailroom } from "../src/index.js"

// Background work on: sends are delivered into the dev outbox, where the suite reads what each template rendered.
const start = async (database: string, drop?: () => Promise<void>) => {
  const mailroom = createMailroom({ database, adminToken: "test-admin-token" })
  await mailroom.ready()
  return { fetch: mailroom.fetch, close: async () => { await mailroom.close(); await drop?.() } }
}

const directory = mkdtempSync(join(tmpdir(), "mailroom-brands-"))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

brandsHttpSuite("memory", () => start("memory:"))
brandsHttpSuite("sqlite", () => start(`sqlite:${join(directory, "db.sqlite")}`))
const url = await findTestPostgres()
describe.skipIf(url === undefined)("postgres", () => {
  // A database of its own: background work runs against it.
  brandsHttpSuite("postgres", async () => {
    const scratch = await scratchPostgres(url!)
    return start(scratch.url, scratch.drop)
  })
})
