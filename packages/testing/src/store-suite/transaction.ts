/** Store contract: transaction (commit, rollback on failure, defect and interruption, nesting) and accounts.lock. */
import { describe, expect } from "@effect/vitest"
import { type AccountId, type EmailAddress, Store } from "@mailroom/core"
import { Cause, Deferred, Effect, Exit, Fiber, Option } from "effect"
import { makeContact, makeCustomField, makeEvent, makeTag } from "../fixtures.js"
import { comparable, insertAccount, insertContacts, type StoreTester } from "./support.js"

/** A snapshot of everything the rollback tests write to, for comparing before and after. */
const observe = (accountId: AccountId) =>
  Effect.gen(function* () {
    const store = yield* Store
    const listed = yield* store.contacts.list(accountId, { page: 1, limit: 100, sortBy: "email", sortOrder: "asc" })
    const account = yield* store.accounts.findById(accountId)
    return {
      contacts: listed.contacts.map(comparable),
      plan: Option.map(account, (a) => a.plan),
      events: (yield* store.events.list(accountId)).map((e) => e.id),
    }
  })

/** Writes through every kind of repository method, then appends an event. Expects the seeded account. */
const writeEverything = (accountId: AccountId) =>
  Effect.gen(function* () {
    const store = yield* Store
    const kept = Option.getOrThrow(yield* store.contacts.findByEmail(accountId, "kept@example.com" as EmailAddress))
    const gone = Option.getOrThrow(yield* store.contacts.findByEmail(accountId, "zgone@example.com" as EmailAddress))
    const account = Option.getOrThrow(yield* store.accounts.findById(accountId))
    yield* store.contacts.insert(makeContact({ accountId, email: "new@example.com", tags: ["fresh"] }))
    yield* store.contacts.insertMany([makeContact({ accountId, email: "bulk@example.com" })])
    yield* store.contacts.update({ ...kept, firstName: "Changed", status: "UNSUBSCRIBED" })
    yield* store.contacts.addTags(accountId, kept.id, [makeTag(kept.id, "added")])
    yield* store.contacts.removeTag(accountId, kept.id, "vip")
    yield* store.contacts.replaceCustomFields(accountId, kept.id, [makeCustomField(kept.id, "z", "26")])
    yield* store.contacts.delete(accountId, gone.id)
    yield* store.accounts.update({ ...account, plan: "enterprise" })
    yield* store.events.append([makeEvent({ accountId })])
  })

/** An account holding two contacts ("kept" and "zgone", by address) and one event. */
const seededAccount = Effect.gen(function* () {
  const store = yield* Store
  const accountId = yield* insertAccount
  yield* insertContacts(accountId, [
    { email: "kept@example.com", tags: ["vip"], customFields: { a: "1" } },
    { email: "zgone@example.com", tags: ["old"] },
  ])
  yield* store.events.append([makeEvent({ accountId })])
  return accountId
})

export const transactionTests = (it: StoreTester) => {
  describe("transaction", () => {
    it.effect("commits every write and event, answers the effect's value, and the writes are visible afterwards", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* seededAccount
        const before = yield* observe(accountId)
        const value = yield* store.transaction(writeEverything(accountId).pipe(Effect.as("done")))
        const after = yield* observe(accountId)
        expect(value).toBe("done")
        expect(after.contacts.map((c) => [c.email, c.firstName, c.tags.map((t) => t.tag)])).toEqual([
          ["bulk@example.com", null, []],
          ["kept@example.com", "Changed", ["added"]],
          ["new@example.com", null, ["fresh"]],
        ])
        expect(after.contacts[1]!.customFields.map((f) => [f.key, f.value])).toEqual([["z", "26"]])
        expect(after.plan).toEqual(Option.some("enterprise"))
        expect(after.events.length).toBe(before.events.length + 1)
      }))

    it.effect("a failure rolls back every write and the appended events, and surfaces unchanged", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* seededAccount
        const before = yield* observe(accountId)
        const error = yield* Effect.flip(store.transaction(
          writeEverything(accountId).pipe(Effect.zipRight(Effect.fail({ _tag: "Refused" as const }))),
        ))
        expect(error).toEqual({ _tag: "Refused" })
        expect(yield* observe(accountId)).toEqual(before)
      }))

    it.effect("a DuplicateContact inside the transaction rolls back the writes before it", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* seededAccount
        const before = yield* observe(accountId)
        const error = yield* Effect.flip(store.transaction(Effect.gen(function* () {
          yield* store.contacts.insert(makeContact({ accountId, email: "first@example.com" }))
          yield* store.contacts.insert(makeContact({ accountId, email: "kept@example.com" }))
        })))
        expect(error._tag).toBe("DuplicateContact")
        expect(yield* observe(accountId)).toEqual(before)
      }))

    it.effect("a defect rolls back every write and the appended events", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* seededAccount
        const before = yield* observe(accountId)
        const exit = yield* Effect.exit(store.transaction(writeEverything(accountId).pipe(Effect.zipRight(Effect.die("boom")))))
        expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
        expect(yield* observe(accountId)).toEqual(before)
      }))

    it.effect("an interruption rolls back every write and the appended events", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* seededAccount
        const before = yield* observe(accountId)
        const written = yield* Deferred.make<void>()
        const fiber = yield* Effect.fork(store.transaction(
          writeEverything(accountId).pipe(Effect.zipRight(Deferred.succeed(written, undefined)), Effect.zipRight(Effect.never)),
        ))
        yield* Deferred.await(written)
        yield* Fiber.interrupt(fiber)
        expect(yield* observe(accountId)).toEqual(before)
      }))

    it.effect("a nested transaction joins the outer one: its writes are seen inside and roll back with it", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* seededAccount
        const before = yield* observe(accountId)
        const inner = makeContact({ accountId, email: "inner@example.com" })
        const seenInside = yield* Effect.flip(store.transaction(Effect.gen(function* () {
          yield* store.transaction(store.contacts.insert(inner))
          yield* store.events.append([makeEvent({ accountId })])
          const seen = yield* store.contacts.findById(accountId, inner.id)
          return yield* Effect.fail(Option.isSome(seen))
        })))
        expect(seenInside).toBe(true)
        expect(yield* observe(accountId)).toEqual(before)
      }))

    it.effect("nested transactions that succeed commit with the outer one", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* insertAccount
        const inner = makeContact({ accountId })
        const outer = makeContact({ accountId })
        yield* store.transaction(Effect.gen(function* () {
          yield* store.transaction(store.transaction(store.contacts.insert(inner)))
          yield* store.contacts.insert(outer)
        }))
        const found = yield* store.contacts.findByIds(accountId, [inner.id, outer.id])
        expect(found.length).toBe(2)
      }))
  })

  describe("accounts.lock", () => {
    it.effect("serialises check-then-insert transactions of one account, so a cap of one holds", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* insertAccount
        const insertUnlessFull = (address: string) => store.transaction(Effect.gen(function* () {
          yield* store.accounts.lock(accountId)
          const active = yield* store.contacts.countActive(accountId)
          yield* Effect.yieldNow()
          if (active >= 1) return false
          yield* store.contacts.insert(makeContact({ accountId, email: address }))
          return true
        }))
        const results = yield* Effect.all(
          ["a@example.com", "b@example.com", "c@example.com"].map(insertUnlessFull),
          { concurrency: "unbounded" },
        )
        expect(results.filter(Boolean).length).toBe(1)
        expect(yield* store.contacts.countActive(accountId)).toBe(1)
      }))
  })
}
