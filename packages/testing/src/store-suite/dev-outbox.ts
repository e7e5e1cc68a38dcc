/** Store contract: the dev outbox (insert, list newest first, the `to` and `q` filters, limit, get by id; the raw message kept
 *  as given). Clearing is tested over HTTP (dev-outbox-suite.ts), on a database the suite has to itself. */
import { describe, expect } from "@effect/vitest"
import { type DevOutboxEntry, Store } from "@mailroom/core"
import { Effect, Option } from "effect"
import { uniqueText } from "../fixtures.js"
import { at, type StoreTester } from "./support.js"

/** An entry with a unique id and recipients unique to this run, so that tests sharing a database never see each
 *  other's entries through the `to` filter. */
const makeEntry = (overrides: Partial<DevOutboxEntry> = {}): DevOutboxEntry => ({
  id: uniqueText("out"),
  from: "sender@example.com",
  to: [`${uniqueText("rcpt")}@example.com`],
  subject: "Hello",
  html: "<p>Hello</p>",
  text: "Hello",
  headers: { "message-id": `<${uniqueText("mid")}@example.com>`, subject: "Hello" },
  raw: "Subject: Hello\r\nMIME-Version: 1.0\r\n\r\nHello ✓\r\n",
  createdAt: at(1),
  ...overrides,
})

const comparableEntry = (entry: DevOutboxEntry) => ({ ...entry, createdAt: entry.createdAt.getTime() })

