/** Unsubscribe with scope all, and PATCH /subscriptions/{email}, read the address's contact and its suppression in one
 *  query (the contacts store's findAddress, as subscribe does), never one statement each. */
import { expect, layer } from "@effect/vitest"
import { Accounts, IdsLive, Lists, servicesLayer, Subscriptions } from "@mailroom/core"
import { makeCaptureMailer, testTemplateEngine, uniqueText } from "@mailroom/testing"
import { Effect, Layer } from "effect"
import { backends, recordStatements, touching } from "./support.js"

/** The statements of the contacts store's findAddress: the contact and the suppression of one address. */
const addressReads = (statements: ReadonlyArray<string>) => statements.filter((statement) => /LEFT JOIN suppressions s\b/.test(statement))

for (const backend of backends) {
  const services = Layer.provideMerge(servicesLayer, Layer.mergeAll(backend.layer, IdsLive, makeCaptureMailer().layer, testTemplateEngine))
  layer(services, { timeout: "60 seconds" })(`unsubscribe and PATCH read the address once (${backend.name})`, (it) => {
    it.effect("unsubscribe scope all and PATCH (joining a list, or unsubscribeAll) read the address in one statement", () =>
      Effect.gen(function* () {
        const { account } = yield* (yield* Accounts).create({ name: "unsubscribe", plan: "pro" })
        const subscriptions = yield* Subscriptions
        const list = (yield* (yield* Lists).create(account, { name: uniqueText("List") })).list.id
        const email = `${uniqueText("u")}@example.com`
        yield* subscriptions.subscribe(account, { email, listIds: [list], consent: { text: "Yes" } })

        // The address (with the contact's tags and custom fields), then the contact, its pending confirmation, the
        // suppression and the event written.
        const all = yield* recordStatements(subscriptions.unsubscribe(account, { email }))
        expect(all.value).toMatchObject({ scope: "all", changed: true })
        expect(addressReads(all.statements)).toHaveLength(1)
        expect(touching(all.statements, "FROM", "suppressions")).toHaveLength(0)
        expect(all.statements).toHaveLength(7)
        // An address that is not a contact: one read, the suppression and the event.
        const stranger = yield* recordStatements(subscriptions.unsubscribe(account, { email: `${uniqueText("u")}@example.com` }))
        expect(stranger.value).toMatchObject({ contactId: null, changed: true })
        expect(addressReads(stranger.statements)).toHaveLength(1)
        expect(stranger.statements).toHaveLength(3)

        // PATCH reads the address once before its change and once more in the status it answers.
        const other = `${uniqueText("u")}@example.com`
        yield* subscriptions.subscribe(account, { email: other, consent: { text: "Yes" } })
        const joined = yield* recordStatements(subscriptions.update(account, other, { lists: { [list]: true } }))
        expect(joined.value.lists).toMatchObject([{ id: list, subscribed: true }])
        expect(addressReads(joined.statements)).toHaveLength(2)
        expect(touching(joined.statements, "FROM", "suppressions")).toHaveLength(0)
        const left = yield* recordStatements(subscriptions.update(account, other, { unsubscribeAll: true }))
        expect(left.value).toMatchObject({ unsubscribedFromAll: true, suppression: { reason: "Unsubscribe" } })
        expect(addressReads(left.statements)).toHaveLength(2)
        expect(touching(left.statements, "FROM", "suppressions")).toHaveLength(0)
      }))
  })
}
