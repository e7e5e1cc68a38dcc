/** A caller may handle DuplicateContact inside its transaction and go on: the refused write leaves the transaction
 *  usable on both dialects (Postgres aborts a transaction on any failed statement unless it ran under a savepoint).
 *  Each case runs with spans on and off: with spans off statements run on the transaction's connection without
 *  @effect/sql's wrapping (direct.ts), and they must join the transaction all the same, commit with it and roll back
 *  with it. */
import { expect, layer } from "@effect/vitest"
import { type AccountId, Store } from "@mailroom/core"
import { makeAccount, makeContact, makeEvent } from "@mailroom/testing"
import { Effect, Layer, Option } from "effect"
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

const settings = [{ spans: "on", layer: Layer.empty }, { spans: "off", layer: Layer.setTracerEnabled(false) }] as const

for (const backend of backends) for (const { spans, layer: tracing } of settings) {
  layer(Layer.merge(backend.layer, tracing), { timeout: "30 seconds" })(`refused writes inside a transaction (${backend.name}, spans ${spans})`, (it) => {
    it.effect("a failed transaction leaves none of its writes, hot statements included", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* freshAccount
        const ada = makeContact({ accountId, email: "ada@example.com" })
        const failed = yield* Effect.flip(store.transaction(Effect.gen(function* () {
          yield* store.contacts.insert(ada)
          yield* store.events.append([makeEvent({ accountId })])
          const seen = yield* store.contacts.findAddress(accountId, ada.email)
          expect(Option.map(seen.contact, (c) => c.id)).toEqual(Option.some(ada.id))
          return yield* Effect.fail("undo" as const)
        })))
        expect(failed).toBe("undo")
        expect(yield* contactEmails(accountId)).toEqual([])
        expect(yield* store.events.list(accountId)).toEqual([])
      }))

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
