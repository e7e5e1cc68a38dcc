/** Store contract: writing contacts (insert, insertMany, update, custom fields and tags). */
import { describe, expect } from "@effect/vitest"
import { type EmailAddress, Store } from "@mailroom/core"
import { Effect, Option } from "effect"
import { makeContact, makeCustomField, makeTag } from "../fixtures.js"
import { at, comparable, insertAccount, sortedIds, type StoreTester, tagNames } from "./support.js"

const email = (address: string) => address as EmailAddress

export const contactWriteTests = (it: StoreTester) => {
  describe("contacts.insert", () => {
    it.effect("stores every field with tags and custom fields, as findById answers them", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const contact = makeContact({
          accountId, email: "ada@example.com", firstName: "Ada", lastName: "Lovelace", phone: "+14155550123",
          metadata: { plan: "gold", seats: 3, nested: { beta: true, list: [1, "two"] } }, source: "FORM",
          status: "PENDING", subscribedAt: at(1), unsubscribedAt: at(2), confirmedAt: at(3),
          consentSource: "form", consentAt: at(4), consentIp: "203.0.113.9", consentUserAgent: "Mozilla/5.0",
          consentText: "Yes, send me news", createdAt: at(5), updatedAt: at(6),
          tags: ["vip", "newsletter"], customFields: { city: "London", company: "Analytical Engines" },
        })
        yield* contacts.insert(contact)
        const found = yield* contacts.findById(accountId, contact.id)
        expect(found.pipe(Option.map(comparable))).toEqual(Option.some(comparable(contact)))
      }))

    it.effect("stores a contact whose optional fields are all null", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const contact = makeContact({ accountId })
        yield* contacts.insert(contact)
        expect((yield* contacts.findById(accountId, contact.id)).pipe(Option.map(comparable)))
          .toEqual(Option.some(comparable(contact)))
      }))

    it.effect("refuses a second contact with an address already in the account and writes nothing", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const first = makeContact({ accountId, email: "ada@example.com", firstName: "First" })
        const second = makeContact({ accountId, email: "ada@example.com", firstName: "Second", tags: ["x"] })
        yield* contacts.insert(first)
        const error = yield* Effect.flip(contacts.insert(second))
        expect(error._tag).toBe("DuplicateContact")
        expect(Option.isNone(yield* contacts.findById(accountId, second.id))).toBe(true)
        expect(Option.getOrThrow(yield* contacts.findByEmail(accountId, email("ada@example.com"))).firstName).toBe("First")
        expect(yield* contacts.tagCounts(accountId)).toEqual([])
      }))

    it.effect("allows the same address in two accounts", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const one = yield* insertAccount
        const two = yield* insertAccount
        yield* contacts.insert(makeContact({ accountId: one, email: "ada@example.com" }))
        yield* contacts.insert(makeContact({ accountId: two, email: "ada@example.com" }))
        expect(Option.isSome(yield* contacts.findByEmail(one, email("ada@example.com")))).toBe(true)
        expect(Option.isSome(yield* contacts.findByEmail(two, email("ada@example.com")))).toBe(true)
      }))
  })

  describe("contacts.insertMany", () => {
    it.effect("skips addresses the account holds and repeats within the batch, answering the inserted in input order", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const existing = makeContact({ accountId, email: "old@example.com", firstName: "Old" })
        yield* contacts.insert(existing)
        const zed = makeContact({ accountId, email: "zed@example.com", tags: ["b", "a"], customFields: { k: "v" } })
        const clash = makeContact({ accountId, email: "old@example.com", firstName: "Clash" })
        const amy = makeContact({ accountId, email: "amy@example.com", firstName: "Amy" })
        const amyAgain = makeContact({ accountId, email: "amy@example.com", firstName: "Amy again" })
        const kim = makeContact({ accountId, email: "kim@example.com", customFields: { x: "1", y: "2" } })

        const inserted = yield* contacts.insertMany([zed, clash, amy, amyAgain, kim])
        expect(inserted.map((c) => c.id)).toEqual([zed.id, amy.id, kim.id])
        expect(inserted.map(comparable)).toEqual([zed, amy, kim].map(comparable))

        const stored = yield* contacts.findByIds(accountId, [zed.id, clash.id, amy.id, amyAgain.id, kim.id, existing.id])
        expect(sortedIds(stored)).toEqual(sortedIds([zed, amy, kim, existing]))
        for (const contact of [zed, amy, kim]) {
          const found = yield* contacts.findById(accountId, contact.id)
          expect(found.pipe(Option.map(comparable))).toEqual(Option.some(comparable(contact)))
        }
        expect(Option.getOrThrow(yield* contacts.findByEmail(accountId, email("old@example.com"))).firstName).toBe("Old")
      }))

    it.effect("stores every field of contacts without tags or custom fields, whatever characters their text holds", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        // Characters that quote, escape or delimit elements of a Postgres array literal, the word NULL, and non-ASCII.
        const tricky = makeContact({
          accountId, email: "tricky@example.com", firstName: 'Qu"ote \\ back{slash,}', lastName: "NULL",
          phone: "+14155550123", metadata: { quote: 'say "hi" \\ {x}', list: [1, "two", null], nested: { ok: true } },
          source: "CSV_IMPORT", status: "PENDING", subscribedAt: at(1), unsubscribedAt: at(2), confirmedAt: at(3),
          consentSource: "import", consentAt: at(4), consentIp: "2001:db8::1", consentUserAgent: "Agent, \"1.0\"",
          consentText: "Émile sagt ja 😀 ß", createdAt: at(5), updatedAt: at(6),
        })
        const bare = makeContact({ accountId, email: "bare@example.com", lastName: "" })
        const inserted = yield* contacts.insertMany([tricky, bare])
        expect(inserted.map(comparable)).toEqual([tricky, bare].map(comparable))
        for (const contact of [tricky, bare]) {
          const found = yield* contacts.findById(accountId, contact.id)
          expect(found.pipe(Option.map(comparable))).toEqual(Option.some(comparable(contact)))
        }
      }))

    it.effect("answers an empty array for an empty batch", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        expect(yield* contacts.insertMany([])).toEqual([])
      }))

    it.effect("inserts an address that another account already holds", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const one = yield* insertAccount
        const two = yield* insertAccount
        yield* contacts.insert(makeContact({ accountId: one, email: "ada@example.com" }))
        const theirs = makeContact({ accountId: two, email: "ada@example.com" })
        expect((yield* contacts.insertMany([theirs])).map((c) => c.id)).toEqual([theirs.id])
      }))
  })

  describe("contacts.update", () => {
    it.effect("replaces the scalar fields and leaves tags, custom fields and createdAt alone", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const contact = makeContact({
          accountId, email: "ada@example.com", firstName: "Ada", createdAt: at(1), tags: ["vip"], customFields: { a: "1" },
        })
        yield* contacts.insert(contact)
        const changed = {
          ...contact, email: email("ada.l@example.com"), firstName: null, lastName: "Lovelace", phone: "+442071234567",
          metadata: { note: "moved" }, source: "SYNC" as const, status: "UNSUBSCRIBED" as const, unsubscribedAt: at(7),
          consentText: "withdrawn", createdAt: at(50), updatedAt: at(8),
          tags: [], customFields: [makeCustomField(contact.id, "b", "2")],
        }
        yield* contacts.update(changed)
        const stored = Option.getOrThrow(yield* contacts.findById(accountId, contact.id))
        expect(comparable(stored)).toEqual(comparable({
          ...changed, createdAt: contact.createdAt, tags: contact.tags, customFields: contact.customFields,
        }))
        expect(Option.isNone(yield* contacts.findByEmail(accountId, email("ada@example.com")))).toBe(true)
        expect(Option.getOrThrow(yield* contacts.findByEmail(accountId, changed.email)).id).toBe(contact.id)
      }))

    it.effect("keeping the contact's own address is no conflict", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const contact = makeContact({ accountId, email: "ada@example.com" })
        yield* contacts.insert(contact)
        yield* contacts.update({ ...contact, firstName: "Ada" })
        expect(Option.getOrThrow(yield* contacts.findById(accountId, contact.id)).firstName).toBe("Ada")
      }))

    it.effect("refuses an address that another contact of the account holds and changes nothing", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const ada = makeContact({ accountId, email: "ada@example.com" })
        const bob = makeContact({ accountId, email: "bob@example.com", firstName: "Bob" })
        yield* contacts.insert(ada)
        yield* contacts.insert(bob)
        const error = yield* Effect.flip(contacts.update({ ...bob, email: ada.email, firstName: "Robert" }))
        expect(error._tag).toBe("DuplicateContact")
        const stored = Option.getOrThrow(yield* contacts.findById(accountId, bob.id))
        expect([stored.email, stored.firstName]).toEqual(["bob@example.com", "Bob"])
        expect(Option.getOrThrow(yield* contacts.findByEmail(accountId, ada.email)).id).toBe(ada.id)
      }))

    it.effect("does not touch a contact of another account", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const owner = yield* insertAccount
        const stranger = yield* insertAccount
        const contact = makeContact({ accountId: owner, firstName: "Ada" })
        yield* contacts.insert(contact)
        yield* contacts.update({ ...contact, accountId: stranger, firstName: "Intruder" })
        expect(Option.getOrThrow(yield* contacts.findById(owner, contact.id)).firstName).toBe("Ada")
        expect(Option.isNone(yield* contacts.findById(stranger, contact.id))).toBe(true)
      }))

    it.effect("with expectedStatus, writes only while the stored status is that one, and answers whether it wrote", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const contact = makeContact({ accountId, email: "ada@example.com", status: "ACTIVE", firstName: "Ada" })
        yield* contacts.insert(contact)
        expect(yield* contacts.update({ ...contact, status: "COMPLAINED" }, { expectedStatus: "ACTIVE" })).toBe(true)
        // A writer that read ACTIVE before the move above: its write misses and changes nothing.
        expect(yield* contacts.update({ ...contact, status: "UNSUBSCRIBED", firstName: "Late" }, { expectedStatus: "ACTIVE" })).toBe(false)
        const stored = Option.getOrThrow(yield* contacts.findById(accountId, contact.id))
        expect([stored.status, stored.firstName]).toEqual(["COMPLAINED", "Ada"])
        expect(yield* contacts.update({ ...contact, status: "COMPLAINED", firstName: "Ada L" }, { expectedStatus: "COMPLAINED" })).toBe(true)
        expect(Option.getOrThrow(yield* contacts.findById(accountId, contact.id)).firstName).toBe("Ada L")
        expect(yield* contacts.update({ ...contact, accountId: yield* insertAccount }, { expectedStatus: "ACTIVE" })).toBe(false)
        expect(yield* contacts.update({ ...contact, firstName: "No check" })).toBe(true)
      }))

    it.effect("frees the old address for a new contact", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const contact = makeContact({ accountId, email: "ada@example.com" })
        yield* contacts.insert(contact)
        yield* contacts.update({ ...contact, email: email("ada.l@example.com") })
        const newcomer = makeContact({ accountId, email: "ada@example.com" })
        yield* contacts.insert(newcomer)
        expect(Option.getOrThrow(yield* contacts.findByEmail(accountId, email("ada@example.com"))).id).toBe(newcomer.id)
      }))
  })

  describe("contacts.replaceCustomFields", () => {
    it.effect("replaces the whole set, and an empty set clears it", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const contact = makeContact({ accountId, customFields: { a: "1", b: "2" } })
        yield* contacts.insert(contact)
        const fields = [makeCustomField(contact.id, "b", "20"), makeCustomField(contact.id, "c", "30")]
        yield* contacts.replaceCustomFields(accountId, contact.id, fields)
        expect(comparable(Option.getOrThrow(yield* contacts.findById(accountId, contact.id))).customFields)
          .toEqual(comparable({ ...contact, customFields: fields }).customFields)
        yield* contacts.replaceCustomFields(accountId, contact.id, [])
        expect(Option.getOrThrow(yield* contacts.findById(accountId, contact.id)).customFields).toEqual([])
      }))

    it.effect("does not touch another account's contact", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const owner = yield* insertAccount
        const stranger = yield* insertAccount
        const contact = makeContact({ accountId: owner, customFields: { a: "1" } })
        yield* contacts.insert(contact)
        yield* contacts.replaceCustomFields(stranger, contact.id, [makeCustomField(contact.id, "z", "9")])
        expect(comparable(Option.getOrThrow(yield* contacts.findById(owner, contact.id))).customFields)
          .toEqual(comparable(contact).customFields)
      }))
  })

  describe("contacts tags", () => {
    it.effect("addTags adds new names and keeps the tags already held, with their ids", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const contact = makeContact({ accountId, tags: ["vip", "beta"] })
        yield* contacts.insert(contact)
        const added = [makeTag(contact.id, "vip"), makeTag(contact.id, "gamma")]
        yield* contacts.addTags(accountId, contact.id, added)
        const stored = Option.getOrThrow(yield* contacts.findById(accountId, contact.id))
        expect(tagNames(stored)).toEqual(["beta", "gamma", "vip"])
        expect(stored.tags.find((t) => t.tag === "vip")?.id).toBe(contact.tags.find((t) => t.tag === "vip")?.id)
        expect(stored.tags.find((t) => t.tag === "gamma")?.id).toBe(added[1]!.id)
      }))

    it.effect("removeTag answers true when the contact had the tag and false when it did not", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const contact = makeContact({ accountId, tags: ["vip", "beta"] })
        yield* contacts.insert(contact)
        expect(yield* contacts.removeTag(accountId, contact.id, "vip")).toBe(true)
        expect(yield* contacts.removeTag(accountId, contact.id, "vip")).toBe(false)
        expect(yield* contacts.removeTag(accountId, contact.id, "never")).toBe(false)
        expect(tagNames(Option.getOrThrow(yield* contacts.findById(accountId, contact.id)))).toEqual(["beta"])
      }))

    it.effect("addTags and removeTag do not touch another account's contact", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const owner = yield* insertAccount
        const stranger = yield* insertAccount
        const contact = makeContact({ accountId: owner, tags: ["vip"] })
        yield* contacts.insert(contact)
        yield* contacts.addTags(stranger, contact.id, [makeTag(contact.id, "intruder")])
        expect(yield* contacts.removeTag(stranger, contact.id, "vip")).toBe(false)
        expect(tagNames(Option.getOrThrow(yield* contacts.findById(owner, contact.id)))).toEqual(["vip"])
        expect(yield* contacts.tagCounts(stranger)).toEqual([])
      }))
  })
}
