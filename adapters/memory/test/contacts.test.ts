import { describe, expect, it } from "@effect/vitest"
import { type AccountId, type ContactId, Store } from "@mailroom/core"
import { makeAccount, makeContact, makeEvent } from "@mailroom/testing"
import { Effect, Option } from "effect"
import { contactResource, makeContactTable } from "../src/contact-table.js"
import { makeContactRepository } from "../src/contacts.js"
import { makeMemoryDb } from "../src/db.js"
import { MemoryStore } from "../src/index.js"

describe("memory contacts", () => {
  it.scoped("deleting contacts tells dependent tables which of the ids went, within the same rollback", () =>
    Effect.gen(function* () {
      const db = yield* makeMemoryDb
      const contacts = makeContactRepository(db, makeContactTable(db), { find: () => undefined }, { find: () => undefined } as never)
      const memberships = db.table<ContactId, string>()
      db.onDelete(contactResource, (_, ids) => ids.forEach((id) => memberships.delete(id as ContactId)))
      const accountId = makeAccount().id
      const [a, b, c] = [makeContact({ accountId }), makeContact({ accountId }), makeContact({ accountId })]
      yield* contacts.insertMany([a, b, c])
      yield* db.atomic(() => [a, b, c].forEach((contact) => memberships.set(contact.id, "list_1")))

      yield* Effect.exit(db.transaction(contacts.delete(accountId, a.id).pipe(Effect.zipRight(Effect.fail("undo")))))
      expect(memberships.has(a.id)).toBe(true)

      expect(yield* contacts.deleteMany(accountId, [a.id, b.id, "ct_unknown"])).toBe(2)
      expect(yield* contacts.delete("acc_other" as AccountId, c.id)).toBe(false)
      expect([memberships.has(a.id), memberships.has(b.id), memberships.has(c.id)]).toEqual([false, false, true])
    }))
})

describe("memory store copies", () => {
  it.effect("neither the objects handed in nor the objects answered share state with the store", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const account = makeAccount()
      yield* store.accounts.insert(account)
      const contact = makeContact({ accountId: account.id, tags: ["vip"], metadata: { nested: { n: 1 } } })
      const event = makeEvent({ accountId: account.id, details: { nested: { n: 1 } } })
      yield* store.contacts.insert(contact)
      yield* store.events.append([event])

      const mutable = (value: unknown) => value as Record<string, any>
      mutable(contact).firstName = "Changed"
      mutable(contact.tags).push({ id: "tag_x", contactId: contact.id, tag: "pushed" })
      mutable(contact.metadata).nested.n = 2
      contact.createdAt.setTime(0)
      mutable(account).plan = "enterprise"
      mutable(event.details).nested.n = 2

      const answered = Option.getOrThrow(yield* store.contacts.findById(account.id, contact.id))
      mutable(answered.tags).push({ id: "tag_y", contactId: contact.id, tag: "pushed" })
      mutable(answered.metadata).nested.n = 3
      answered.subscribedAt.setTime(0)

      const again = Option.getOrThrow(yield* store.contacts.findById(account.id, contact.id))
      expect([again.firstName, again.tags.map((t) => t.tag), again.metadata]).toEqual([null, ["vip"], { nested: { n: 1 } }])
      expect([again.createdAt.getTime(), again.subscribedAt.getTime()]).not.toContain(0)
      expect(Option.getOrThrow(yield* store.accounts.findById(account.id)).plan).toBe("free")
      expect((yield* store.events.list(account.id))[0]!.details).toEqual({ nested: { n: 1 } })
    }).pipe(Effect.provide(MemoryStore.layer)))

  it.effect("every build of the layer starts empty", () =>
    Effect.gen(function* () {
      const account = makeAccount()
      yield* Effect.flatMap(Store, (store) => store.accounts.insert(account)).pipe(Effect.provide(MemoryStore.layer))
      const found = yield* Effect.flatMap(Store, (store) => store.accounts.findById(account.id))
        .pipe(Effect.provide(MemoryStore.layer))
      expect(Option.isNone(found)).toBe(true)
    }))
})
