import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { findTestPostgres, scratchPostgres, type TrackingDomainTargetConfig, trackingDomainSuite } from "@mailroom/testing"
import { afterAll, describe } from "vitest"
import { createMailroom } from "../src/index.js"

// Background work on: sends are delivered into the dev outbox, where the suite reads their links.
const start = async (database: string, config: TrackingDomainTargetConfig, drop?: () => Promise<void>) => {
  const mailroom = createMailroom({ database, adminToken: "test-admin-token", ...config })
  await mailroom.ready()
  return { fetch: mailroom.fetch, close: async () => { await mailroom.close(); await drop?.() } }
}

const directory = mkdtempSync(join(tmpdir(), "mailroom-tracking-domain-"))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

trackingDomainSuite("memory", (config) => start("memory:", config))
trackingDomainSuite("sqlite", (config) => start(`sqlite:${join(directory, "db.sqlite")}`, config))
const url = await findTestPostgres()
describe.skipIf(url === undefined)("postgres", () => {
  // A database of its own: background work runs against it.
  trackingDomainSuite("postgres", async (config) => {
    const scratch = await scratchPostgres(url!)
    return start(scratch.url, config, scratch.drop)
  })
})
