/** A caller may handle DuplicateContact inside its transaction and go on: the refused write leaves the transaction
 *  usable on both dialects (Postgres aborts a transaction on any failed statement unless it ran under a savepoint). */
import { expect, layer } from "@effect/vitest"
import { type AccountId, Store } from "@mailroom/core"
import { makeAccount, makeContact, makeEvent } from "@mailroom/testing"
import { Effect, Option } from "effect"
import { backends } from "./support.js"

const freshAccount = Effect.gen(function* () {
  const store = yield* Store
  const account = makeAccount()
  yield* store.accounts.insert(account)
  return account.id
})

const contactEmails = (accountId: AccountId) =>
  Effect.flatMap(Store, (store) =>
    store.contacts.list(accountId, { page: 1, limit: 10, sortBy: "email", sortOrder: "asc" })).pipe(
    Effect.map((page) => page.contacts.map((c) => c.email)),
  )

for (const backend of backends) {
  layer(backend.layer, { timeout: "30 seconds" })(`refused writes inside a transaction (${backend.name})`, (it) => {
    it.effect("after a refused insert the transaction goes on and commits", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* freshAccount
        yield* store.transaction(Effect.gen(function* () {
          yield* store.contacts.insert(makeContact({ accountId, email: "ada@example.com" }))
          const refused = yield* Effect.flip(store.contacts.insert(makeContact({ accountId, email: "ada@example.com", tags: ["t"] })))
          expect(refused._tag).toBe("DuplicateContact")
          yield* store.contacts.insert(makeContact({ accountId, email: "bob@example.com" }))
          yield* store.events.append([makeEvent({ accountId })])
        }))
        expect(yield* contactEmails(accountId)).toEqual(["ada@example.com", "bob@example.com"])
        expect((yield* store.events.list(accountId)).length).toBe(1)
      }))

    it.effect("after a refused update the transaction goes on and commits, with the refused row unchanged", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* freshAccount
        const ada = makeContact({ accountId, email: "ada@example.com" })
        const bob = makeContact({ accountId, email: "bob@example.com", firstName: "Bob" })
        yield* store.contacts.insertMany([ada, bob])
        yield* store.transaction(Effect.gen(function* () {
          const refused = yield* Effect.flip(store.contacts.update({ ...bob, email: ada.email, firstName: "Robert" }))
          expect(refused._tag).toBe("DuplicateContact")
          yield* store.contacts.update({ ...ada, firstName: "Ada" })
        }))
        expect(Option.getOrThrow(yield* store.contacts.findById(accountId, ada.id)).firstName).toBe("Ada")
        const stored = Option.getOrThrow(yield* store.contacts.findById(accountId, bob.id))
        expect([stored.email, stored.firstName]).toEqual(["bob@example.com", "Bob"])
      }))
  })
}
