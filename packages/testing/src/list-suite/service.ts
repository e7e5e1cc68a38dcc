/** Scenarios of the Lists service on every backend: lists, archive, members added and removed with their events, the
 *  refusals of the spec's tables (each leaving everything unchanged), and dynamic lists. */
import { describe, expect } from "@effect/vitest"
import {
  type Account, type AddMembersInput, Contacts, type CreateContactInput, Lists, type MailroomError, type MemberQuery,
  Store, Suppressions, Topics,
} from "@mailroom/core"
import { Effect, Option, TestClock } from "effect"
import { email, emailsOf, freshAccount, type ListTester, rules, sorted } from "./support.js"

const everyone: MemberQuery = { page: 1, limit: 100, filter: "all" }
const listQuery = { page: 1, limit: 100, type: "ALL", isArchived: false } as const

const contact = (account: Account, address: string, extra: Omit<CreateContactInput, "email"> = {}) =>
  Effect.flatMap(Contacts, (contacts) => contacts.create(account, { email: email(address), ...extra }))

const addInput = (input: { contactIds?: Array<string>; emails?: Array<string>; createMissing?: boolean }): AddMembersInput => ({
  ...(input.contactIds !== undefined ? { contactIds: input.contactIds } : {}),
  ...(input.emails !== undefined ? { emails: input.emails.map(email) } : {}),
  ...(input.createMissing !== undefined ? { createMissing: input.createMissing } : {}),
})

/** What a refused call must leave unchanged: the account's lists, every list's members, contacts and events. */
const snapshot = (account: Account) =>
  Effect.gen(function* () {
    const store = yield* Store
    const lists = yield* store.lists.list(account.id, { ...listQuery, type: "ALL" }, new Date(0))
    const archived = yield* store.lists.list(account.id, { ...listQuery, isArchived: true }, new Date(0))
    const members = []
    for (const { list } of [...lists.lists, ...archived.lists]) {
      const page = yield* store.members.page(account.id, list.id, everyone)
      members.push([list.id, list.name, list.isArchived, page.members.map((m) => [m.contactId, m.removedAt?.getTime() ?? null])])
    }
    const contacts = yield* store.contacts.list(account.id, { page: 1, limit: 1000, sortBy: "email", sortOrder: "asc" })
    const events = yield* store.events.list(account.id)
    return { members, contacts: contacts.contacts.map((c) => [c.email, c.status]), events: events.map((e) => e.id) }
  })

