/** The public consent links (unsubscribe, one-click, the /u and /c pages) over HTTP on every backend. */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { findTestPostgres, publicLinksSuite, type PublicLinksTargetConfig, scratchPostgres } from "@mailroom/testing"
import { afterAll, describe } from "vitest"
import { createMailroom, type MailroomConfig } from "../src/index.js"

/** A Mailroom for the suite in the `confirmation` mode it asks for; `config` picks the database for that mode. */
const linksTarget = (config: (mode: PublicLinksTargetConfig["confirmation"]) => MailroomConfig | Promise<MailroomConfig>) =>
  async ({ confirmation }: PublicLinksTargetConfig) => {
    const mailroom = createMailroom({ ...(await config(confirmation)), confirmation, adminToken: "test-admin-token" })
    await mailroom.ready()
    return { fetch: mailroom.fetch, run: mailroom.runtime.runPromise, close: mailroom.close }
  }

const directory = mkdtempSync(join(tmpdir(), "mailroom-public-links-"))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

publicLinksSuite("memory", linksTarget(() => ({ database: "memory:" })))
publicLinksSuite("sqlite", linksTarget((mode) => ({ database: `sqlite:${join(directory, `links-${mode}.sqlite`)}` })))
// On Postgres each mode's Mailroom gets a database of its own, as each gets its own file on SQLite: two instances of
// different settings on one database would run each other's background work.
const postgresUrl = await findTestPostgres()
const drops: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const drop of drops) await drop()
})
describe.skipIf(postgresUrl === undefined)("postgres", () => {
  publicLinksSuite("postgres", linksTarget(async () => {
    const scratch = await scratchPostgres(postgresUrl!)
    drops.push(scratch.drop)
    return { database: scratch.url }
  }))
})
