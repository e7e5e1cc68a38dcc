/** POST /contacts/bulk through the Contacts service on sets: on a plan without a cap on ACTIVE contacts the insert
 *  alone tells new addresses from taken ones, so 1,000 contacts are one statement; a capped plan first reads the
 *  addresses already taken, so that only new ACTIVE contacts use up its room. */
import { expect, layer } from "@effect/vitest"
import { Accounts, Contacts, IdsLive, servicesLayer } from "@mailroom/core"
import { makeCaptureMailer, testTemplateEngine, uniqueText } from "@mailroom/testing"
import { Effect, Layer } from "effect"
import { backends, recordStatements, touching } from "./support.js"

const people = (count: number) => Array.from({ length: count }, () => ({ email: `${uniqueText("b")}@example.com` }))

for (const backend of backends) {
  const services = Layer.provideMerge(servicesLayer, Layer.mergeAll(backend.layer, IdsLive, makeCaptureMailer().layer, testTemplateEngine))
  layer(services, { timeout: "60 seconds" })(`bulk create on sets (${backend.name})`, (it) => {
    it.effect("1,000 contacts on a plan without a cap are one INSERT, with no read before it", () =>
      Effect.gen(function* () {
        const { account } = yield* (yield* Accounts).create({ name: "bulk", plan: "pro" })
        const contacts = yield* Contacts
        const taken = people(100)
        yield* contacts.bulkCreate(account, { contacts: taken })
        const batch = [...people(900), ...taken]
        const { value, statements } = yield* recordStatements(contacts.bulkCreate(account, { contacts: batch, skipDuplicates: false }))
        expect(value.created).toBe(900)
        expect(value.errors.map((error) => error.email)).toEqual(taken.map((person) => person.email))
        expect(statements).toHaveLength(1)
        expect(touching(statements, "INSERT INTO", "contacts")).toHaveLength(1)
      }))

    it.effect("on a capped plan the taken addresses are read first, and only new ACTIVE contacts use up the room", () =>
      Effect.gen(function* () {
        const { account } = yield* (yield* Accounts).create({ name: "bulk", plan: "free" })
        const contacts = yield* Contacts
        const taken = people(60)
        yield* contacts.bulkCreate(account, { contacts: taken })
        const { value, statements } = yield* recordStatements(
          contacts.bulkCreate(account, { contacts: [...taken, ...people(50)], skipDuplicates: true }))
        expect(value.created).toBe(40)
        expect(value.skipped).toBe(60)
        expect(value.errors).toHaveLength(10)
        expect(touching(statements, "FROM", "contacts").length).toBeGreaterThanOrEqual(1)
      }))
  })
}
