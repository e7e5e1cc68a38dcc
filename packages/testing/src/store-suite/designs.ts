/** Store contract: designs with their drafts (compare-and-set on revision and live version, key uniqueness, filters
 *  and cursor), releases written once and never changed, and the count of messages sent with a design. */
import { describe, expect } from "@effect/vitest"
import {
  type AccountId, type Design, type DesignId, type DesignRelease, newDesign, publishDraft, replaceDraft, Store,
} from "@mailroom/core"
import { Effect, Either, Option } from "effect"
import { uniqueText } from "../fixtures.js"
import { makeStoredMessage } from "./messages.js"
import { at, insertAccount, type StoreTester } from "./support.js"

/** A design of `accountId` with a unique key and a draft that uses every field. */
export const makeDesign = (accountId: AccountId, overrides: Partial<Design> = {}): Design => ({
  ...newDesign({
    id: uniqueText("tpl") as DesignId,
    accountId,
    applicationKey: "account",
    key: uniqueText("welcome"),
    locale: "en",
    draft: {
      name: "Welcome ✓",
      subject: "Hello {{first_name}}",
      format: "mjml",
      html: "<mjml><mj-body><mj-text>Hi {{first_name}} <!--[if mso]>x<![endif]--></mj-text></mj-body></mjml>",
      text: "Hi {{first_name}}",
      category: "NOTIFICATION",
      variables: {
        first_name: { type: "string", required: true, example: "Ada" },
        items: { type: "array", items: { sku: { type: "string" }, url: { type: "string", format: "url" } } },
      },
    },
    brandId: "brd_1",
    at: at(1),
  }),
  ...overrides,
})

const compiled = { subject: "Hello {{first_name}}", html: "<table>Hi {{first_name}}</table>", text: "Hi {{first_name}}", variables: ["first_name"] }

/** The design published once: the design after the publish, and its release. */
const published = (design: Design, seconds = 2) =>
  Either.getOrThrow(publishDraft(design, design.revision, compiled, { colors: { primary: "#123456" } }, at(seconds)))

const time = (date: Date | null) => (date === null ? null : date.getTime())
const comparable = (design: Design) => ({
  ...design,
  createdAt: time(design.createdAt), updatedAt: time(design.updatedAt),
  publishedAt: time(design.publishedAt), retiredAt: time(design.retiredAt),
})
const comparableRelease = (release: DesignRelease) => ({ ...release, createdAt: release.createdAt.getTime() })