export const devOutboxTests = (it: StoreTester) => {
  describe("devOutbox", () => {
    it.effect("list answers an inserted entry with every field as given", () =>
      Effect.gen(function* () {
        const { devOutbox } = yield* Store
        const address = `${uniqueText("rcpt")}@example.com`
        const entry = makeEntry({
          from: "Newsletters@Example.com",
          to: [address, `Other.${address}`],
          subject: "Grüße, 🎉",
          html: null,
          text: "Line one\r\nLine two ✓",
          headers: {
            "list-unsubscribe": "<https://example.com/u/abc>, <mailto:unsubscribe@example.com?subject=unsubscribe>",
            "list-unsubscribe-post": "List-Unsubscribe=One-Click",
            received: "from a\nfrom b",
          },
        })
        yield* devOutbox.insert(entry)
        expect((yield* devOutbox.list({ to: address, limit: 20 })).map(comparableEntry)).toEqual([comparableEntry(entry)])
      }))

    it.effect("list answers the newest entries first; entries of the same instant put the later insert first", () =>
      Effect.gen(function* () {
        const { devOutbox } = yield* Store
        const address = `${uniqueText("rcpt")}@example.com`
        const older = makeEntry({ to: [address], createdAt: at(10) })
        const newest = makeEntry({ to: [address], createdAt: at(30) })
        const sameFirst = makeEntry({ to: [address], createdAt: at(20) })
        const sameSecond = makeEntry({ to: [address], createdAt: at(20) })
        yield* devOutbox.insert(older)
        yield* devOutbox.insert(newest)
        yield* devOutbox.insert(sameFirst)
        yield* devOutbox.insert(sameSecond)
        const ids = (yield* devOutbox.list({ to: address, limit: 20 })).map((entry) => entry.id)
        expect(ids).toEqual([newest.id, sameSecond.id, sameFirst.id, older.id])
        expect((yield* devOutbox.list({ to: address, limit: 2 })).map((entry) => entry.id)).toEqual([newest.id, sameSecond.id])
      }))

    it.effect("the to filter matches any envelope recipient, whatever its case, and nothing else", () =>
      Effect.gen(function* () {
        const { devOutbox } = yield* Store
        const ada = `ada.${uniqueText("rcpt")}@example.com`
        const bob = `bob.${uniqueText("rcpt")}@example.com`
        const toAda = makeEntry({ to: [ada.toUpperCase()] })
        const toBoth = makeEntry({ to: [bob, ada] })
        const toBob = makeEntry({ to: [bob] })
        for (const entry of [toAda, toBoth, toBob]) yield* devOutbox.insert(entry)
        const idsTo = (to: string) => devOutbox.list({ to, limit: 20 }).pipe(Effect.map((rows) => rows.map((e) => e.id).sort()))
        expect(yield* idsTo(ada)).toEqual([toAda.id, toBoth.id].sort())
        expect(yield* idsTo(bob.toUpperCase())).toEqual([toBoth.id, toBob.id].sort())
        expect(yield* idsTo(`nobody.${uniqueText("rcpt")}@example.com`)).toEqual([])
        // A prefix of an address is another address.
        expect(yield* idsTo(ada.slice(1))).toEqual([])
      }))

    it.effect("without a to filter, list answers entries of every recipient, newest first, up to the limit", () =>
      Effect.gen(function* () {
        const { devOutbox } = yield* Store
        // An hour ahead: newer than what tests running beside this one insert (a test database is shared), and older
        // than what runs an hour from now insert, so that entries of past runs never stay on top.
        const base = Date.now() + 3_600_000
        const first = makeEntry({ createdAt: new Date(base) })
        const second = makeEntry({ createdAt: new Date(base + 1000) })
        yield* devOutbox.insert(first)
        yield* devOutbox.insert(second)
        expect((yield* devOutbox.list({ limit: 1 })).map((entry) => entry.id)).toEqual([second.id])
        const all = yield* devOutbox.list({ limit: 100 })
        expect(all.slice(0, 2).map((entry) => entry.id)).toEqual([second.id, first.id])
        const times = all.map((entry) => entry.createdAt.getTime())
        expect(times).toEqual([...times].sort((a, b) => b - a))
      }))

    it.effect("the q filter matches a substring of subject, from, any recipient or text body, whatever its case", () =>
      Effect.gen(function* () {
        const { devOutbox } = yield* Store
        const token = uniqueText("find").toLowerCase()
        const bySubject = makeEntry({ subject: `Invoice ${token.toUpperCase()} due`, createdAt: at(10) })
        const byFrom = makeEntry({ from: `Billing.${token}@Example.com`, createdAt: at(20) })
        const byRecipient = makeEntry({ to: [`${uniqueText("rcpt")}@example.com`, `${token}@Example.com`], createdAt: at(30) })
        const byText = makeEntry({ text: `Your code: ${token}.`, createdAt: at(40) })
        const inHtmlOnly = makeEntry({ html: `<p>${token}</p>`, text: null, createdAt: at(50) })
        for (const entry of [bySubject, byFrom, byRecipient, byText, inHtmlOnly]) yield* devOutbox.insert(entry)
        const idsFor = (q: string, limit = 20) => devOutbox.list({ q, limit }).pipe(Effect.map((rows) => rows.map((e) => e.id)))
        // Newest first; the html body is not searched.
        expect(yield* idsFor(token)).toEqual([byText.id, byRecipient.id, byFrom.id, bySubject.id])
        expect(yield* idsFor(token.toUpperCase(), 2)).toEqual([byText.id, byRecipient.id])
        expect(yield* idsFor(`${token}@example.com`)).toEqual([byRecipient.id, byFrom.id])
        expect(yield* idsFor(`${token}x`)).toEqual([])
        // With the to filter, both apply.
        expect((yield* devOutbox.list({ q: token, to: `${token}@example.com`, limit: 20 })).map((e) => e.id)).toEqual([byRecipient.id])
      }))

    it.effect("in the q filter, % and _ match themselves, not any text", () =>
      Effect.gen(function* () {
        const { devOutbox } = yield* Store
        const token = uniqueText("pct").toLowerCase()
        const percent = makeEntry({ subject: `${token} 50% off`, createdAt: at(10) })
        const underscore = makeEntry({ subject: `${token} a_b!c`, createdAt: at(20) })
        const plain = makeEntry({ subject: `${token} 50 percent off, axb!c`, createdAt: at(30) })
        for (const entry of [percent, underscore, plain]) yield* devOutbox.insert(entry)
        const idsFor = (q: string) => devOutbox.list({ q, limit: 20 }).pipe(Effect.map((rows) => rows.map((e) => e.id)))
        expect(yield* idsFor(`${token} 50%`)).toEqual([percent.id])
        expect(yield* idsFor(`${token} 50% off`)).toEqual([percent.id])
        expect(yield* idsFor(`${token} a_b`)).toEqual([underscore.id])
        expect(yield* idsFor(`${token} a_b!c`)).toEqual([underscore.id])
        expect(yield* idsFor(`${token} %`)).toEqual([])
        expect(yield* idsFor(`${token} `)).toEqual([plain.id, underscore.id, percent.id])
      }))

    it.effect("get answers the entry of an id with every field, and none for an unknown id", () =>
      Effect.gen(function* () {
        const { devOutbox } = yield* Store
        const entry = makeEntry({ raw: null, html: "<p>Grüße</p>" })
        yield* devOutbox.insert(entry)
        yield* devOutbox.insert(makeEntry())
        expect(Option.map(yield* devOutbox.get(entry.id), comparableEntry)).toEqual(Option.some(comparableEntry(entry)))
        expect(yield* devOutbox.get(uniqueText("out"))).toEqual(Option.none())
      }))

    it.effect("an entry inserted in a transaction that fails is not kept", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const entry = makeEntry()
        const failed = yield* Effect.flip(store.transaction(Effect.zipRight(store.devOutbox.insert(entry), Effect.fail("boom" as const))))
        expect(failed).toBe("boom")
        expect(yield* store.devOutbox.list({ to: entry.to[0]!, limit: 20 })).toEqual([])
        expect(yield* store.devOutbox.get(entry.id)).toEqual(Option.none())
      }))
  })
}
