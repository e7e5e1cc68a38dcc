/** Scenarios of the Suppressions and Topics services on every backend: what the routes promise, below HTTP. */
import { describe, expect } from "@effect/vitest"
import { Accounts, type EmailAddress, Store, Suppressions, Topics } from "@mailroom/core"
import { Effect, Option } from "effect"
import { uniqueText } from "../fixtures.js"
import type { ConsentTester } from "./support.js"

const freshAccount = Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "consent suite", plan: "pro" })).pipe(
  Effect.map(({ account }) => account),
)
const someone = () => `${uniqueText("s")}@example.com` as EmailAddress

export const suppressionTopicServiceTests = (it: ConsentTester) => {
  describe("Suppressions service", () => {
    it.effect("adds and replaces a suppression, reads it, and answers RESOURCE_NOT_FOUND for an address without one", () =>
      Effect.gen(function* () {
        const suppressions = yield* Suppressions
        const account = yield* freshAccount
        const email = someone()
        const first = yield* suppressions.add(account, { email, reason: "Manual" })
        expect(first).toMatchObject({ created: true, suppression: { email, reason: "Manual", details: null } })
        expect(first.suppression.id).toMatch(/^sup_/)
        const second = yield* suppressions.add(account, { email, reason: "Bounce", details: { bounceCode: "550" } })
        expect(second).toMatchObject({ created: false, suppression: { id: first.suppression.id, reason: "Bounce" } })
        expect((yield* suppressions.get(account, email)).details).toEqual({ bounceCode: "550" })
        const missing = yield* Effect.flip(suppressions.get(account, someone()))
        expect(missing.code).toBe("RESOURCE_NOT_FOUND")
        const other = yield* freshAccount
        expect((yield* Effect.flip(suppressions.get(other, email))).code).toBe("RESOURCE_NOT_FOUND")
      }))

    it.effect("an Unsubscribe suppression added through the API changes no contact and appends no event", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const suppressions = yield* Suppressions
        const account = yield* freshAccount
        const email = someone()
        yield* suppressions.add(account, { email, reason: "Unsubscribe" })
        yield* suppressions.bulk(account, { action: "add", emails: [someone()], reason: "Unsubscribe" })
        expect(yield* store.events.list(account.id)).toEqual([])
      }))

    it.effect("bulk add counts added and updated, bulk remove counts removed, and filtering follows the table", () =>
      Effect.gen(function* () {
        const suppressions = yield* Suppressions
        const account = yield* freshAccount
        const [a, b, c] = [someone(), someone(), someone()]
        yield* suppressions.add(account, { email: a, reason: "Bounce" })
        expect(yield* suppressions.bulk(account, { action: "add", emails: [a, b, c], reason: "Manual" }))
          .toEqual({ action: "add", requested: 3, added: 2, updated: 1 })
        const marketing = yield* suppressions.filterRecipients(account.id, { kind: "marketing", topicId: null }, [a, b, someone()])
        expect(marketing.dropped.map((d) => d.reason)).toEqual(["MANUAL_SUPPRESSION", "MANUAL_SUPPRESSION"])
        const transactional = yield* suppressions.filterRecipients(account.id, { kind: "transactional", topicId: null }, [a, b])
        expect(transactional.eligible).toEqual([a, b])
        expect(yield* suppressions.bulk(account, { action: "remove", emails: [a, b, someone()] }))
          .toEqual({ action: "remove", requested: 3, removed: 2 })
        expect((yield* suppressions.remove(account, c)).removed).toBe(true)
        expect((yield* suppressions.list(account, { page: 1, limit: 10 })).total).toBe(0)
      }))
  })

  describe("Topics service", () => {
    it.effect("one default topic per account; an unknown or foreign id is RESOURCE_NOT_FOUND and changes nothing", () =>
      Effect.gen(function* () {
        const topics = yield* Topics
        const account = yield* freshAccount
        const first = yield* topics.create(account, { name: "First", isDefault: true })
        const second = yield* topics.create(account, { name: "Second", isDefault: true })
        expect((yield* topics.get(account, first.topic.id)).topic.isDefault).toBe(false)
        expect((yield* topics.get(account, second.topic.id)).topic.isDefault).toBe(true)
        const other = yield* freshAccount
        const attempts: ReadonlyArray<Effect.Effect<unknown, { readonly code: string }>> = [
          topics.get(other, first.topic.id), topics.update(other, first.topic.id, { name: "x" }),
          topics.remove(other, first.topic.id), topics.addMember(other, first.topic.id, someone()),
        ]
        for (const attempt of attempts) expect((yield* Effect.flip(attempt)).code).toBe("RESOURCE_NOT_FOUND")
        expect((yield* topics.get(account, first.topic.id)).topic.name).toBe("First")
      }))

    it.effect("concurrent PATCHes of one topic, each of another field, all take effect: no write is lost", () =>
      Effect.gen(function* () {
        const topics = yield* Topics
        const account = yield* freshAccount
        // Several rounds, each on a topic of its own: the calls of one round may happen to run one by one.
        for (let round = 0; round < 5; round++) {
          const created = yield* topics.create(account, { name: `Topic ${round}` })
          const patches = [
            { name: `Renamed ${round}` }, { description: "About" }, { publicLabel: "Label" }, { publicDescription: "Shown" },
            { sortOrder: 7 }, { isPublishedOnUnsub: true },
          ]
          yield* Effect.all(
            [...patches, ...patches, ...patches].map((patch) => topics.update(account, created.topic.id, patch)),
            { concurrency: "unbounded", discard: true },
          )
          expect((yield* topics.get(account, created.topic.id)).topic, `round ${round}`).toMatchObject({
            name: `Renamed ${round}`, description: "About", publicLabel: "Label", publicDescription: "Shown", sortOrder: 7,
            isPublishedOnUnsub: true,
          })
        }
      }))

    it.effect("concurrent moves of the default to different topics leave exactly one default, and lose no other change", () =>
      Effect.gen(function* () {
        const topics = yield* Topics
        for (let round = 0; round < 3; round++) {
          const account = yield* freshAccount
          const created = yield* Effect.forEach(Array.from({ length: 8 }, (_, i) => `T${i}`), (name) => topics.create(account, { name }))
          yield* Effect.all(
            created.flatMap(({ topic }, i) => [
              topics.update(account, topic.id, { isDefault: true }),
              topics.update(account, topic.id, { description: `About ${i}` }),
              topics.create(account, { name: `New ${i}`, isDefault: true }),
            ]),
            { concurrency: "unbounded", discard: true },
          )
          const all = yield* (yield* Store).topics.all(account.id)
          expect(all.filter((topic) => topic.isDefault), `round ${round}`).toHaveLength(1)
          for (const [i, { topic }] of created.entries()) {
            expect(all.find((t) => t.id === topic.id)?.description, `round ${round}`).toBe(`About ${i}`)
          }
        }
      }))

    it.effect("an opt-out drops marketing mail under the topic; deleting the topic makes the address eligible again", () =>
      Effect.gen(function* () {
        const topics = yield* Topics
        const suppressions = yield* Suppressions
        const store = yield* Store
        const account = yield* freshAccount
        const { topic } = yield* topics.create(account, { name: "Deals" })
        const email = someone()
        expect((yield* topics.addMember(account, topic.id, email)).added).toBe(true)
        expect((yield* topics.addMember(account, topic.id, email)).added).toBe(false)
        const scope = { kind: "marketing" as const, topicId: topic.id }
        expect((yield* suppressions.filterRecipients(account.id, scope, [email])).dropped).toEqual([{ email, reason: "TOPIC_OPT_OUT" }])
        // Member routes only edit the group.
        expect(yield* store.events.list(account.id)).toEqual([])
        yield* topics.remove(account, topic.id)
        expect((yield* suppressions.filterRecipients(account.id, scope, [email])).eligible).toEqual([email])
        expect(Option.isNone(yield* store.topics.findById(account.id, topic.id))).toBe(true)
      }))
  })
}
