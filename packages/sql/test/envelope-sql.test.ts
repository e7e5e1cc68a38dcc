/** The request body that fan-out builds in SQL (envelopeSql) is webhookEnvelope's, on every dialect: random events are
 *  stored, their body built by the statement, and compared with core's envelope of the same events as read back. On
 *  SQLite, and on Postgres for events whose details are not rewritten, the bytes are JSON.stringify's too. */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { deliveryEventTypes, type DomainEvent, eventTypes, liftedEnvelopeFields, Store, webhookEnvelope } from "@mailroom/core"
import { makeAccount, uniqueText } from "@mailroom/testing"
import { Effect } from "effect"
import fc from "fast-check"
import { envelopeSql } from "../src/envelope-sql.js"
import { backends } from "./support.js"

/** Text that JSON and SQL quoting must both get right. */
const tricky = fc.oneof(
  fc.string(),
  fc.array(fc.constantFrom("\"", "\\", "'", "\n", "\t", "\u0001", "\u001f", "é", "漢", "😀", "</", "%", "_", " "), { maxLength: 6 })
    .map((parts) => parts.join("")),
)

/** Keys that are not integer-like, so that a JavaScript object keeps them in insertion order (as the stored text does). */
const key = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !/^\d+$/.test(k))

/** A lifted field's value as the sending work may leave it: a string (empty or not), or something else. */
const liftedValue = fc.oneof(tricky, fc.constant(""), fc.integer(), fc.constant(null), fc.boolean())

const detailsOf = (keys: fc.Arbitrary<string>) =>
  fc.tuple(
    fc.dictionary(keys, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
    fc.subarray(["messageId", ...liftedEnvelopeFields]).chain((fields) =>
      fc.tuple(...fields.map((field) => liftedValue.map((value) => [field, value] as const)))),
  ).map(([rest, lifted]) => ({ ...rest, ...Object.fromEntries(lifted) }))

const eventsOf = (keys: fc.Arbitrary<string>) =>
  fc.array(
    fc.record({
      id: tricky.map((text) => `evt_${text}`),
      type: fc.constantFrom(...eventTypes),
      recipient: fc.option(tricky, { nil: null }),
      details: detailsOf(keys),
      occurredAt: fc.integer({ min: 0, max: 4_102_444_800_000 }).map((ms) => new Date(ms)),
    }),
    { minLength: 1, maxLength: 8 },
  )

for (const backend of backends) {
  layer(backend.layer, { timeout: "120 seconds" })(`webhook envelope in SQL (${backend.name})`, (it) => {
    /** Stores `events` (ids made unique) and answers each as read back, with the body the statement builds. */
    const built = (events: ReadonlyArray<Omit<DomainEvent, "accountId">>) =>
      Effect.gen(function* () {
        const store = yield* Store
        const sql = yield* SqlClient.SqlClient
        const account = makeAccount()
        yield* store.accounts.insert(account)
        const run = uniqueText("run")
        const stored = events.map((event, i) => ({ ...event, id: `${event.id}_${run}_${i}`, accountId: account.id }))
        yield* store.transaction(store.events.append(stored))
        const rows = yield* sql<{ readonly id: string; readonly payload: string }>`SELECT e.id, ${sql.literal(envelopeSql(sql, "e"))} AS payload
          FROM events e WHERE e.account_id = ${account.id}`
        const payloads = new Map(rows.map((row) => [row.id, row.payload]))
        const readBack = yield* store.events.list(account.id)
        return readBack.map((event) => ({ event, payload: payloads.get(event.id)! }))
      })

    it.effect("is webhookEnvelope's JSON for any event", () =>
      Effect.gen(function* () {
        for (const events of fc.sample(eventsOf(fc.string({ maxLength: 8 })), { numRuns: 60, seed: 20261127 })) {
          for (const { event, payload } of yield* built(events)) expect(JSON.parse(payload)).toEqual(webhookEnvelope(event))
        }
      }))

    it.effect("is JSON.stringify's bytes where the details are kept as stored", () =>
      Effect.gen(function* () {
        let compared = 0
        for (const events of fc.sample(eventsOf(key), { numRuns: 60, seed: 20261128 })) {
          for (const { event, payload } of yield* built(events)) {
            if (backend.name === "postgres" && deliveryEventTypes.includes(event.type)) continue
            expect(payload).toBe(JSON.stringify(webhookEnvelope(event)))
            compared++
          }
        }
        expect(compared).toBeGreaterThan(100)
      }))
  })
}
