/** Store contract of `Store.members`: adding and restoring (addCurrent, which the CSV import calls too), owner removal,
 *  list unsubscribes (markRemoved), and the paged member read with its filters and counts. */
import { describe, expect } from "@effect/vitest"
import { type ContactId, type MemberId, type MemberQuery, memberSuppressionStatuses, type NewListMembership, Store } from "@mailroom/core"
import { Effect, Option } from "effect"
import { makeContact, makeMembers, uniqueText } from "../fixtures.js"
import { at, insertAccount, insertContacts } from "../store-suite/support.js"
import { emailsOf, type ListTester, makeList, plainMember, sorted } from "./support.js"

const everyone: MemberQuery = { page: 1, limit: 100, filter: "all" }

/** An account with one STATIC list. */
const accountWithList = Effect.gen(function* () {
  const store = yield* Store
  const accountId = yield* insertAccount
  const list = makeList({ accountId })
  yield* store.lists.insert(list)
  return { accountId, list }
})

/** accountWithList, and a second list of the account. */
const accountWithTwoLists = Effect.gen(function* () {
  const { accountId, list } = yield* accountWithList
  const second = makeList({ accountId })
  yield* (yield* Store).lists.insert(second)
  return { accountId, list, second }
})

/** One new membership per list named, duplicates kept (the store must count a list named twice once). */
const joining = (listIds: ReadonlyArray<string>): ReadonlyArray<NewListMembership> =>
  listIds.map((listId) => ({ listId, id: uniqueText("mem") as MemberId }))

const idsOf = (contacts: ReadonlyArray<{ readonly id: ContactId }>) => contacts.map((contact) => contact.id)

