/** Fan-out to webhook endpoints works on sets: one statement for a whole batch of events, whatever the number of
 *  events and endpoints, split only where the bound-parameter limit requires it (SQLite; Postgres takes arrays). */
import { expect, layer } from "@effect/vitest"
import { type AccountId, type FanOutEvent, Store } from "@mailroom/core"
import { makeAccount, makeWebhookEndpoint, uniqueText } from "@mailroom/testing"
import { Effect } from "effect"
import { backends, recordStatements, touching } from "./support.js"

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
