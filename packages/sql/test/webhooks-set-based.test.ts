/** Fan-out to webhook endpoints works on sets: one statement for a whole batch of events, whatever the number of
 *  events and endpoints, split only where the bound-parameter limit requires it (SQLite; Postgres takes arrays). */
import { expect, layer } from "@effect/vitest"
import { type AccountId, type FanOutEvent, Store } from "@mailroom/core"
import { makeAccount, makeEvent, makeWebhookEndpoint, scratchPostgres, uniqueText } from "@mailroom/testing"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { backends, postgresClient, postgresUrl, recordStatements, sqliteClient, storeOver, touching } from "./support.js"

const accountWithEndpoints = (count: number) =>
  Effect.gen(function* () {
    const store = yield* Store
    const account = makeAccount({ plan: "scale" })
    yield* store.accounts.insert(account)
    for (let i = 0; i < count; i++) {
      yield* store.webhooks.insertEndpoint(makeWebhookEndpoint({ accountId: account.id, events: ["email.delivered", "email.opened"] }))
    }
    return account.id
  })

const events = (accountId: AccountId, count: number): ReadonlyArray<FanOutEvent> =>
  Array.from({ length: count }, (_, i) => {
    const id = uniqueText("evt")
    const type = i % 3 === 0 ? "email.opened" : i % 3 === 1 ? "email.delivered" : "contact.subscribed"
    return { id, accountId, type, payload: JSON.stringify({ eventType: type, messageId: id }) }
  })

for (const backend of backends) {
  layer(backend.layer, { timeout: "120 seconds" })(`webhook fan-out on sets (${backend.name})`, (it) => {
    it.effect("500 events over 10 endpoints make their deliveries in one statement", () =>
      Effect.gen(function* () {
        const { webhooks } = yield* Store
        const accountId = yield* accountWithEndpoints(10)
        const batch = events(accountId, 500)
        const { value: made, statements } = yield* recordStatements(webhooks.fanOut(batch, new Date(1_700_000_000_000)))
        expect(statements).toHaveLength(1)
        expect(touching(statements, "INSERT INTO", "webhook_deliveries")).toHaveLength(1)
        // Two of every three events are of a subscribed type: 334 + 333 events, ten endpoints each.
        expect(made).toHaveLength((167 + 167) * 10)
        const again = yield* recordStatements(webhooks.fanOut(batch, new Date(1_700_000_000_000)))
        expect(again.value).toEqual([])
        expect(again.statements).toHaveLength(1)
      }))

    // Postgres takes the events as one array per column, whatever their number; SQLite one parameter per cell.
    const splits = backend.name === "postgres" ? 1 : 2
    it.effect(`9,000 events make their deliveries in ${splits === 1 ? "one statement (arrays)" : "two statements, split at the parameter limit"}`, () =>
      Effect.gen(function* () {
        const { webhooks } = yield* Store
        const accountId = yield* accountWithEndpoints(2)
        const { value: made, statements } = yield* recordStatements(webhooks.fanOut(events(accountId, 9_000), new Date(1_700_000_000_000)))
        expect(touching(statements, "INSERT INTO", "webhook_deliveries")).toHaveLength(splits)
        expect(statements).toHaveLength(splits)
        expect(made).toHaveLength(6_000 * 2)
      }))
  })
}

// The relay sees every event of the outbox: a database of its own for each backend (other test files append to the
// shared Postgres test database meanwhile).
const scratch = postgresUrl === undefined ? undefined : await scratchPostgres(postgresUrl)
afterAll(() => scratch?.drop())
const windowBackends = [
  { name: "sqlite", layer: storeOver(sqliteClient()) },
  ...(scratch === undefined ? [] : [{ name: "postgres", layer: storeOver(postgresClient(scratch.url)) }]),
]
for (const backend of windowBackends) {
  layer(backend.layer, { timeout: "120 seconds" })(`webhook fan-out of a relayed window (${backend.name})`, (it) => {
    it.effect("a relayed window of 2,000 events over 10 endpoints makes its deliveries in one statement, reading no event", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* accountWithEndpoints(10)
        const consumer = uniqueText("consumer")
        while ((yield* store.events.relayWindow(consumer, 10_000, () => Effect.void)) > 0) { /* to the end */ }
        yield* store.transaction(store.events.append(Array.from({ length: 2_000 }, (_, i) =>
          makeEvent({ accountId, type: i % 2 === 0 ? "email.opened" : "contact.subscribed", details: { n: i } }))))
        const recorded: Array<{ readonly made: number; readonly statements: ReadonlyArray<string> }> = []
        expect(yield* store.events.relayWindow(consumer, 2_000, (window) =>
          Effect.map(recordStatements(store.webhooks.fanOutWindow(window, new Date(1_700_000_000_000))), ({ value, statements }) => {
            recorded.push({ made: value.length, statements })
          }))).toBe(2_000)
        const [{ made, statements }] = recorded as [typeof recorded[number]]
        expect(statements).toHaveLength(1)
        expect(touching(statements, "INSERT INTO", "webhook_deliveries")).toHaveLength(1)
        expect(touching(statements, "FROM", "events")).toHaveLength(1)
        expect(made).toBe(1_000 * 10)
      }))
  })
}