export const storeMemberTests = (it: ListTester) => {
  describe("Store.members", () => {
    it.effect("addCurrent makes contacts current members with the ids given, and answers only those newly added", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const { accountId, list } = yield* accountWithList
        const [ada, bob] = yield* insertContacts(accountId, [{}, {}])
        const first = makeMembers([ada!.id, ada!.id])
        expect(sorted(yield* store.members.addCurrent(accountId, list.id, first, at(1)))).toEqual([ada!.id])
        expect(sorted(yield* store.members.addCurrent(accountId, list.id, makeMembers([ada!.id, bob!.id]), at(2)))).toEqual([bob!.id])
        expect(yield* store.members.addCurrent(accountId, list.id, makeMembers([ada!.id, bob!.id]), at(3))).toEqual([])
        const membership = Option.getOrThrow(yield* store.members.find(accountId, list.id, ada!.id))
        expect(membership).toMatchObject({ accountId, listId: list.id, contactId: ada!.id, removedAt: null })
        expect(membership.addedAt.getTime()).toBe(at(1).getTime())
        // The id is the one the caller minted for the contact's first mention.
        expect(membership.id).toBe(first[0]!.id)
      }))

    it.effect("addCurrent ignores unknown and foreign contacts, and lists of another account", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const { accountId, list } = yield* accountWithList
        const other = yield* insertAccount
        const [foreigner] = yield* insertContacts(other, [{}])
        const [mine] = yield* insertContacts(accountId, [{}])
        const added = yield* store.members.addCurrent(accountId, list.id, makeMembers([foreigner!.id, "ct_unknown" as ContactId, mine!.id]), at(1))
        expect(added).toEqual([mine!.id])
        expect(yield* store.members.addCurrent(other, list.id, makeMembers([foreigner!.id]), at(1))).toEqual([])
        expect(Option.isNone(yield* store.members.find(other, list.id, foreigner!.id))).toBe(true)
        expect((yield* store.members.page(accountId, list.id, everyone)).counts.total).toBe(1)
      }))

    it.effect("addToLists joins one contact to several lists in one call: new rows with the ids given, removed ones restored", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const { accountId, list } = yield* accountWithList
        const [second, third] = [makeList({ accountId }), makeList({ accountId })]
        yield* store.lists.insert(second)
        yield* store.lists.insert(third)
        const [ada] = yield* insertContacts(accountId, [{}])
        const first = joining([list.id, list.id, second.id])
        expect(sorted(yield* store.members.addToLists(accountId, ada!.id, first, at(1)))).toEqual(sorted([list.id, second.id]))
        const membership = Option.getOrThrow(yield* store.members.find(accountId, list.id, ada!.id))
        expect(membership).toMatchObject({ id: first[0]!.id, accountId, listId: list.id, contactId: ada!.id, removedAt: null })
        expect(membership.addedAt.getTime()).toBe(at(1).getTime())
        yield* store.members.markRemoved(accountId, second.id, [ada!.id], at(2))
        const again = joining([list.id, second.id, third.id])
        expect(sorted(yield* store.members.addToLists(accountId, ada!.id, again, at(3)))).toEqual(sorted([second.id, third.id]))
        const restored = Option.getOrThrow(yield* store.members.find(accountId, second.id, ada!.id))
        expect(restored).toMatchObject({ id: first[2]!.id, removedAt: null })
        expect(restored.addedAt.getTime()).toBe(at(3).getTime())
        expect(Option.getOrThrow(yield* store.members.find(accountId, list.id, ada!.id)).addedAt.getTime()).toBe(at(1).getTime())
        expect(yield* store.members.addToLists(accountId, ada!.id, [], at(4))).toEqual([])
      }))

    it.effect("addToLists ignores lists of another account, unknown lists and a foreign contact", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const { accountId, list } = yield* accountWithList
        const other = yield* insertAccount
        const theirs = makeList({ accountId: other })
        yield* store.lists.insert(theirs)
        const [mine] = yield* insertContacts(accountId, [{}])
        const [foreigner] = yield* insertContacts(other, [{}])
        const memberships = joining([theirs.id, "lst_unknown", list.id])
        expect(yield* store.members.addToLists(accountId, mine!.id, memberships, at(1))).toEqual([list.id])
        expect(Option.isNone(yield* store.members.find(other, theirs.id, mine!.id))).toBe(true)
        expect(yield* store.members.addToLists(accountId, foreigner!.id, joining([list.id]), at(1))).toEqual([])
        expect(yield* store.members.addToLists(other, mine!.id, joining([theirs.id]), at(1))).toEqual([])
        expect((yield* store.members.page(accountId, list.id, everyone)).counts.total).toBe(1)
        expect((yield* store.members.page(other, theirs.id, everyone)).counts.total).toBe(0)
      }))

    it.effect("addNewContactToLists joins a contact in no list yet to the account's lists named, once each, and ignores the rest", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const { accountId, list, second } = yield* accountWithTwoLists
        const other = yield* insertAccount
        const theirs = makeList({ accountId: other })
        yield* store.lists.insert(theirs)
        const joined = yield* store.transaction(Effect.gen(function* () {
          const [ada] = yield* insertContacts(accountId, [{}])
          const memberships = joining([list.id, theirs.id, "lst_unknown", second.id, list.id])
          return { ada: ada!, memberships, lists: yield* store.members.addNewContactToLists(accountId, ada!.id, memberships, at(1)) }
        }))
        expect(sorted(joined.lists)).toEqual(sorted([list.id, second.id]))
        const membership = Option.getOrThrow(yield* store.members.find(accountId, list.id, joined.ada.id))
        expect(membership).toMatchObject({ id: joined.memberships[0]!.id, accountId, listId: list.id, contactId: joined.ada.id, removedAt: null })
        expect(membership.addedAt.getTime()).toBe(at(1).getTime())
        expect(Option.getOrThrow(yield* store.members.find(accountId, second.id, joined.ada.id)).id).toBe(joined.memberships[3]!.id)
        expect(Option.isNone(yield* store.members.find(other, theirs.id, joined.ada.id))).toBe(true)
        expect((yield* store.members.page(other, theirs.id, everyone)).counts.total).toBe(0)
        expect(yield* store.members.addNewContactToLists(accountId, joined.ada.id, [], at(2))).toEqual([])
      }))

    it.effect("an unsubscribe from the list keeps the row as history; adding again restores it with a new addedAt", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const { accountId, list } = yield* accountWithList
        const [ada, bob] = yield* insertContacts(accountId, [{}, {}])
        yield* store.members.addCurrent(accountId, list.id, makeMembers(idsOf([ada!, bob!])), at(1))
        const before = Option.getOrThrow(yield* store.members.find(accountId, list.id, ada!.id))
        expect(yield* store.members.markRemoved(accountId, list.id, [ada!.id], at(5))).toEqual([ada!.id])
        expect(yield* store.members.markRemoved(accountId, list.id, [ada!.id], at(6))).toEqual([])
        const removed = Option.getOrThrow(yield* store.members.find(accountId, list.id, ada!.id))
        expect(removed.removedAt?.getTime()).toBe(at(5).getTime())
        expect(yield* store.members.addCurrent(accountId, list.id, makeMembers(idsOf([ada!, bob!])), at(9))).toEqual([ada!.id])
        const restored = Option.getOrThrow(yield* store.members.find(accountId, list.id, ada!.id))
        expect(restored.id).toBe(before.id)
        expect(restored.removedAt).toBeNull()
        expect(restored.addedAt.getTime()).toBe(at(9).getTime())
      }))

    it.effect("remove deletes current memberships only and answers their contacts (rule 2)", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const { accountId, list } = yield* accountWithList
        const [ada, bob, cy] = yield* insertContacts(accountId, [{}, {}, {}])
        yield* store.members.addCurrent(accountId, list.id, makeMembers(idsOf([ada!, bob!])), at(1))
        yield* store.members.markRemoved(accountId, list.id, [bob!.id], at(2))
        expect(yield* store.members.remove(yield* insertAccount, list.id, [ada!.id])).toEqual([])
        expect(yield* store.members.remove(accountId, list.id, idsOf([ada!, bob!, cy!]))).toEqual([ada!.id])
        expect(Option.isNone(yield* store.members.find(accountId, list.id, ada!.id))).toBe(true)
        expect(Option.getOrThrow(yield* store.members.find(accountId, list.id, bob!.id)).removedAt).not.toBeNull()
      }))

    it.effect("a page answers members most recently added first, with the counts of the whole list", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const { accountId, list } = yield* accountWithList
        const contacts = yield* insertContacts(accountId, [
          { email: "active@example.com", firstName: "Ann", createdAt: at(-5), subscribedAt: at(-4) },
          { email: "pending@example.com", status: "PENDING" },
          { email: "unsub@example.com", status: "UNSUBSCRIBED" },
          { email: "bounced@example.com", status: "BOUNCED" },
          { email: "complained@example.com", status: "COMPLAINED" },
          { email: "cleaned@example.com", status: "CLEANED" },
          { email: "left@example.com" },
        ])
        for (const [i, contact] of contacts.entries()) {
          yield* store.members.addCurrent(accountId, list.id, makeMembers([contact.id]), at(10 + i))
        }
        yield* store.members.markRemoved(accountId, list.id, [contacts[6]!.id], at(30))
        const all = yield* store.members.page(accountId, list.id, everyone)
        expect(all.counts).toEqual({ total: 7, active: 2, suppressed: 5 })
        expect(emailsOf(all.members)).toEqual([
          "left@example.com", "cleaned@example.com", "complained@example.com", "bounced@example.com",
          "unsub@example.com", "pending@example.com", "active@example.com",
        ])
        const first = all.members[6]!
        expect(plainMember(first)).toEqual({
          id: Option.getOrThrow(yield* store.members.find(accountId, list.id, contacts[0]!.id)).id,
          contactId: contacts[0]!.id,
          contact: {
            id: contacts[0]!.id, email: "active@example.com", firstName: "Ann", lastName: null, status: "ACTIVE",
            subscribedAt: at(-4).getTime(), createdAt: at(-5).getTime(),
          },
          addedAt: at(10).getTime(),
          removedAt: null,
          suppression: null,
          optedOutOfTopic: false,
        })
        const active = yield* store.members.page(accountId, list.id, { ...everyone, filter: "active" })
        expect(emailsOf(active.members)).toEqual(["pending@example.com", "active@example.com"])
        expect(active.counts).toEqual(all.counts)
        const suppressed = yield* store.members.page(accountId, list.id, { ...everyone, filter: "suppressed" })
        expect(suppressed.members).toHaveLength(5)
        // The storage filter agrees with the statuses core computes for each member.
        for (const member of active.members) expect(memberSuppressionStatuses(member)).toEqual([])
        for (const member of suppressed.members) expect(memberSuppressionStatuses(member).length).toBeGreaterThan(0)
        expect(memberSuppressionStatuses(suppressed.members[0]!)).toEqual(["REMOVED_FROM_LIST"])
      }))

    it.effect("pages split the filtered members; a page past the end is empty but still counts", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const { accountId, list } = yield* accountWithList
        const contacts = yield* insertContacts(accountId, Array.from({ length: 5 }, (_, i) => ({
          email: `m${i}@example.com`, status: i % 2 === 0 ? "ACTIVE" as const : "BOUNCED" as const,
        })))
        // Added at the same instant: the order falls back to the membership id, descending.
        yield* store.members.addCurrent(accountId, list.id, makeMembers(idsOf(contacts)), at(1))
        const all = yield* store.members.page(accountId, list.id, everyone)
        const ids = all.members.map((member) => member.id)
        expect(ids).toEqual([...ids].sort().reverse())
        const pages = []
        for (const page of [1, 2, 3]) {
          const answer = yield* store.members.page(accountId, list.id, { page, limit: 2, filter: "all" })
          pages.push(answer.members.map((member) => member.id))
          expect(answer.counts).toEqual({ total: 5, active: 3, suppressed: 2 })
        }
        expect(pages).toEqual([ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)])
        const beyond = yield* store.members.page(accountId, list.id, { page: 3, limit: 2, filter: "active" })
        expect(beyond.members).toEqual([])
        expect(beyond.counts).toEqual({ total: 5, active: 3, suppressed: 2 })
        const empty = yield* store.members.page(accountId, makeList({ accountId }).id, everyone)
        expect(empty).toEqual({ members: [], counts: { total: 0, active: 0, suppressed: 0 } })
      }))

    it.effect("members belong to their list and account; a deleted contact leaves every list", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const { accountId, list, second } = yield* accountWithTwoLists
        const [ada, bob] = yield* insertContacts(accountId, [{}, {}])
        yield* store.members.addCurrent(accountId, list.id, makeMembers(idsOf([ada!, bob!])), at(1))
        yield* store.members.addCurrent(accountId, second.id, makeMembers([ada!.id]), at(1))
        expect((yield* store.members.page(yield* insertAccount, list.id, everyone)).counts.total).toBe(0)
        expect((yield* store.members.page(accountId, second.id, everyone)).counts.total).toBe(1)
        yield* store.contacts.delete(accountId, ada!.id)
        expect(emailsOf((yield* store.members.page(accountId, list.id, everyone)).members)).toEqual([bob!.email])
        expect((yield* store.members.page(accountId, second.id, everyone)).counts.total).toBe(0)
        expect(Option.isNone(yield* store.members.find(accountId, list.id, ada!.id))).toBe(true)
      }))

    it.effect("addCurrent is set-based: thousands of contacts in one call, added or restored together", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const { accountId, list } = yield* accountWithList
        const contacts = Array.from({ length: 2_500 }, () => makeContact({ accountId }))
        yield* store.contacts.insertMany(contacts)
        const ids = idsOf(contacts)
        expect((yield* store.members.addCurrent(accountId, list.id, makeMembers(ids), at(1))).length).toBe(2_500)
        expect((yield* store.members.markRemoved(accountId, list.id, ids.slice(0, 1_200), at(2))).length).toBe(1_200)
        expect(sorted(yield* store.members.addCurrent(accountId, list.id, makeMembers(ids), at(3)))).toEqual(sorted(ids.slice(0, 1_200)))
        const page = yield* store.members.page(accountId, list.id, { page: 1, limit: 10, filter: "all" })
        expect(page.counts).toEqual({ total: 2_500, active: 2_500, suppressed: 0 })
        expect((yield* store.members.remove(accountId, list.id, ids)).length).toBe(2_500)
      }))

    it.effect("membership changes roll back with the transaction", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const { accountId, list } = yield* accountWithList
        const [ada, bob] = yield* insertContacts(accountId, [{}, {}])
        yield* store.members.addCurrent(accountId, list.id, makeMembers([ada!.id]), at(1))
        const failed = yield* Effect.exit(store.transaction(Effect.gen(function* () {
          yield* store.members.addCurrent(accountId, list.id, makeMembers([bob!.id]), at(2))
          yield* store.members.markRemoved(accountId, list.id, [ada!.id], at(2))
          yield* store.lists.update({ ...list, name: "changed" })
          return yield* Effect.fail("abort" as const)
        })))
        expect(failed._tag).toBe("Failure")
        const page = yield* store.members.page(accountId, list.id, everyone)
        expect(page.members.map((member) => [member.contactId, member.removedAt])).toEqual([[ada!.id, null]])
        expect(Option.getOrThrow(yield* store.lists.findById(accountId, list.id)).name).toBe(list.name)
      }))
  })
}
