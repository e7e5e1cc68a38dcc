/** The contacts repository works on sets: the number of statements stays the same whatever the number of contacts,
 *  and statements split only where the bound-parameter limit requires it. */
import { expect, layer } from "@effect/vitest"
import { type AccountId, Store } from "@mailroom/core"
import { type ContactOverrides, makeAccount, makeContact, uniqueText } from "@mailroom/testing"
import { Effect, Option } from "effect"
import { backends, recordStatements, touching } from "./support.js"

const freshAccount = Effect.gen(function* () {
  const store = yield* Store
  const account = makeAccount()
  yield* store.accounts.insert(account)
  return account.id
})

/** `count` contacts of the account with fresh addresses; `fields(i)` adds tags or custom fields to the i-th. */
const many = (accountId: AccountId, count: number, fields: (i: number) => Omit<ContactOverrides, "accountId"> = () => ({})) =>
  Array.from({ length: count }, (_, i) => makeContact({ accountId, email: `${uniqueText("c")}@example.com`, ...fields(i) }))

for (const backend of backends) {
  layer(backend.layer, { timeout: "60 seconds" })(`contacts on sets (${backend.name})`, (it) => {
    it.effect("insert of a contact without tags or custom fields is a single INSERT", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* freshAccount
        const contact = makeContact({ accountId })
        const { statements } = yield* recordStatements(contacts.insert(contact))
        expect(statements).toHaveLength(1)
        expect(touching(statements, "INSERT INTO", "contacts")).toHaveLength(1)
        expect(Option.isSome(yield* contacts.findById(accountId, contact.id))).toBe(true)
      }))

    it.effect("insert with tags and custom fields adds one statement for each", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* freshAccount
        const contact = makeContact({ accountId, tags: ["a", "b", "c"], customFields: { x: "1", y: "2" } })
        const { statements } = yield* recordStatements(contacts.insert(contact))
        expect(statements).toHaveLength(3)
        expect(touching(statements, "INSERT INTO", "contact_tags")).toHaveLength(1)
        expect(touching(statements, "INSERT INTO", "contact_custom_fields")).toHaveLength(1)
      }))

    it.effect("insertMany of 3,000 contacts splits only at the parameter limit and inserts every one", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* freshAccount
        const batch = many(accountId, 3_000, (i) => ({ tags: ["bulk", `t${i % 7}`], customFields: { n: String(i) } }))
        const { value: inserted, statements } = yield* recordStatements(contacts.insertMany(batch))
        expect(inserted.map((c) => c.id)).toEqual(batch.map((c) => c.id))
        // 3,000 rows of 22 columns exceed 32,000 parameters twice: three contact statements; tags and fields fit in one.
        expect(touching(statements, "INSERT INTO", "contacts")).toHaveLength(3)
        expect(touching(statements, "INSERT INTO", "contact_tags")).toHaveLength(1)
        expect(touching(statements, "INSERT INTO", "contact_custom_fields")).toHaveLength(1)
        expect(statements).toHaveLength(5)
        expect(yield* contacts.tagCounts(accountId)).toContainEqual({ name: "bulk", count: 3_000 })

        const again = yield* recordStatements(contacts.insertMany(batch))
        expect(again.value).toEqual([])
        expect(again.statements).toHaveLength(3)
      }))

    it.effect("list reads a page of contacts with tags and custom fields in four statements", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* freshAccount
        yield* contacts.insertMany(many(accountId, 300, (i) => ({ tags: [`t${i % 3}`], customFields: { i: String(i) } })))
        const full = yield* recordStatements(
          contacts.list(accountId, { page: 1, limit: 250, sortBy: "email", sortOrder: "desc" }))
        expect(full.value.total).toBe(300)
        expect(full.value.contacts).toHaveLength(250)
        expect(full.value.contacts.every((c) => c.tags.length === 1 && c.customFields.length === 1)).toBe(true)
        expect(full.statements).toHaveLength(4)
        expect(touching(full.statements, "FROM", "contact_tags")).toHaveLength(1)
        expect(touching(full.statements, "FROM", "contact_custom_fields")).toHaveLength(1)

        const beyond = yield* recordStatements(
          contacts.list(accountId, { page: 2, limit: 250, sortBy: "email", sortOrder: "desc", tag: "t1" }))
        expect([beyond.value.contacts.length, beyond.value.total]).toEqual([0, 100])
        expect(beyond.statements).toHaveLength(2)
      }))

    it.effect("listAfter and findByIds complete every contact in two more statements", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* freshAccount
        const inserted = yield* contacts.insertMany(many(accountId, 120, () => ({ tags: ["x"] })))
        const batch = yield* recordStatements(contacts.listAfter(accountId, {}, undefined, 500))
        expect(batch.value).toHaveLength(120)
        expect(batch.statements).toHaveLength(3)
        const found = yield* recordStatements(contacts.findByIds(accountId, inserted.map((c) => c.id)))
        expect(found.value).toHaveLength(120)
        expect(found.statements).toHaveLength(3)
      }))

    it.effect("findByIds, findByEmails and deleteMany accept more values than one IN list holds", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* freshAccount
        const inserted = yield* contacts.insertMany(many(accountId, 50))
        const unknownIds = Array.from({ length: 12_000 }, (_, i) => `ct_unknown_${i}`)
        const ids = [...unknownIds, ...inserted.map((c) => c.id)]
        expect((yield* contacts.findByIds(accountId, ids)).length).toBe(50)
        const emails = inserted.map((c) => c.email)
        expect((yield* contacts.findByEmails(accountId, [...emails, ...emails, ...emails])).length).toBe(50)
        expect(yield* contacts.deleteMany(accountId, ids)).toBe(50)
        expect(yield* contacts.countActive(accountId)).toBe(0)
      }))
  })
}
