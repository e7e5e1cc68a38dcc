/** Store contract of suppressions, topics with their opt-outs, pending confirmations and settings. */
import { describe, expect } from "@effect/vitest"
import { Store } from "@mailroom/core"
import { Effect, Option } from "effect"
import { uniqueText } from "../fixtures.js"
import { makeList } from "../list-suite/support.js"
import { at, comparable, insertAccount, insertContacts } from "../store-suite/support.js"
import { address, type ConsentTester, makeSuppression, makeTopic } from "./support.js"

export const storeConsentTests = (it: ConsentTester) => {
  describe("Store.suppressions", () => {
    it.effect("put inserts, then replaces reason and details of the same address, keeping id and createdAt", () =>
      Effect.gen(function* () {
        const { suppressions } = yield* Store
        const accountId = yield* insertAccount
        const first = makeSuppression({ accountId, details: { note: "one" } }, "Manual")
        const created = yield* suppressions.put(first)
        expect(created.created).toBe(true)
        expect(created.suppression).toMatchObject({ id: first.id, reason: "Manual", details: { note: "one" } })
        const second = yield* suppressions.put({ ...first, id: uniqueText("sup") as never, reason: "Bounce", details: null, updatedAt: at(9) })
        expect(second.created).toBe(false)
        expect(second.suppression).toMatchObject({ id: first.id, reason: "Bounce", details: null })
        expect(second.suppression.createdAt.getTime()).toBe(first.createdAt.getTime())
        expect(second.suppression.updatedAt.getTime()).toBe(at(9).getTime())
        const found = Option.getOrThrow(yield* suppressions.findByEmail(accountId, first.email))
        expect(found.reason).toBe("Bounce")
      }))

    it.effect("contacts.findAddress answers the address's contact and suppression in the account, each or none", () =>
      Effect.gen(function* () {
        const { contacts, suppressions } = yield* Store
        const accountId = yield* insertAccount
        const other = yield* insertAccount
        const [contact] = yield* insertContacts(accountId, [{ tags: ["vip"], customFields: { plan: "gold" } }])
        const both = contact!.email
        const suppression = makeSuppression({ accountId, email: both, details: { note: "kept" } }, "Bounce")
        yield* suppressions.put(suppression)
        const found = yield* contacts.findAddress(accountId, both)
        expect(comparable(Option.getOrThrow(found.contact))).toEqual(comparable(contact!))
        expect(Option.getOrThrow(found.suppression)).toEqual(suppression)
        const onlySuppressed = makeSuppression({ accountId }, "Unsubscribe")
        yield* suppressions.put(onlySuppressed)
        expect(yield* contacts.findAddress(accountId, onlySuppressed.email))
          .toEqual({ contact: Option.none(), suppression: Option.some(onlySuppressed), listIds: [] })
        const [plain] = yield* insertContacts(accountId, [{}])
        const alone = yield* contacts.findAddress(accountId, plain!.email)
        expect(Option.map(alone.contact, comparable)).toEqual(Option.some(comparable(plain!)))
        expect(alone.suppression).toEqual(Option.none())
        expect(yield* contacts.findAddress(other, both)).toEqual({ contact: Option.none(), suppression: Option.none(), listIds: [] })
        expect(yield* contacts.findAddress(accountId, address()))
          .toEqual({ contact: Option.none(), suppression: Option.none(), listIds: [] })
      }))

    it.effect("contacts.findAddress answers, in the same read, which of the lists asked about are the account's", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* insertAccount
        const other = yield* insertAccount
        const [mine, archived, theirs] = [makeList({ accountId }), makeList({ accountId, isArchived: true }), makeList({ accountId: other })]
        for (const list of [mine, archived, theirs]) yield* store.lists.insert(list)
        const [contact] = yield* insertContacts(accountId, [{ tags: ["vip"] }])
        const suppression = makeSuppression({ accountId, email: contact!.email }, "Manual")
        yield* store.suppressions.put(suppression)
        const asked = [mine.id, theirs.id, "list_unknown", archived.id, mine.id]
        const found = yield* store.contacts.findAddress(accountId, contact!.email, asked)
        expect(comparable(Option.getOrThrow(found.contact))).toEqual(comparable(contact!))
        expect(Option.getOrThrow(found.suppression)).toEqual(suppression)
        expect([...found.listIds].sort()).toEqual([mine.id, archived.id].sort())
        const stranger = yield* store.contacts.findAddress(accountId, address(), asked)
        expect(stranger.contact).toEqual(Option.none())
        expect([...stranger.listIds].sort()).toEqual([mine.id, archived.id].sort())
        expect((yield* store.contacts.findAddress(accountId, address(), [theirs.id, "list_unknown"])).listIds).toEqual([])
      }))

    it.effect("insertIfAbsent keeps an existing suppression of any reason", () =>
      Effect.gen(function* () {
        const { suppressions } = yield* Store
        const accountId = yield* insertAccount
        const bounce = makeSuppression({ accountId }, "Bounce")
        expect(yield* suppressions.insertIfAbsent(bounce)).toBe(true)
        expect(yield* suppressions.insertIfAbsent({ ...bounce, id: uniqueText("sup") as never, reason: "Unsubscribe" })).toBe(false)
        expect(Option.getOrThrow(yield* suppressions.findByEmail(accountId, bounce.email)).reason).toBe("Bounce")
      }))

    it.effect("putMany adds new addresses, updates those with another reason and leaves the same reason alone", () =>
      Effect.gen(function* () {
        const { suppressions } = yield* Store
        const accountId = yield* insertAccount
        const [a, b, c, d] = [address(), address(), address(), address()]
        yield* suppressions.put(makeSuppression({ accountId, email: a }, "Manual"))
        yield* suppressions.put(makeSuppression({ accountId, email: b }, "Bounce"))
        const batch = [a, b, c, d, c].map((email) => makeSuppression({ accountId, email, details: { via: "bulk" } }, "Manual"))
        expect(yield* suppressions.putMany(batch)).toEqual({ added: 2, updated: 1 })
        expect(Option.getOrThrow(yield* suppressions.findByEmail(accountId, b))).toMatchObject({ reason: "Manual", details: { via: "bulk" } })
        expect(Option.getOrThrow(yield* suppressions.findByEmail(accountId, a)).details).toBeNull()
        expect(yield* suppressions.putMany([])).toEqual({ added: 0, updated: 0 })
      }))

    it.effect("delete and deleteMany remove only the account's suppressions of those addresses", () =>
      Effect.gen(function* () {
        const { suppressions } = yield* Store
        const accountId = yield* insertAccount
        const other = yield* insertAccount
        const [a, b, c] = [address(), address(), address()]
        for (const email of [a, b, c]) yield* suppressions.put(makeSuppression({ accountId, email }))
        yield* suppressions.put(makeSuppression({ accountId: other, email: a }))
        expect(yield* suppressions.delete(accountId, a)).toBe(true)
        expect(yield* suppressions.delete(accountId, a)).toBe(false)
        expect(yield* suppressions.deleteMany(accountId, [a, b, c, address()])).toBe(2)
        expect(Option.isSome(yield* suppressions.findByEmail(other, a))).toBe(true)
      }))

    it.effect("list pages newest first, filters by reason and by part of the address, and counts the total", () =>
      Effect.gen(function* () {
        const { suppressions } = yield* Store
        const accountId = yield* insertAccount
        const rows = [
          makeSuppression({ accountId, email: address("ann_1"), createdAt: at(1) }, "Bounce"),
          makeSuppression({ accountId, email: address("bob%2"), createdAt: at(2) }, "Manual"),
          makeSuppression({ accountId, email: address("cat_3"), createdAt: at(3) }, "Bounce"),
        ]
        for (const row of rows) yield* suppressions.put(row)
        yield* suppressions.put(makeSuppression({ accountId: yield* insertAccount, email: address("ann_1") }))
        const all = yield* suppressions.list(accountId, { page: 1, limit: 2 })
        expect(all.total).toBe(3)
        expect(all.suppressions.map((s) => s.email)).toEqual([rows[2]!.email, rows[1]!.email])
        expect((yield* suppressions.list(accountId, { page: 2, limit: 2 })).suppressions.map((s) => s.email)).toEqual([rows[0]!.email])
        expect((yield* suppressions.list(accountId, { page: 5, limit: 2 })).total).toBe(3)
        const bounces = yield* suppressions.list(accountId, { page: 1, limit: 10, reason: "Bounce" })
        expect(bounces.suppressions.map((s) => s.email)).toEqual([rows[2]!.email, rows[0]!.email])
        expect((yield* suppressions.list(accountId, { page: 1, limit: 10, search: "B%" })).suppressions.map((s) => s.email))
          .toEqual([rows[1]!.email])
        expect((yield* suppressions.list(accountId, { page: 1, limit: 10, search: "_" })).total).toBe(2)
      }))
  })

  describe("Store.topics", () => {
    it.effect("refuses a second topic of the same name in the account, not in another account", () =>
      Effect.gen(function* () {
        const { topics } = yield* Store
        const accountId = yield* insertAccount
        const topic = makeTopic({ accountId, name: "News" })
        yield* topics.insert(topic)
        const error = yield* Effect.flip(topics.insert(makeTopic({ accountId, name: "News" })))
        expect(error._tag).toBe("DuplicateTopic")
        yield* topics.insert(makeTopic({ accountId: yield* insertAccount, name: "News" }))
        const other = makeTopic({ accountId, name: "Other" })
        yield* topics.insert(other)
        const renamed = yield* Effect.flip(topics.update({ ...other, name: "News" }))
        expect(renamed._tag).toBe("DuplicateTopic")
        expect(Option.getOrThrow(yield* topics.findById(accountId, other.id)).name).toBe("Other")
      }))

    it.effect("update replaces the fields and answers false for a foreign id; findById and findByIds stay in the account", () =>
      Effect.gen(function* () {
        const { topics } = yield* Store
        const accountId = yield* insertAccount
        const other = yield* insertAccount
        const topic = makeTopic({ accountId, name: "Weekly" })
        const foreign = makeTopic({ accountId: other })
        yield* topics.insert(topic)
        yield* topics.insert(foreign)
        expect(yield* topics.update({ ...topic, publicLabel: "Weekly news", sortOrder: 7, isPublishedOnUnsub: true, updatedAt: at(5) })).toBe(true)
        expect(yield* topics.update({ ...foreign, accountId })).toBe(false)
        const read = Option.getOrThrow(yield* topics.findById(accountId, topic.id))
        expect(read).toMatchObject({ publicLabel: "Weekly news", sortOrder: 7, isPublishedOnUnsub: true, name: "Weekly" })
        expect(read.updatedAt.getTime()).toBe(at(5).getTime())
        expect(Option.isNone(yield* topics.findById(accountId, foreign.id))).toBe(true)
        expect((yield* topics.findByIds(accountId, [topic.id, foreign.id, "grp_unknown"])).map((t) => t.id)).toEqual([topic.id])
      }))

    it.effect("lists oldest first, or only published topics in display order, with opt-out counts", () =>
      Effect.gen(function* () {
        const { topics } = yield* Store
        const accountId = yield* insertAccount
        const a = makeTopic({ accountId, name: "b-second", sortOrder: 1, isPublishedOnUnsub: true, createdAt: at(1) })
        const b = makeTopic({ accountId, name: "a-first", sortOrder: 1, isPublishedOnUnsub: true, createdAt: at(2) })
        const c = makeTopic({ accountId, name: "Z-zero", sortOrder: 0, isPublishedOnUnsub: true, createdAt: at(3) })
        const hidden = makeTopic({ accountId, name: "hidden", sortOrder: 0, createdAt: at(4) })
        for (const topic of [a, b, c, hidden]) yield* topics.insert(topic)
        yield* topics.optOut(accountId, b.id, address(), at(5))
        yield* topics.optOut(accountId, b.id, address(), at(6))
        const everything = yield* topics.list(accountId, { page: 1, limit: 10, published: false })
        expect(everything.total).toBe(4)
        expect(everything.topics.map((t) => t.topic.id)).toEqual([a.id, b.id, c.id, hidden.id])
        expect(everything.topics.map((t) => t.optOuts)).toEqual([0, 2, 0, 0])
        const published = yield* topics.list(accountId, { page: 1, limit: 2, published: true })
        expect(published.total).toBe(3)
        expect(published.topics.map((t) => t.topic.id)).toEqual([c.id, b.id])
        expect((yield* topics.all(accountId)).map((t) => t.id)).toEqual([c.id, hidden.id, b.id, a.id])
      }))

    it.effect("opt-outs are idempotent, paged newest first, scoped to the account, and go with their topic", () =>
      Effect.gen(function* () {
        const { topics } = yield* Store
        const accountId = yield* insertAccount
        const other = yield* insertAccount
        const topic = makeTopic({ accountId })
        yield* topics.insert(topic)
        const [x, y] = [address(), address()]
        expect(yield* topics.optOut(accountId, topic.id, x, at(1))).toBe(true)
        expect(yield* topics.optOut(accountId, topic.id, x, at(2))).toBe(false)
        expect(yield* topics.optOut(accountId, topic.id, y, at(3))).toBe(true)
        expect(yield* topics.optOut(other, topic.id, address(), at(3))).toBe(false)
        const page = yield* topics.optOuts(accountId, topic.id, { page: 1, limit: 1 })
        expect(page.total).toBe(2)
        expect(page.optOuts.map((o) => [o.email, o.createdAt.getTime()])).toEqual([[y, at(3).getTime()]])
        expect(yield* topics.countOptOuts(accountId, topic.id)).toBe(2)
        expect(yield* topics.optedOut(accountId, x)).toEqual([topic.id])
        expect(yield* topics.optIn(other, topic.id, x)).toBe(false)
        expect(yield* topics.optIn(accountId, topic.id, x)).toBe(true)
        expect(yield* topics.optIn(accountId, topic.id, x)).toBe(false)
        expect(yield* topics.delete(other, topic.id)).toBe(false)
        expect(yield* topics.delete(accountId, topic.id)).toBe(true)
        expect(yield* topics.optedOut(accountId, y)).toEqual([])
        expect(yield* topics.countOptOuts(accountId, topic.id)).toBe(0)
      }))
  })

  describe("Store.confirmations and Store.settings", () => {
    it.effect("a pending confirmation is replaced per contact, read in its account only, and goes with its contact", () =>
      Effect.gen(function* () {
        const { confirmations, contacts } = yield* Store
        const accountId = yield* insertAccount
        const [contact] = yield* insertContacts(accountId, [{ status: "PENDING" }])
        const base = {
          accountId, contactId: contact!.id, nonce: "n1", listIds: ["lst_1"], topicIds: [], redirectUrl: null,
          source: "API" as const, formId: null, templateId: null, expiresAt: at(100), createdAt: at(1),
        }
        yield* confirmations.put(base)
        expect(Option.getOrThrow(yield* confirmations.find(accountId, contact!.id)).formId).toBeNull()
        yield* confirmations.put({
          ...base, nonce: "n2", redirectUrl: "https://example.com/thanks", source: "FORM", formId: "frm_1", templateId: "dsn_1",
          expiresAt: at(200),
        })
        const read = Option.getOrThrow(yield* confirmations.find(accountId, contact!.id))
        expect(read).toMatchObject({
          nonce: "n2", listIds: ["lst_1"], topicIds: [], redirectUrl: "https://example.com/thanks", source: "FORM", formId: "frm_1",
          templateId: "dsn_1",
        })
        expect(read.expiresAt.getTime()).toBe(at(200).getTime())
        expect(Option.isNone(yield* confirmations.find(yield* insertAccount, contact!.id))).toBe(true)
        yield* contacts.delete(accountId, contact!.id)
        expect(Option.isNone(yield* confirmations.find(accountId, contact!.id))).toBe(true)
        expect(yield* confirmations.delete(accountId, contact!.id)).toBe(false)
      }))

    it.effect("settings get and set a value by key", () =>
      Effect.gen(function* () {
        const { settings } = yield* Store
        const key = uniqueText("setting")
        expect(Option.isNone(yield* settings.get(key))).toBe(true)
        yield* settings.set(key, "one")
        yield* settings.set(key, "two")
        expect(yield* settings.get(key)).toEqual(Option.some("two"))
      }))
  })
}
