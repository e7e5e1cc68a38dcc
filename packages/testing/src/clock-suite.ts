/** Time and ids on every backend: under TestClock and sequential Ids, every timestamp Mailroom writes and the time part
 *  of every id it mints are the clock's time at the call that made them. Each backend package runs it against its
 *  own Store layer. */
import { expect, it } from "@effect/vitest"
import {
  Accounts, type Contact, Contacts, idTime, IdsSequential, Imports, Lists, servicesLayer, Store,
} from "@mailroom/core"
import { Effect, Layer, Option, TestClock } from "effect"
import { email } from "./list-suite/support.js"
import { testTemplateEngine } from "./template-engine.js"

const randomStart = () => Number(crypto.getRandomValues(new Uint32Array(1))[0]) * 1000

const t = (day: number) => Date.UTC(2031, 2, day, 9, 30, 15, 123)

/** The instant of each id's time part, beside the id; none unless the id came from the Ids service of the layer (the
 *  sequential one: a time part, then a counter of at least twelve digits). */
const idTimes = (ids: ReadonlyArray<string>) =>
  ids.map((id) => [id, /^[a-z]+_[0-9a-z]{9}\d{12,}$/.test(id) ? idTime(id)?.getTime() : undefined])
const expectIdsAt = (ids: ReadonlyArray<string>, time: number) =>
  expect(idTimes(ids)).toEqual(ids.map((id) => [id, time]))

const contactIds = (contact: Contact) =>
  [contact.id, ...contact.tags.map((tag) => tag.id), ...contact.customFields.map((field) => field.id)]

