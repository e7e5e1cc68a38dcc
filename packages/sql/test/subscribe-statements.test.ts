/** POST /subscriptions of a new address on sets: whatever the number of lists named, a subscribe is four statements
 *  between BEGIN and COMMIT (the lists named, the address's contact and its suppression read in one query, the contact
 *  inserted, every membership in one upsert, every event in one insert), never one per list. */
import { expect, layer } from "@effect/vitest"
import { Accounts, IdsLive, Lists, servicesLayer, Subscriptions } from "@mailroom/core"
import { makeCaptureMailer, testTemplateEngine, uniqueText } from "@mailroom/testing"
import { Effect, Layer } from "effect"
import { backends, recordStatements, touching } from "./support.js"

for (const backend of backends) {
  const services = Layer.provideMerge(servicesLayer, Layer.mergeAll(backend.layer, IdsLive, makeCaptureMailer().layer, testTemplateEngine))
  layer(services, { timeout: "60 seconds" })(`subscribe on sets (${backend.name})`, (it) => {
    it.effect("a new address into two lists, or five, is four statements", () =>
      Effect.gen(function* () {
        const { account } = yield* (yield* Accounts).create({ name: "subscribe", plan: "pro" })
        const lists = yield* Lists
        const subscriptions = yield* Subscriptions
        const listIds: Array<string> = []
        for (let i = 0; i < 5; i++) listIds.push((yield* lists.create(account, { name: uniqueText("List") })).list.id)
        for (const named of [listIds.slice(0, 2), listIds]) {
          const { value, statements } = yield* recordStatements(subscriptions.subscribe(account, {
            email: `${uniqueText("s")}@example.com`, firstName: "Ada", listIds: named, consent: { text: "Yes" },
          }))
          expect(value).toMatchObject({ created: true, addedToListIds: named })
          expect(statements).toHaveLength(4)
          expect(statements.filter((statement) => /JOIN contact_lists l\b/.test(statement) && /JOIN suppressions s\b/.test(statement)))
            .toHaveLength(1)
          expect(touching(statements, "FROM", "contact_lists")).toHaveLength(0)
          expect(touching(statements, "INSERT INTO", "list_members")).toHaveLength(1)
          expect(touching(statements, "INSERT INTO", "events")).toHaveLength(1)
        }
      }))
  })
}
