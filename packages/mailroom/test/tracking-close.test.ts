/** Hits still waiting in memory when Mailroom closes are written before the Store goes (docs/tracking.md, "Recording"):
 *  a click answered just before close() is in the hits table, with its events, when the database is opened again. */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { deriveTokenKey, signToken, Store } from "@mailroom/core"
import { Effect } from "effect"
import { afterAll, expect, it } from "vitest"
import { createMailroom } from "../src/index.js"

const directory = mkdtempSync(join(tmpdir(), "mailroom-tracking-close-"))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

const chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

it("close() writes the hits that wait, with their events", async () => {
  const database = `sqlite:${join(directory, "mailroom.sqlite")}`
  const secret = "tracking-close-secret-0123456789abcdef"
  const first = createMailroom({ database, secret, logLevel: "error" })
  await first.ready()
  const { account } = await first.accounts.create({ name: "close", plan: "pro" })
  const token = signToken(deriveTokenKey(secret, "click"), {
    p: "click", a: account.id, r: "ada@example.com", m: "msg_close", s: 0, u: "https://shop.example.com/", i: 0, e: Date.now() + 86_400_000,
  })
  const answer = await first.fetch(new Request(`http://localhost/l/${token}`, { headers: { "user-agent": chrome } }))
  expect([answer.status, answer.headers.get("location")]).toEqual([302, "https://shop.example.com/"])
  await first.close()

  const second = createMailroom({ database, secret, logLevel: "error", backgroundWork: false })
  await second.ready()
  const read = Effect.gen(function* () {
    const store = yield* Store
    const hits = yield* store.tracking.hits(account.id, "msg_close")
    const events = yield* store.events.list(account.id)
    return { hits: hits.map((h) => [h.kind, h.classification, h.signal]), events: events.map((e) => e.type).filter((t) => t.startsWith("email.")) }
  })
  const seen = await Effect.runPromise(read.pipe(Effect.provide(second.layer)) as Effect.Effect<Effect.Effect.Success<typeof read>>)
  expect(seen.hits).toEqual(expect.arrayContaining([["click", "human", "person"], ["open", "human", "implied_by_click"]]))
  expect(seen.hits).toHaveLength(2)
  expect(seen.events.sort()).toEqual(["email.clicked", "email.opened"])
  await second.close()
})