export const clockSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  // The counter starts at a random place: a Postgres test database keeps the rows of earlier runs.
  it.layer(Layer.provideMerge(servicesLayer, Layer.mergeAll(storeLayer, IdsSequential(randomStart()), testTemplateEngine)), { timeout: "60 seconds" })(
    `Time and ids under TestClock (${backend})`,
    (it) => {
      it.effect("every timestamp and id time part written is the TestClock's time", () =>
        Effect.gen(function* () {
          const store = yield* Store
          yield* TestClock.setTime(t(1))
          const created = yield* (yield* Accounts).create({ name: "clock", plan: "pro" })
          const account = created.account
          expect(account.createdAt.getTime()).toBe(t(1))
          expectIdsAt([account.id], t(1))
          const { apiKey } = yield* (yield* Accounts).authenticate(created.apiKey)
          expect(apiKey.createdAt.getTime()).toBe(t(1))
          expectIdsAt([apiKey.id], t(1))

          yield* TestClock.setTime(t(2))
          const contacts = yield* Contacts
          const ada = yield* contacts.create(account, {
            email: email("ada@example.com"), tags: ["vip"], customFields: { plan: "gold" }, status: "UNSUBSCRIBED",
          })
          const stored = Option.getOrThrow(yield* store.contacts.findById(account.id, ada.id))
          for (const date of [stored.createdAt, stored.updatedAt, stored.subscribedAt, stored.unsubscribedAt]) {
            expect(date?.getTime()).toBe(t(2))
          }
          expectIdsAt(contactIds(stored), t(2))

          yield* TestClock.setTime(t(3))
          const moved = yield* contacts.update(account, ada.id, { status: "ACTIVE", customFields: { plan: "silver" } })
          const reread = Option.getOrThrow(yield* store.contacts.findById(account.id, moved.id))
          expect([reread.updatedAt.getTime(), reread.subscribedAt.getTime(), reread.createdAt.getTime()])
            .toEqual([t(3), t(3), t(2)])
          expectIdsAt(reread.customFields.map((field) => field.id), t(3))
          yield* contacts.addTags(account, ada.id, ["beta"])
          const tagged = Option.getOrThrow(yield* store.contacts.findById(account.id, ada.id))
          expectIdsAt(tagged.tags.filter((tag) => tag.tag === "beta").map((tag) => tag.id), t(3))

          yield* TestClock.setTime(t(4))
          const bulk = yield* contacts.bulkCreate(account, {
            contacts: [{ email: email("bob@example.com") }, { email: email("cy@example.com") }], skipDuplicates: true,
          })
          expect(bulk.created).toBe(2)
          const bob = Option.getOrThrow(yield* store.contacts.findByEmail(account.id, email("bob@example.com")))
          expect([bob.createdAt.getTime(), bob.updatedAt.getTime()]).toEqual([t(4), t(4)])
          expectIdsAt([bob.id], t(4))

          yield* TestClock.setTime(t(5))
          const lists = yield* Lists
          const list = yield* lists.create(account, { name: "News" })
          expect([list.list.createdAt.getTime(), list.list.updatedAt.getTime()]).toEqual([t(5), t(5)])
          expectIdsAt([list.list.id], t(5))

          yield* TestClock.setTime(t(6))
          yield* lists.addMembers(account, list.list.id, {
            contactIds: [ada.id, bob.id], emails: [email("dee@example.com")], createMissing: true,
          })
          const dee = Option.getOrThrow(yield* store.contacts.findByEmail(account.id, email("dee@example.com")))
          expect([dee.createdAt.getTime(), dee.subscribedAt.getTime()]).toEqual([t(6), t(6)])
          expectIdsAt([dee.id], t(6))
          const events = yield* store.events.list(account.id)
          expect(events.map((event) => event.occurredAt.getTime())).toEqual([t(6), t(6), t(6)])
          expectIdsAt(events.map((event) => event.id), t(6))

          yield* TestClock.setTime(t(7))
          const imported = yield* (yield* Imports).importCsv(account, {
            file: { name: "people.csv", content: "email\ncy@example.com\neve@example.com\n" },
            mappings: [{ csvColumn: "email", field: "email" }],
            listId: list.list.id,
            tags: "imported",
          })
          expect(imported).toMatchObject({ imported: 1, addedToList: 2 })
          const eve = Option.getOrThrow(yield* store.contacts.findByEmail(account.id, email("eve@example.com")))
          expect([eve.createdAt, eve.updatedAt, eve.subscribedAt, eve.consentAt].map((date) => date?.getTime()))
            .toEqual([t(7), t(7), t(7), t(7)])
          expectIdsAt(contactIds(eve), t(7))

          yield* TestClock.setTime(t(8))
          const page = yield* lists.members(account, list.list.id, { page: 1, limit: 100, filter: "all" })
          const added = new Map(page.members.map((member) => [member.contact.email as string, member]))
          for (const [address, day] of [["ada@example.com", 6], ["bob@example.com", 6], ["dee@example.com", 6],
            ["cy@example.com", 7], ["eve@example.com", 7]] as const) {
            const member = added.get(address)!
            expect([address, member.addedAt.getTime()]).toEqual([address, t(day)])
            expectIdsAt([member.id], t(day))
          }
          const synced = yield* lists.get(account, list.list.id)
          expect(synced.list.lastSyncedAt).toBeNull()

          yield* TestClock.setTime(t(9))
          const dynamic = yield* lists.create(account, {
            name: "Everyone", type: "DYNAMIC", segmentRules: { all: [{ field: "email", operator: "isSet" }] },
          })
          yield* TestClock.setTime(t(10))
          yield* lists.members(account, dynamic.list.id, { page: 1, limit: 10, filter: "all" })
          const evaluated = yield* lists.get(account, dynamic.list.id)
          expect([evaluated.list.createdAt.getTime(), evaluated.list.lastSyncedAt?.getTime()]).toEqual([t(9), t(10)])
          yield* TestClock.setTime(t(11))
          const updated = yield* lists.update(account, list.list.id, { name: "Renamed" })
          expect([updated.list.createdAt.getTime(), updated.list.updatedAt.getTime()]).toEqual([t(5), t(11)])
        }))
    },
  )
