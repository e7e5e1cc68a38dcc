/** A burst of events to one endpoint on Postgres: many deliveries attempted at once all record their attempts under
 *  the endpoint's lock without waiting on each other's foreign-key locks (which used to deadlock, fail attempts and
 *  stall the burst). Every event reaches a real receiver once, verified with `standardwebhooks`, at its first attempt. */
import { Accounts, Store, Webhooks } from "@mailroom/core"
import { findTestPostgres, makeEvent, scratchPostgres, startWebhookReceiver } from "@mailroom/testing"
import { Effect } from "effect"
import pg from "pg"
import { Webhook } from "standardwebhooks"
import { afterAll, describe, expect, it } from "vitest"
import { createMailroom } from "../src/index.js"

const serverUrl = await findTestPostgres()
const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined)
})

describe.skipIf(serverUrl === undefined)("a burst of webhook deliveries on Postgres", () => {
  it("delivers 100 events to one endpoint, each once and at its first attempt", async () => {
    const scratch = await scratchPostgres(serverUrl!)
    cleanups.push(scratch.drop)
    const url = scratch.url
    const receiver = await startWebhookReceiver()
    cleanups.push(() => receiver.close())
    const mailroom = createMailroom({
      database: url, secret: "burst-platform-secret-0123456789abcdef", unsafeAllowPrivateUrls: true,
    })
    cleanups.push(() => mailroom.close())
    await mailroom.ready()
    const { account, secret } = await mailroom.runtime.runPromise(Effect.gen(function* () {
      const { account } = yield* (yield* Accounts).create({ plan: "pro", ownerEmail: "owner@example.com" })
      const created = yield* (yield* Webhooks).create(account, { url: `${receiver.origin}/hooks`, events: ["list.member_added"] })
      return { account, secret: created.secret }
    }))
    const events = Array.from({ length: 100 }, (_, i) => makeEvent({
      accountId: account.id, type: "list.member_added", recipient: `member${i}@example.com`,
    }))
    await mailroom.runtime.runPromise(Effect.flatMap(Store, (store) => store.transaction(store.events.append(events))))

    const requests = await receiver.waitFor(events.length, 60_000)
    const verifier = new Webhook(secret)
    const eventIds = requests.map((request) => (verifier.verify(request.body, request.headers) as { readonly messageId: string }).messageId)
    expect(new Set(eventIds).size).toBe(events.length)
    expect([...eventIds].sort()).toEqual(events.map((event) => event.id).sort())

    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      // The receiver answers before each attempt is recorded: wait for the records of the last ones.
      const summary = () => client.query<{ status: string; attempts: number; n: string }>(
        "SELECT status, attempts, count(*) AS n FROM webhook_deliveries GROUP BY status, attempts ORDER BY status")
      let { rows } = await summary()
      for (let tries = 0; tries < 100 && rows.some((row) => row.status === "pending"); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        rows = (await summary()).rows
      }
      expect(rows.map((row) => [row.status, Number(row.attempts), Number(row.n)])).toEqual([["succeeded", 1, events.length]])
    } finally {
      await client.end()
    }
  }, 120_000)
})
