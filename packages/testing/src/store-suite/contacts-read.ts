/** Store contract: finding, deleting and counting contacts, always within one account. */
import { describe, expect } from "@effect/vitest"
import { type EmailAddress, Store } from "@mailroom/core"
import { Effect, Option } from "effect"
import { freshContactId, makeContact } from "../fixtures.js"
import { comparable, insertAccount, insertContacts, sortedIds, type StoreTester } from "./support.js"

const email = (address: string) => address as EmailAddress

export const contactReadTests = (it: StoreTester) => {
  describe("contacts.find", () => {
    it.effect("findById answers none for an unknown id and for another account's id", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const owner = yield* insertAccount
        const stranger = yield* insertAccount
        const [contact] = yield* insertContacts(owner, [{ tags: ["vip"] }])
        expect(Option.isSome(yield* contacts.findById(owner, contact!.id))).toBe(true)
        expect(Option.isNone(yield* contacts.findById(stranger, contact!.id))).toBe(true)
        expect(Option.isNone(yield* contacts.findById(owner, freshContactId()))).toBe(true)
      }))

    it.effect("findByEmail answers the account's contact with tags, and none elsewhere", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const owner = yield* insertAccount
        const stranger = yield* insertAccount
        const [contact] = yield* insertContacts(owner, [{ email: "ada@example.com", tags: ["vip"], customFields: { a: "1" } }])
        expect((yield* contacts.findByEmail(owner, email("ada@example.com"))).pipe(Option.map(comparable)))
          .toEqual(Option.some(comparable(contact!)))
        expect(Option.isNone(yield* contacts.findByEmail(stranger, email("ada@example.com")))).toBe(true)
        expect(Option.isNone(yield* contacts.findByEmail(owner, email("bob@example.com")))).toBe(true)
      }))

    it.effect("findByEmails answers the account's contacts among the addresses, leaving out unknown ones", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const owner = yield* insertAccount
        const stranger = yield* insertAccount
        const mine = yield* insertContacts(owner, [
          { email: "a@example.com", tags: ["t"] }, { email: "b@example.com" }, { email: "c@example.com" },
        ])
        yield* insertContacts(stranger, [{ email: "d@example.com" }])
        const asked = ["a@example.com", "c@example.com", "d@example.com", "x@example.com", "a@example.com"].map(email)
        const found = yield* contacts.findByEmails(owner, asked)
        const byId = (x: { readonly id: string }, y: { readonly id: string }) => (x.id < y.id ? -1 : 1)
        expect(found.map(comparable).sort(byId)).toEqual([mine[0]!, mine[2]!].map(comparable).sort(byId))
        expect(yield* contacts.findByEmails(owner, [])).toEqual([])
      }))

    it.effect("findByIds answers the account's contacts among the ids, leaving out foreign and unknown ids", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const owner = yield* insertAccount
        const stranger = yield* insertAccount
        const mine = yield* insertContacts(owner, [{ customFields: { k: "v" } }, {}, {}])
        const [theirs] = yield* insertContacts(stranger, [{}])
        const found = yield* contacts.findByIds(owner, [mine[0]!.id, mine[1]!.id, theirs!.id, freshContactId()])
        expect(sortedIds(found)).toEqual(sortedIds([mine[0]!, mine[1]!]))
        expect(found.find((c) => c.id === mine[0]!.id)!.customFields.map((f) => [f.key, f.value])).toEqual([["k", "v"]])
        expect(yield* contacts.findByIds(owner, [])).toEqual([])
      }))
  })

  describe("contacts.delete", () => {
    it.effect("deletes the contact with its tags and custom fields, and answers false the second time", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const [gone, kept] = yield* insertContacts(accountId, [
          { email: "gone@example.com", tags: ["vip", "solo"], customFields: { a: "1" } },
          { email: "kept@example.com", tags: ["vip"] },
        ])
        expect(yield* contacts.delete(accountId, gone!.id)).toBe(true)
        expect(Option.isNone(yield* contacts.findById(accountId, gone!.id))).toBe(true)
        expect(Option.isNone(yield* contacts.findByEmail(accountId, gone!.email))).toBe(true)
        expect(yield* contacts.tagCounts(accountId)).toEqual([{ name: "vip", count: 1 }])
        expect(yield* contacts.delete(accountId, gone!.id)).toBe(false)
        expect(Option.isSome(yield* contacts.findById(accountId, kept!.id))).toBe(true)
      }))

    it.effect("answers false for another account's contact and leaves it in place", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const owner = yield* insertAccount
        const stranger = yield* insertAccount
        const [contact] = yield* insertContacts(owner, [{ tags: ["vip"] }])
        expect(yield* contacts.delete(stranger, contact!.id)).toBe(false)
        expect(Option.getOrThrow(yield* contacts.findById(owner, contact!.id)).tags.map((t) => t.tag)).toEqual(["vip"])
      }))

    it.effect("frees the address for a new contact", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const [contact] = yield* insertContacts(accountId, [{ email: "ada@example.com" }])
        yield* contacts.delete(accountId, contact!.id)
        const again = makeContact({ accountId, email: "ada@example.com" })
        yield* contacts.insert(again)
        expect(Option.getOrThrow(yield* contacts.findByEmail(accountId, again.email)).id).toBe(again.id)
      }))

    it.effect("deleteMany deletes the account's contacts among the ids and counts them, ignoring foreign ids", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const owner = yield* insertAccount
        const stranger = yield* insertAccount
        const mine = yield* insertContacts(owner, [{ tags: ["a"] }, { customFields: { k: "v" } }, {}])
        const [theirs] = yield* insertContacts(stranger, [{}])
        const ids: Array<string> = [mine[0]!.id, mine[1]!.id, theirs!.id, freshContactId()]
        expect(yield* contacts.deleteMany(owner, ids)).toBe(2)
        expect(sortedIds(yield* contacts.findByIds(owner, mine.map((c) => c.id)))).toEqual([mine[2]!.id])
        expect(Option.isSome(yield* contacts.findById(stranger, theirs!.id))).toBe(true)
        expect(yield* contacts.deleteMany(owner, ids)).toBe(0)
        expect(yield* contacts.deleteMany(owner, [])).toBe(0)
      }))
  })

  describe("contacts counts", () => {
    it.effect("countActive counts only the account's ACTIVE contacts", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const owner = yield* insertAccount
        const stranger = yield* insertAccount
        expect(yield* contacts.countActive(owner)).toBe(0)
        yield* insertContacts(owner, [
          { status: "ACTIVE" }, { status: "ACTIVE" }, { status: "PENDING" }, { status: "UNSUBSCRIBED" },
          { status: "BOUNCED" }, { status: "COMPLAINED" }, { status: "CLEANED" },
        ])
        yield* insertContacts(stranger, [{ status: "ACTIVE" }])
        expect(yield* contacts.countActive(owner)).toBe(2)
      }))

    it.effect("tagCounts answers every tag of the account with its number of contacts, ordered by name", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const owner = yield* insertAccount
        const stranger = yield* insertAccount
        expect(yield* contacts.tagCounts(owner)).toEqual([])
        const [first] = yield* insertContacts(owner, [
          { tags: ["vip", "alpha"] }, { tags: ["vip"] }, { tags: ["zulu", "vip", "beta"] }, {},
        ])
        yield* insertContacts(stranger, [{ tags: ["vip", "other"] }])
        expect(yield* contacts.tagCounts(owner)).toEqual([
          { name: "alpha", count: 1 }, { name: "beta", count: 1 }, { name: "vip", count: 3 }, { name: "zulu", count: 1 },
        ])
        yield* contacts.removeTag(owner, first!.id, "alpha")
        expect((yield* contacts.tagCounts(owner)).map((t) => t.name)).toEqual(["beta", "vip", "zulu"])
      }))
  })
}