export const designTests = (it: StoreTester) => {
  describe("designs", () => {
    it.effect("findById answers an inserted design with every field as given; another account's id answers none", () =>
      Effect.gen(function* () {
        const { designs } = yield* Store
        const accountId = yield* insertAccount
        const design = makeDesign(accountId)
        yield* designs.insert(design)
        expect(comparable(Option.getOrThrow(yield* designs.findById(accountId, design.id)))).toEqual(comparable(design))
        expect(Option.isNone(yield* designs.findById(yield* insertAccount, design.id))).toBe(true)
      }))

    it.effect("insert refuses a second design with the same application key, key and locale in the account", () =>
      Effect.gen(function* () {
        const { designs } = yield* Store
        const accountId = yield* insertAccount
        const design = makeDesign(accountId)
        yield* designs.insert(design)
        const twin = makeDesign(accountId, { key: design.key })
        const error = yield* Effect.flip(designs.insert(twin))
        expect(error._tag).toBe("DesignAlreadyExists")
        expect(Option.isNone(yield* designs.findById(accountId, twin.id))).toBe(true)
        // Another locale, another application or another account may use the key.
        yield* designs.insert(makeDesign(accountId, { key: design.key, locale: "fr" }))
        yield* designs.insert(makeDesign(accountId, { key: design.key, applicationKey: "shop" }))
        const other = yield* insertAccount
        yield* designs.insert(makeDesign(other, { key: design.key }))
        expect(yield* designs.count(accountId)).toBe(3)
      }))

    it.effect("update writes only while the revision and live version are the ones expected", () =>
      Effect.gen(function* () {
        const { designs } = yield* Store
        const accountId = yield* insertAccount
        const design = makeDesign(accountId)
        yield* designs.insert(design)
        const edited = Either.getOrThrow(replaceDraft(design, { ...design.draft, subject: "Edited" }, 1, at(5)))
        expect(yield* designs.update(edited, { revision: 2, liveVersion: null })).toBe(false)
        expect(yield* designs.update(edited, { revision: 1, liveVersion: 3 })).toBe(false)
        expect(Option.getOrThrow(yield* designs.findById(accountId, design.id)).revision).toBe(1)
        expect(yield* designs.update(edited, { revision: 1, liveVersion: null })).toBe(true)
        const stored = Option.getOrThrow(yield* designs.findById(accountId, design.id))
        expect(comparable(stored)).toEqual(comparable(edited))
        // The stale writer of revision 1 now loses.
        expect(yield* designs.update(edited, { revision: 1, liveVersion: null })).toBe(false)
        const foreign = { ...edited, accountId: yield* insertAccount }
        expect(yield* designs.update(foreign, { revision: 2, liveVersion: null })).toBe(false)
      }))

    it.effect("a release is written once: a second release with its version is refused and the first stays as it was", () =>
      Effect.gen(function* () {
        const { designs } = yield* Store
        const accountId = yield* insertAccount
        const design = makeDesign(accountId)
        yield* designs.insert(design)
        const { design: live, release } = published(design)
        expect(release.version).toBe(1)
        expect(yield* designs.insertRelease(release)).toBe(true)
        expect(yield* designs.update(live, { revision: 1, liveVersion: null })).toBe(true)
        const rival = { ...release, content: { ...release.content, subject: "Rival" }, createdAt: at(9) }
        expect(yield* designs.insertRelease(rival)).toBe(false)
        const stored = Option.getOrThrow(yield* designs.findRelease(accountId, design.id, 1))
        expect(comparableRelease(stored)).toEqual(comparableRelease(release))
        expect(Option.isNone(yield* designs.findRelease(yield* insertAccount, design.id, 1))).toBe(true)
        expect(Option.isNone(yield* designs.findRelease(accountId, design.id, 2))).toBe(true)
      }))

    it.effect("a release keeps its snapshot when the draft and the brand change afterwards", () =>
      Effect.gen(function* () {
        const { designs } = yield* Store
        const accountId = yield* insertAccount
        const design = makeDesign(accountId)
        yield* designs.insert(design)
        const { design: live, release } = published(design)
        yield* designs.insertRelease(release)
        yield* designs.update(live, { revision: 1, liveVersion: null })
        const edited = Either.getOrThrow(replaceDraft(live, { ...live.draft, html: "<p>new</p>", format: "html" }, 1, at(6)))
        yield* designs.update({ ...edited, brandId: "brd_2" }, { revision: 1, liveVersion: 1 })
        const stored = Option.getOrThrow(yield* designs.findRelease(accountId, design.id, 1))
        expect(comparableRelease(stored)).toEqual(comparableRelease(release))
        expect(stored.brandId).toBe("brd_1")
      }))

    it.effect("listReleases answers every release of the design, newest version first", () =>
      Effect.gen(function* () {
        const { designs } = yield* Store
        const accountId = yield* insertAccount
        let design = makeDesign(accountId)
        yield* designs.insert(design)
        for (const seconds of [2, 3, 4]) {
          const next = published(design, seconds)
          yield* designs.insertRelease(next.release)
          yield* designs.update(next.design, { revision: design.revision, liveVersion: design.liveVersion })
          design = next.design
        }
        expect((yield* designs.listReleases(accountId, design.id)).map((r) => r.version)).toEqual([3, 2, 1])
        expect(yield* designs.listReleases(yield* insertAccount, design.id)).toEqual([])
      }))

    it.effect("list filters by application, key, locale, category and status, newest first, from a cursor", () =>
      Effect.gen(function* () {
        const { designs } = yield* Store
        const accountId = yield* insertAccount
        const a = makeDesign(accountId)
        const b = makeDesign(accountId, { locale: "de" })
        const c = makeDesign(accountId, { applicationKey: "shop", draft: { ...a.draft, category: "BILLING" } })
        const d = published(makeDesign(accountId)).design
        for (const design of [a, b, c, d]) yield* designs.insert(design)
        const ids = (rows: ReadonlyArray<Design>) => rows.map((row) => row.id)
        expect(ids(yield* designs.list(accountId, { limit: 10 }))).toEqual([d.id, c.id, b.id, a.id])
        expect(ids(yield* designs.list(accountId, { limit: 2 }))).toEqual([d.id, c.id])
        expect(ids(yield* designs.list(accountId, { limit: 2, after: c.id }))).toEqual([b.id, a.id])
        expect(ids(yield* designs.list(accountId, { limit: 10, applicationKey: "shop" }))).toEqual([c.id])
        expect(ids(yield* designs.list(accountId, { limit: 10, locale: "de" }))).toEqual([b.id])
        expect(ids(yield* designs.list(accountId, { limit: 10, key: a.key }))).toEqual([a.id])
        expect(ids(yield* designs.list(accountId, { limit: 10, category: "BILLING" }))).toEqual([c.id])
        expect(ids(yield* designs.list(accountId, { limit: 10, status: "published" }))).toEqual([d.id])
        expect(ids(yield* designs.list(yield* insertAccount, { limit: 10 }))).toEqual([])
      }))

    it.effect("delete removes the design with its releases; another account's design is left alone", () =>
      Effect.gen(function* () {
        const { designs } = yield* Store
        const accountId = yield* insertAccount
        const design = makeDesign(accountId)
        yield* designs.insert(design)
        yield* designs.insertRelease(published(design).release)
        expect(yield* designs.delete(yield* insertAccount, design.id)).toBe(false)
        expect(yield* designs.delete(accountId, design.id)).toBe(true)
        expect(Option.isNone(yield* designs.findById(accountId, design.id))).toBe(true)
        expect(yield* designs.listReleases(accountId, design.id)).toEqual([])
        expect(yield* designs.delete(accountId, design.id)).toBe(false)
        expect(yield* designs.count(accountId)).toBe(0)
      }))

    it.effect("countSends counts the account's messages that name the design", () =>
      Effect.gen(function* () {
        const { designs, messages } = yield* Store
        const accountId = yield* insertAccount
        const design = makeDesign(accountId)
        yield* designs.insert(design)
        const byTemplate = (account: AccountId) => {
          const message = makeStoredMessage(account)
          return { ...message, content: { ...message.content, template: { id: design.id, version: 1 } } }
        }
        yield* messages.insertMany([byTemplate(accountId), byTemplate(accountId), makeStoredMessage(accountId)])
        expect(yield* designs.countSends(accountId, design.id)).toBe(2)
        expect(yield* designs.countSends(yield* insertAccount, design.id)).toBe(0)
      }))
  })
}