export const serviceTests = (it: ListTester) => {
  describe("Lists service", () => {
    it.effect("a new list is STATIC with tracking on, no members and no topic", () =>
      Effect.gen(function* () {
        const lists = yield* Lists
        const account = yield* freshAccount()
        yield* TestClock.setTime(Date.UTC(2024, 4, 1))
        const created = yield* lists.create(account, { name: "News", description: "Monthly" })
        expect(created.list).toMatchObject({
          name: "News", description: "Monthly", type: "STATIC", segmentRules: null, suppressionGroupId: null,
          trackingEnabled: true, isArchived: false, lastSyncedAt: null,
        })
        expect(created.list.createdAt.getTime()).toBe(Date.UTC(2024, 4, 1))
        expect(created).toMatchObject({ contactCount: 0, memberRows: 0, suppressionGroup: null })
        const promos = yield* (yield* Topics).create(account, { name: "Promos", publicLabel: "Offers" })
        const tagged = yield* lists.create(account, { name: "Promo", suppressionGroupId: promos.topic.id, trackingEnabled: false })
        expect(tagged.list).toMatchObject({ suppressionGroupId: promos.topic.id, trackingEnabled: false })
        expect((yield* lists.get(account, tagged.list.id)).suppressionGroup)
          .toEqual({ id: promos.topic.id, name: "Promos", publicLabel: "Offers" })
        const unknown = yield* Effect.flip(lists.create(account, { name: "Stray", suppressionGroupId: "grp_unknown" }))
        expect(unknown._tag).toBe("TopicNotFound")
        const page = yield* lists.list(account, listQuery)
        expect(page.total).toBe(2)
      }))

    it.effect("a topic of another account, or an unknown one, is TOPIC_NOT_FOUND on create and update, and nothing changes", () =>
      Effect.gen(function* () {
        const lists = yield* Lists
        const account = yield* freshAccount()
        const other = yield* freshAccount()
        const foreign = (yield* (yield* Topics).create(other, { name: "Theirs" })).topic.id
        const created = yield* Effect.flip(lists.create(account, { name: "Stray", suppressionGroupId: foreign }))
        expect(created).toMatchObject({ _tag: "TopicNotFound", code: "TOPIC_NOT_FOUND", topicId: foreign })
        expect((yield* lists.list(account, listQuery)).total).toBe(0)
        const mine = (yield* (yield* Topics).create(account, { name: "Mine" })).topic.id
        const list = yield* lists.create(account, { name: "News", suppressionGroupId: mine })
        for (const topicId of [foreign, "grp_unknown"]) {
          const refused = yield* Effect.flip(lists.update(account, list.list.id, { name: "Renamed", suppressionGroupId: topicId }))
          expect(refused).toMatchObject({ _tag: "TopicNotFound", code: "TOPIC_NOT_FOUND", topicId })
        }
        expect((yield* lists.get(account, list.list.id)).list).toMatchObject({ name: "News", suppressionGroupId: mine })
      }))

    it.effect("a list of another account, or an unknown id, is LIST_NOT_FOUND everywhere and nothing changes", () =>
      Effect.gen(function* () {
        const lists = yield* Lists
        const owner = yield* freshAccount()
        const intruder = yield* freshAccount()
        const mine = yield* contact(owner, "mine@example.com")
        const theirs = yield* contact(intruder, "theirs@example.com")
        const list = yield* lists.create(owner, { name: "Private" })
        yield* lists.addMembers(owner, list.list.id, addInput({ contactIds: [mine.id] }))
        const before = yield* snapshot(owner)
        for (const id of [list.list.id, "lst_unknown"]) {
          const attempts: ReadonlyArray<Effect.Effect<unknown, MailroomError>> = [
            lists.get(intruder, id),
            lists.update(intruder, id, { name: "Taken" }),
            lists.archive(intruder, id),
            lists.members(intruder, id, everyone),
            lists.addMembers(intruder, id, addInput({ contactIds: [theirs.id] })),
            lists.removeMembers(intruder, id, { contactIds: [mine.id] }),
          ]
          for (const attempt of attempts) {
            const error = yield* Effect.flip(attempt)
            expect(error._tag).toBe("ListNotFound")
            expect(error.code).toBe("LIST_NOT_FOUND")
          }
        }
        expect(yield* snapshot(owner)).toEqual(before)
        expect((yield* lists.list(intruder, listQuery)).total).toBe(0)
      }))

    it.effect("list shape rules: DYNAMIC needs rules, STATIC takes none, the type never changes", () =>
      Effect.gen(function* () {
        const lists = yield* Lists
        const account = yield* freshAccount()
        const segmentRules = rules({ all: [{ field: "status", operator: "in", value: ["ACTIVE"] }] })
        const before = yield* snapshot(account)
        for (const attempt of [
          lists.create(account, { name: "No rules", type: "DYNAMIC" }),
          lists.create(account, { name: "Rules on static", segmentRules }),
        ]) {
          const error = yield* Effect.flip(attempt)
          expect(error._tag).toBe("ValidationFailed")
          expect(error._tag === "ValidationFailed" && error.field).toBe("segmentRules")
        }
        expect(yield* snapshot(account)).toEqual(before)
        const dynamic = yield* lists.create(account, { name: "Actives", type: "DYNAMIC", segmentRules })
        const plain = yield* lists.create(account, { name: "Plain" })
        const middle = yield* snapshot(account)
        expect(yield* Effect.flip(lists.update(account, dynamic.list.id, { segmentRules: null }))).toMatchObject({ code: "VALIDATION_ERROR" })
        expect(yield* Effect.flip(lists.update(account, plain.list.id, { segmentRules }))).toMatchObject({ code: "VALIDATION_ERROR" })
        expect(yield* snapshot(account)).toEqual(middle)
        const other = rules({ any: [{ field: "tag", operator: "has", value: "vip" }] })
        expect((yield* lists.update(account, dynamic.list.id, { segmentRules: other })).list.segmentRules).toEqual(other)
      }))

    it.effect("PATCH changes only the fields sent; null untags the topic", () =>
      Effect.gen(function* () {
        const lists = yield* Lists
        const account = yield* freshAccount()
        const topic = yield* (yield* Topics).create(account, { name: "News topic" })
        const created = yield* lists.create(account, { name: "News", description: "d", suppressionGroupId: topic.topic.id })
        yield* TestClock.adjust("1 minute")
        const updated = yield* lists.update(account, created.list.id, { suppressionGroupId: null, trackingEnabled: false })
        expect(updated.list).toMatchObject({ name: "News", description: "d", suppressionGroupId: null, trackingEnabled: false })
        expect(updated.list.updatedAt.getTime()).toBeGreaterThan(created.list.updatedAt.getTime())
        const renamed = yield* lists.update(account, created.list.id, { name: "Renamed", description: null })
        expect(renamed.list).toMatchObject({ name: "Renamed", description: null, trackingEnabled: false })
        expect((yield* lists.get(account, created.list.id)).list.name).toBe("Renamed")
      }))

    it.effect("concurrent PATCHes and archives of one list all take effect: no write is lost", () =>
      Effect.gen(function* () {
        const lists = yield* Lists
        const account = yield* freshAccount()
        // Several rounds, each on a list of its own: the calls of one round may happen to run one by one.
        for (let round = 0; round < 5; round++) {
          const created = yield* lists.create(account, { name: `List ${round}` })
          const id = created.list.id
          const calls = [
            lists.update(account, id, { name: `Renamed ${round}` }), lists.update(account, id, { description: "About" }),
            lists.update(account, id, { trackingEnabled: false }), lists.archive(account, id),
          ]
          yield* Effect.all([...calls, ...calls, ...calls, ...calls], { concurrency: "unbounded", discard: true })
          expect((yield* lists.get(account, id)).list, `round ${round}`).toMatchObject({
            name: `Renamed ${round}`, description: "About", trackingEnabled: false, isArchived: true,
          })
        }
      }))

    it.effect("DELETE archives: the list leaves the default listing, keeps its memberships, and can come back", () =>
      Effect.gen(function* () {
        const lists = yield* Lists
        const account = yield* freshAccount()
        const ada = yield* contact(account, "ada@example.com")
        const list = yield* lists.create(account, { name: "Old" })
        yield* lists.addMembers(account, list.list.id, addInput({ contactIds: [ada.id] }))
        yield* lists.archive(account, list.list.id)
        yield* lists.archive(account, list.list.id)
        expect((yield* lists.list(account, listQuery)).total).toBe(0)
        const archived = yield* lists.list(account, { ...listQuery, isArchived: true })
        expect(archived.lists.map(({ list: l, contactCount }) => [l.id, l.isArchived, contactCount])).toEqual([[list.list.id, true, 1]])
        expect(emailsOf((yield* lists.members(account, list.list.id, everyone)).members)).toEqual(["ada@example.com"])
        const restored = yield* lists.update(account, list.list.id, { isArchived: false })
        expect(restored.list.isArchived).toBe(false)
        expect((yield* lists.list(account, listQuery)).total).toBe(1)
      }))

    it.effect("adding members: ids and addresses, already-members, foreign ids and unknown addresses, and one event each", () =>
      Effect.gen(function* () {
        const lists = yield* Lists
        const store = yield* Store
        const account = yield* freshAccount()
        const other = yield* freshAccount()
        const ada = yield* contact(account, "ada@example.com")
        const bob = yield* contact(account, "bob@example.com", { status: "UNSUBSCRIBED" })
        const foreign = yield* contact(other, "foreign@example.com")
        const list = (yield* lists.create(account, { name: "News" })).list
        const first = yield* lists.addMembers(account, list.id, addInput({
          contactIds: [ada.id, foreign.id, "ct_missing", ada.id], emails: ["BOB@example.com", "nobody@example.com"],
        }))
        expect(first).toEqual({
          added: 2, alreadyMembers: 0, notFound: [foreign.id, "ct_missing", "nobody@example.com"], blocked: [], created: 0,
        })
        const again = yield* lists.addMembers(account, list.id, addInput({ contactIds: [bob.id], emails: ["ada@example.com"] }))
        expect(again).toMatchObject({ added: 0, alreadyMembers: 2, notFound: [] })
        const events = yield* store.events.list(account.id, { type: "list.member_added" })
        expect(sorted(events.map((event) => JSON.stringify(event.details)))).toEqual(sorted([
          JSON.stringify({ listId: list.id, contactId: ada.id, email: "ada@example.com", source: "API" }),
          JSON.stringify({ listId: list.id, contactId: bob.id, email: "bob@example.com", source: "API" }),
        ]))
        expect(sorted(events.map((event) => event.recipient ?? ""))).toEqual(["ada@example.com", "bob@example.com"])
        expect(yield* store.events.list(other.id)).toEqual([])
        const read = yield* lists.get(account, list.id)
        expect(read).toMatchObject({ contactCount: 2, memberRows: 2 })
      }))

    it.effect("createMissing makes unknown addresses ACTIVE contacts with source API and refuses unsubscribed or suppressed ones", () =>
      Effect.gen(function* () {
        const lists = yield* Lists
        const contacts = yield* Contacts
        const account = yield* freshAccount()
        for (const status of ["UNSUBSCRIBED", "BOUNCED", "COMPLAINED", "CLEANED", "PENDING"] as const) {
          yield* contact(account, `${status.toLowerCase()}@example.com`, { status })
        }
        const list = (yield* lists.create(account, { name: "News" })).list
        const result = yield* lists.addMembers(account, list.id, addInput({
          emails: [
            "new@example.com", "unsubscribed@example.com", "bounced@example.com", "complained@example.com",
            "cleaned@example.com", "pending@example.com",
          ],
          createMissing: true,
        }))
        expect(result).toEqual({
          added: 2,
          alreadyMembers: 0,
          notFound: [],
          blocked: [
            { email: "unsubscribed@example.com", reason: "RECIPIENT_UNSUBSCRIBED" },
            { email: "bounced@example.com", reason: "RECIPIENT_SUPPRESSED" },
            { email: "complained@example.com", reason: "RECIPIENT_SUPPRESSED" },
            { email: "cleaned@example.com", reason: "RECIPIENT_SUPPRESSED" },
          ],
          created: 1,
        })
        const created = (yield* contacts.list(account, { page: 1, limit: 10, sortBy: "email", sortOrder: "asc", search: "new@" })).contacts
        expect(created.map((c) => [c.email, c.status, c.source, c.consentSource])).toEqual([["new@example.com", "ACTIVE", "API", null]])
        expect(sorted(emailsOf((yield* lists.members(account, list.id, everyone)).members)))
          .toEqual(["new@example.com", "pending@example.com"])
        // Without createMissing, existing contacts are added as they are; send-time suppression skips them later.
        const plain = yield* lists.addMembers(account, list.id, addInput({ emails: ["unsubscribed@example.com"] }))
        expect(plain).toMatchObject({ added: 1, blocked: [] })
      }))

    it.effect("createMissing creates no contact for a suppressed address and blocks it with the Subscriptions code", () =>
      Effect.gen(function* () {
        const lists = yield* Lists
        const suppressions = yield* Suppressions
        const store = yield* Store
        const account = yield* freshAccount("free")
        for (const reason of ["Bounce", "Complaint", "Unsubscribe", "Manual"] as const) {
          yield* suppressions.add(account, { email: email(`${reason.toLowerCase()}@example.com`), reason })
        }
        yield* (yield* Contacts).bulkCreate(account, {
          contacts: Array.from({ length: 99 }, (_, i) => ({ email: email(`c${i}@example.com`) })),
          skipDuplicates: true,
        })
        const list = (yield* lists.create(account, { name: "News" })).list
        const before = yield* store.events.list(account.id)
        const result = yield* lists.addMembers(account, list.id, addInput({
          emails: ["bounce@example.com", "complaint@example.com", "unsubscribe@example.com", "manual@example.com", "new@example.com"],
          createMissing: true,
        }))
        // The four suppressed addresses take none of the Free plan's last place: the new address gets it.
        expect(result).toEqual({
          added: 1,
          alreadyMembers: 0,
          notFound: [],
          blocked: [
            { email: "bounce@example.com", reason: "RECIPIENT_SUPPRESSED" },
            { email: "complaint@example.com", reason: "RECIPIENT_SUPPRESSED" },
            { email: "unsubscribe@example.com", reason: "RECIPIENT_UNSUBSCRIBED" },
            { email: "manual@example.com", reason: "RECIPIENT_UNSUBSCRIBED" },
          ],
          created: 1,
        })
        const found = yield* store.contacts.findByEmails(account.id, [
          email("bounce@example.com"), email("complaint@example.com"), email("unsubscribe@example.com"),
          email("manual@example.com"), email("new@example.com"),
        ])
        expect(found.map((c) => c.email)).toEqual(["new@example.com"])
        expect(emailsOf((yield* lists.members(account, list.id, everyone)).members)).toEqual(["new@example.com"])
        const events = (yield* store.events.list(account.id)).slice(before.length)
        expect(events.map((event) => [event.type, event.recipient])).toEqual([["list.member_added", "new@example.com"]])
      }))

    it.effect("createMissing on a Free account stops at 100 active contacts and blocks the rest", () =>
      Effect.gen(function* () {
        const lists = yield* Lists
        const contacts = yield* Contacts
        const account = yield* freshAccount("free")
        yield* contacts.bulkCreate(account, {
          contacts: Array.from({ length: 98 }, (_, i) => ({ email: email(`c${i}@example.com`) })),
          skipDuplicates: true,
        })
        const list = (yield* lists.create(account, { name: "News" })).list
        const result = yield* lists.addMembers(account, list.id, addInput({
          emails: ["n1@example.com", "n2@example.com", "n3@example.com", "n4@example.com", "c0@example.com"],
          createMissing: true,
        }))
        expect(result).toMatchObject({ added: 3, created: 2 })
        expect(result.blocked).toEqual([
          { email: "n3@example.com", reason: "FREE_TIER_CONTACT_LIMIT" },
          { email: "n4@example.com", reason: "FREE_TIER_CONTACT_LIMIT" },
        ])
        expect(yield* (yield* Store).contacts.countActive(account.id)).toBe(100)
      }))

    it.effect("removal by the owner deletes the membership with a list.member_removed event; NOT_A_MEMBER changes nothing", () =>
      Effect.gen(function* () {
        const lists = yield* Lists
        const store = yield* Store
        const account = yield* freshAccount()
        const ada = yield* contact(account, "ada@example.com")
        const bob = yield* contact(account, "bob@example.com")
        const cy = yield* contact(account, "cy@example.com")
        const list = (yield* lists.create(account, { name: "News" })).list
        yield* lists.addMembers(account, list.id, addInput({ contactIds: [ada.id, bob.id, cy.id] }))
        yield* store.members.markRemoved(account.id, list.id, [cy.id], new Date(5))
        const before = yield* snapshot(account)
        for (const input of [{ contactIds: ["ct_missing"] }, { emails: [email("cy@example.com")] }]) {
          const error = yield* Effect.flip(lists.removeMembers(account, list.id, input))
          expect(error._tag).toBe("NotAMember")
        }
        expect(yield* snapshot(account)).toEqual(before)
        const removed = yield* lists.removeMembers(account, list.id, { contactIds: [ada.id, "ct_missing"], emails: [email("bob@example.com")] })
        expect(removed).toEqual({ removed: 2 })
        expect(Option.isNone(yield* store.members.find(account.id, list.id, ada.id))).toBe(true)
        expect(Option.getOrThrow(yield* store.members.find(account.id, list.id, cy.id)).removedAt).not.toBeNull()
        const events = yield* store.events.list(account.id, { type: "list.member_removed" })
        expect(sorted(events.map((event) => `${String(event.details["email"])} ${String(event.details["source"])} ${String(event.details["listId"])}`)))
          .toEqual([`ada@example.com API ${list.id}`, `bob@example.com API ${list.id}`])
        expect((yield* lists.get(account, list.id))).toMatchObject({ contactCount: 0, memberRows: 1 })
      }))

    it.effect("a member who unsubscribed from the list shows REMOVED_FROM_LIST; adding again restores it with a new addedAt", () =>
      Effect.gen(function* () {
        const lists = yield* Lists
        const store = yield* Store
        const account = yield* freshAccount()
        const ada = yield* contact(account, "ada@example.com")
        const bob = yield* contact(account, "bob@example.com", { status: "BOUNCED" })
        const list = (yield* lists.create(account, { name: "News" })).list
        yield* lists.addMembers(account, list.id, addInput({ contactIds: [ada.id, bob.id] }))
        const addedAt = Option.getOrThrow(yield* store.members.find(account.id, list.id, ada.id)).addedAt
        yield* TestClock.adjust("1 hour")
        yield* store.members.markRemoved(account.id, list.id, [ada.id], new Date(yield* TestClock.currentTimeMillis))
        const page = yield* lists.members(account, list.id, everyone)
        expect(page.members.map((m) => [m.contact.email, m.suppressionStatuses])).toEqual(expect.arrayContaining([
          ["ada@example.com", ["REMOVED_FROM_LIST"]],
          ["bob@example.com", ["BOUNCED"]],
        ]))
        expect(page.counts).toEqual({ total: 2, active: 0, suppressed: 2 })
        // contactCount counts current members, suppressed or not: the bounced member still counts, the removed one not.
        expect((yield* lists.get(account, list.id))).toMatchObject({ contactCount: 1, memberRows: 2 })
        yield* TestClock.adjust("1 hour")
        expect(yield* lists.addMembers(account, list.id, addInput({ contactIds: [ada.id] }))).toMatchObject({ added: 1 })
        const restored = Option.getOrThrow(yield* store.members.find(account.id, list.id, ada.id))
        expect(restored.removedAt).toBeNull()
        expect(restored.addedAt.getTime()).toBeGreaterThan(addedAt.getTime())
        const active = yield* lists.members(account, list.id, { ...everyone, filter: "active" })
        expect(active.members.map((m) => [m.contact.email, m.suppressionStatuses])).toEqual([["ada@example.com", []]])
        expect(active.total).toBe(1)
        expect((yield* store.events.list(account.id, { type: "list.member_added" })).length).toBe(3)
      }))

    it.effect("member changes and their events roll back together", () =>
      Effect.gen(function* () {
        const lists = yield* Lists
        const store = yield* Store
        const account = yield* freshAccount()
        const ada = yield* contact(account, "ada@example.com")
        const list = (yield* lists.create(account, { name: "News" })).list
        const before = yield* snapshot(account)
        const failed = yield* Effect.exit(store.transaction(
          lists.addMembers(account, list.id, addInput({ contactIds: [ada.id], emails: ["new@example.com"], createMissing: true }))
            .pipe(Effect.zipRight(Effect.fail("later step failed" as const))),
        ))
        expect(failed._tag).toBe("Failure")
        expect(yield* snapshot(account)).toEqual(before)
        expect(yield* store.events.list(account.id)).toEqual([])
        yield* lists.addMembers(account, list.id, addInput({ contactIds: [ada.id] }))
        const removal = yield* Effect.exit(store.transaction(
          lists.removeMembers(account, list.id, { contactIds: [ada.id] }).pipe(Effect.zipRight(Effect.die("crash"))),
        ))
        expect(removal._tag).toBe("Failure")
        expect(emailsOf((yield* lists.members(account, list.id, everyone)).members)).toEqual(["ada@example.com"])
        expect((yield* store.events.list(account.id)).map((event) => event.type)).toEqual(["list.member_added"])
      }))

    it.effect("a DYNAMIC list: members follow its rules, reading them stamps lastSyncedAt, and hand edits are refused", () =>
      Effect.gen(function* () {
        const lists = yield* Lists
        const account = yield* freshAccount()
        const ada = yield* contact(account, "ada@example.com", { tags: ["vip"] })
        yield* contact(account, "bob@example.com")
        const created = yield* lists.create(account, {
          name: "VIPs", type: "DYNAMIC", segmentRules: rules({ all: [{ field: "tag", operator: "has", value: "vip" }] }),
        })
        expect(created).toMatchObject({ contactCount: 1, memberRows: 1 })
        const before = yield* snapshot(account)
        const attempts: ReadonlyArray<Effect.Effect<unknown, MailroomError>> = [
          lists.addMembers(account, created.list.id, addInput({ contactIds: [ada.id] })),
          lists.removeMembers(account, created.list.id, { contactIds: [ada.id] }),
        ]
        for (const attempt of attempts) {
          const error = yield* Effect.flip(attempt)
          expect(error._tag).toBe("ValidationFailed")
          expect(error.message).toContain("DYNAMIC")
        }
        expect(yield* snapshot(account)).toEqual(before)
        yield* TestClock.setTime(Date.UTC(2024, 5, 1))
        const page = yield* lists.members(account, created.list.id, everyone)
        expect(emailsOf(page.members)).toEqual(["ada@example.com"])
        expect((yield* lists.get(account, created.list.id)).list.lastSyncedAt?.getTime()).toBe(Date.UTC(2024, 5, 1))
        yield* contact(account, "cy@example.com", { tags: ["vip"] })
        expect(sorted(emailsOf((yield* lists.members(account, created.list.id, everyone)).members)))
          .toEqual(["ada@example.com", "cy@example.com"])
        const listed = yield* lists.list(account, { ...listQuery, type: "DYNAMIC" })
        expect(listed.lists.map(({ contactCount }) => contactCount)).toEqual([2])
      }))
  })
}
