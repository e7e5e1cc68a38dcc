/** Request rates on Postgres are counted in the database, so that instances of the host service share them: two
 *  Mailroom processes on one database let one API key make the spec's number of requests per window, not twice it.
 *  The processes run the package builds, as hosts do. */
import { type ChildProcess, fork } from "node:child_process"
import { fileURLToPath } from "node:url"
import { findTestPostgres, scratchPostgres } from "@mailroom/testing"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { createMailroom } from "../src/index.js"

const serverUrl = await findTestPostgres()
const instanceScript = fileURLToPath(new URL("./fixtures/rate-limited-instance.mjs", import.meta.url))

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined)
})

type Reply = { readonly ready: true } | { readonly statuses: ReadonlyArray<number> } | { readonly error: string }

const nextReply = (child: ChildProcess) =>
  new Promise<Reply>((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`instance exited with ${code}`))
    child.once("exit", exited)
    child.once("message", (message) => {
      child.off("exit", exited)
      resolve(message as Reply)
    })
  })

const startInstance = async (url: string) => {
  const child = fork(instanceScript, [url], { stdio: ["ignore", "inherit", "inherit", "ipc"] })
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((done) => child.once("exit", done))
    child.disconnect()
    await Promise.race([exited, new Promise((done) => setTimeout(done, 10_000))])
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  })
  const ready = await nextReply(child)
  if (!("ready" in ready)) throw new Error(`instance failed to start: ${JSON.stringify(ready)}`)
  return child
}

/** `count` POST /v1/contacts with `key`, made at once by the instance; their statuses. */
const burst = async (child: ChildProcess, key: string, count: number, tag: string) => {
  const reply = nextReply(child)
  child.send({ key, count, tag })
  const answer = await reply
  if (!("statuses" in answer)) throw new Error(`burst failed: ${JSON.stringify(answer)}`)
  return answer.statuses
}

describe.skipIf(serverUrl === undefined)("rate limits shared by two Mailroom processes on one Postgres database", () => {
  it("one API key gets 60 POST /v1/contacts a minute across both processes, as the spec says, not 60 from each", async () => {
    const { url, drop } = await scratchPostgres(serverUrl!)
    cleanups.push(drop)
    const setup = createMailroom({ database: url, backgroundWork: false, logLevel: "error" })
    const { apiKey } = await setup.accounts.create({ name: "rates", plan: "pro" })
    await setup.close()
    const [first, second] = await Promise.all([startInstance(url), startInstance(url)])
    // 50 requests from each process, at the same time: 100 in all, within one minute's window.
    const [a, b] = await Promise.all([burst(first, apiKey, 50, "a"), burst(second, apiKey, 50, "b")])
    const all = [...a, ...b]
    expect(all.filter((status) => status !== 201 && status !== 429)).toEqual([])
    expect(all.filter((status) => status === 201)).toHaveLength(60)
    expect(all.filter((status) => status === 429)).toHaveLength(40)
    // Both processes refused some: neither counted alone.
    expect(a.filter((status) => status === 429).length + b.filter((status) => status === 429).length).toBe(40)
    // The counts live in the documented table.
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const rows = await client.query<{ key: string; points: number }>(
        "SELECT key, points FROM mailroom_rate_limits WHERE key LIKE 'mailroom:contacts-create:%'")
      expect(rows.rows.map((row) => row.points)).toEqual([100])
    } finally {
      await client.end()
    }
  }, 120_000)
})
