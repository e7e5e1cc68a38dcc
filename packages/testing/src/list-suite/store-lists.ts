/** Store contract of `Store.lists`: insert, read, update, the filtered and paged listing with contactCount, member
 *  counts and lastSyncedAt. */
import { describe, expect } from "@effect/vitest"
import { type ContactList, type ListQuery, Store } from "@mailroom/core"
import { Effect, Option } from "effect"
import { makeMembers } from "../fixtures.js"
import { at, insertAccount, insertContacts } from "../store-suite/support.js"
import { type ListTester, makeList, rules } from "./support.js"

const query = (overrides: Partial<ListQuery> = {}): ListQuery =>
  ({ page: 1, limit: 100, type: "ALL", isArchived: false, ...overrides })

const plainList = (list: ContactList) => ({
  ...list,
  createdAt: list.createdAt.getTime(),
  updatedAt: list.updatedAt.getTime(),
  lastSyncedAt: list.lastSyncedAt?.getTime() ?? null,
})

const now = at(1_000_000)

export const storeListTests = (it: ListTester) => {
  describe("Store.lists", () => {
    it.effect("stores every field of a list and answers it by id, but not to another account", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* insertAccount
        const other = yield* insertAccount
        const list = makeList({
          accountId, name: "Ünïcode & 'quotes'", description: "100% fun", type: "DYNAMIC", suppressionGroupId: "topic_1",
          trackingEnabled: false, segmentRules: rules({ any: [{ field: "tag", operator: "has", value: "vip" }] }),
          lastSyncedAt: at(5),
        })
        yield* store.lists.insert(list)
        expect(plainList(Option.getOrThrow(yield* store.lists.findById(accountId, list.id)))).toEqual(plainList(list))
        expect(Option.isNone(yield* store.lists.findById(other, list.id))).toBe(true)
        expect(Option.isNone(yield* store.lists.findById(accountId, "lst_unknown"))).toBe(true)
      }))

    it.effect("findByIds answers the account's lists among the ids, archived ones included, leaving out foreign and unknown ids", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* insertAccount
        const other = yield* insertAccount
        const open = makeList({ accountId })
        const archived = makeList({ accountId, isArchived: true })
        const foreign = makeList({ accountId: other })
        for (const list of [open, archived, foreign]) yield* store.lists.insert(list)
        const found = yield* store.lists.findByIds(accountId, [archived.id, foreign.id, "lst_unknown", open.id, open.id])
        expect(found.map((list) => list.id).sort()).toEqual([open.id, archived.id].sort())
        expect(plainList(found.find((list) => list.id === archived.id)!)).toEqual(plainList(archived))
        expect(yield* store.lists.findByIds(accountId, [])).toEqual([])
        expect(yield* store.lists.findByIds(other, [open.id])).toEqual([])
      }))

    it.effect("update replaces every field but id, account, type and createdAt, and ignores another account's list", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* insertAccount
        const other = yield* insertAccount
        const list = makeList({ accountId, description: "old" })
        yield* store.lists.insert(list)
        const changed: ContactList = {
          ...list, name: "Renamed", description: null, suppressionGroupId: "topic_2", trackingEnabled: false,
          isArchived: true, updatedAt: at(9), lastSyncedAt: at(8),
        }
        expect(yield* store.lists.update({ ...changed, type: "DYNAMIC", createdAt: at(99) })).toBe(true)
        expect(plainList(Option.getOrThrow(yield* store.lists.findById(accountId, list.id)))).toEqual(plainList(changed))
        expect(yield* store.lists.update({ ...changed, accountId: other, name: "Hijacked" })).toBe(false)
        expect(Option.getOrThrow(yield* store.lists.findById(accountId, list.id)).name).toBe("Renamed")
      }))

    it.effect("lists filter by type, archived state and search (case folded as core folds it, LIKE characters literal)", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* insertAccount
        const named = {
          news: makeList({ accountId, name: "Weekly NEWS", createdAt: at(1) }),
          sale: makeList({ accountId, name: "Sale", description: "50% off_today", createdAt: at(2) }),
          dyn: makeList({
            accountId, name: "VIPs", type: "DYNAMIC", createdAt: at(3),
            segmentRules: rules({ all: [{ field: "tag", operator: "has", value: "vip" }] }),
          }),
          old: makeList({ accountId, name: "Old news", isArchived: true, createdAt: at(4) }),
          accent: makeList({ accountId, name: "Émigrés", createdAt: at(5) }),
          german: makeList({ accountId, name: "Straße", description: null, createdAt: at(6) }),
          greek: makeList({ accountId, name: "Odyssey", description: "ΟΔΥΣΣΕΥΣ", createdAt: at(7) }),
          cyrillic: makeList({ accountId, name: "ПРИВЕТ", createdAt: at(8) }),
          turkish: makeList({ accountId, name: "İstanbul", createdAt: at(9) }),
        }
        for (const list of Object.values(named)) yield* store.lists.insert(list)
        yield* store.lists.insert(makeList({ accountId: yield* insertAccount, name: "news elsewhere" }))
        const names = (page: { readonly lists: ReadonlyArray<{ readonly list: ContactList }> }) =>
          page.lists.map(({ list }) => list.name)
        const cases: ReadonlyArray<readonly [Partial<ListQuery>, ReadonlyArray<string>]> = [
          [{}, ["İstanbul", "ПРИВЕТ", "Odyssey", "Straße", "Émigrés", "VIPs", "Sale", "Weekly NEWS"]],
          [{ type: "STATIC" }, ["İstanbul", "ПРИВЕТ", "Odyssey", "Straße", "Émigrés", "Sale", "Weekly NEWS"]],
          [{ type: "DYNAMIC" }, ["VIPs"]],
          [{ isArchived: true }, ["Old news"]],
          [{ search: "news" }, ["Weekly NEWS"]],
          [{ search: "NEWS", isArchived: true }, ["Old news"]],
          [{ search: "%" }, ["Sale"]],
          [{ search: "f_t" }, ["Sale"]],
          [{ search: "ff_" }, ["Sale"]],
          [{ search: "f%" }, []],
          // Core's foldText, the same on every backend whatever the database's locale (docs/lists-and-segments.md).
          [{ search: "émigrés" }, ["Émigrés"]],
          [{ search: "ÉMIGRÉS" }, ["Émigrés"]],
          [{ search: "E\u0301migre\u0301s" }, ["Émigrés"]],
          [{ search: "emigres" }, []],
          [{ search: "STRASSE" }, ["Straße"]],
          [{ search: "straße" }, ["Straße"]],
          [{ search: "ẞ" }, ["Odyssey", "Straße"]],
          [{ search: "οδυσσευς" }, ["Odyssey"]],
          [{ search: "Σ" }, ["Odyssey"]],
          [{ search: "привет" }, ["ПРИВЕТ"]],
          [{ search: "İSTANBUL" }, ["İstanbul"]],
          [{ search: "i\u0307stanbul" }, ["İstanbul"]],
          [{ search: "istanbul" }, []],
        ]
        for (const [overrides, expected] of cases) {
          const page = yield* store.lists.list(accountId, query(overrides), now)
          expect(names(page), JSON.stringify(overrides)).toEqual(expected)
          expect(page.total).toBe(expected.length)
        }
      }))

    it.effect("lists page newest first with ties broken by id, and count over all pages", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* insertAccount
        const lists = [
          makeList({ accountId, name: "a", createdAt: at(1) }),
          makeList({ accountId, name: "b", createdAt: at(2) }),
          makeList({ accountId, name: "c", createdAt: at(2) }),
          makeList({ accountId, name: "d", createdAt: at(3) }),
          makeList({ accountId, name: "e", createdAt: at(4) }),
        ]
        for (const list of lists) yield* store.lists.insert(list)
        const pages = []
        for (const page of [1, 2, 3, 4]) {
          const answer = yield* store.lists.list(accountId, query({ page, limit: 2 }), now)
          expect(answer.total).toBe(5)
          pages.push(answer.lists.map(({ list }) => list.name))
        }
        expect(pages).toEqual([["e", "d"], ["c", "b"], ["a"], []])
      }))

    it.effect("contactCount counts current members of a STATIC list and matching contacts of a DYNAMIC one", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* insertAccount
        const [ada, bob, cy] = yield* insertContacts(accountId, [
          { tags: ["vip"] }, { tags: ["vip"], status: "UNSUBSCRIBED" }, {},
        ])
        const foreign = yield* insertAccount
        yield* insertContacts(foreign, [{ tags: ["vip"] }])
        const plain = makeList({ accountId, name: "plain", createdAt: at(1) })
        const vips = makeList({
          accountId, name: "vips", type: "DYNAMIC", createdAt: at(2),
          segmentRules: rules({ all: [{ field: "tag", operator: "has", value: "vip" }] }),
        })
        const empty = makeList({ accountId, name: "empty", createdAt: at(3) })
        for (const list of [plain, vips, empty]) yield* store.lists.insert(list)
        yield* store.members.addCurrent(accountId, plain.id, makeMembers([ada!.id, bob!.id, cy!.id]), at(10))
        yield* store.members.markRemoved(accountId, plain.id, [cy!.id], at(11))
        const page = yield* store.lists.list(accountId, query(), now)
        expect(page.lists.map(({ list, contactCount }) => [list.name, contactCount])).toEqual([
          ["empty", 0], ["vips", 2], ["plain", 2],
        ])
        expect(yield* store.lists.countMembers(accountId, plain, now)).toEqual({ current: 2, all: 3 })
        expect(yield* store.lists.countMembers(accountId, vips, now)).toEqual({ current: 2, all: 2 })
        yield* store.contacts.delete(accountId, ada!.id)
        expect(yield* store.lists.countMembers(accountId, plain, now)).toEqual({ current: 1, all: 2 })
      }))

    it.effect("markSynced stamps lastSyncedAt of the account's list only", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* insertAccount
        const list = makeList({ accountId })
        yield* store.lists.insert(list)
        yield* store.lists.markSynced(yield* insertAccount, list.id, at(50))
        expect(Option.getOrThrow(yield* store.lists.findById(accountId, list.id)).lastSyncedAt).toBeNull()
        yield* store.lists.markSynced(accountId, list.id, at(60))
        expect(Option.getOrThrow(yield* store.lists.findById(accountId, list.id)).lastSyncedAt?.getTime())
          .toBe(at(60).getTime())
      }))
  })
}
