/** The HTTP scenario suite through the Hono mount on the SQLite and Postgres backends (the memory backend runs it on
 *  every framework, beside). Each Postgres target has a database of its own: instances on one database share their
 *  request-rate counters, and the suite's targets are made with different limits per client address, each spent on
 *  purpose from 127.0.0.1. */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { serve } from "@hono/node-server"
import { adapterHostOf, findTestPostgres, httpSuite, type HttpTargetConfig, scratchPostgres, targetOverHttp } from "@mailroom/testing"
import { Hono } from "hono"
import { createMailroom } from "@mailroom/mailroom"
import type { Server } from "node:http"
import { afterAll, describe } from "vitest"
import { mountMailroom } from "../src/index.js"

const overHono = async (database: string, { rateLimits }: HttpTargetConfig) => {
  const mailroom = createMailroom({ database, adminToken: "test-admin-token", rateLimits })
  await mailroom.ready()
  const app = new Hono()
  mountMailroom(app, "/mailroom", mailroom)
  const host = await adapterHostOf(serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server)
  return targetOverHttp(host, "/mailroom", mailroom.close)
}

const directory = mkdtempSync(join(tmpdir(), "mailroom-http-suite-"))
afterAll(() => rmSync(directory, { recursive: true, force: true }))
let files = 0

httpSuite("hono, sqlite", (config) => overHono(`sqlite:${join(directory, `mailroom-${++files}.sqlite`)}`, config))

const url = await findTestPostgres()
const drops: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const drop of drops) await drop()
})
describe.skipIf(url === undefined)("postgres", () => {
  httpSuite("hono, postgres", async (config) => {
    const scratch = await scratchPostgres(url!)
    drops.push(scratch.drop)
    return overHono(scratch.url, config)
  })
})
