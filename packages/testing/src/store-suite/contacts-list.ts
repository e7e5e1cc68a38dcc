/** Store contract: GET /contacts (list: filters, search, sorting, paging) and export (listAfter). */
import { describe, expect } from "@effect/vitest"
import {
  type AccountId, compareContacts, type Contact, contactSortKeys, contactSources, contactStatuses, type ContactQuery,
  matchesContactFilter, slicePage, Store,
} from "@mailroom/core"
import { Effect, FastCheck as fc } from "effect"
import type { ContactOverrides } from "../fixtures.js"
import { at, comparable, insertAccount, insertContacts, type StoreTester } from "./support.js"

type Fields = Omit<ContactOverrides, "accountId">

/** Inserts named contacts in the order given (so their ids ascend in that order) and answers a function naming
 *  result rows, so expectations read as names. */
const insertNamed = (accountId: AccountId, named: Readonly<Record<string, Fields>>) =>
  Effect.gen(function* () {
    const inserted = yield* insertContacts(accountId, Object.values(named))
    const names = new Map(inserted.map((contact, i) => [contact.id as string, Object.keys(named)[i]!]))
    return (rows: ReadonlyArray<Contact>) => rows.map((row) => names.get(row.id) ?? `unknown ${row.id}`)
  })

const query = (overrides: Partial<ContactQuery> = {}): ContactQuery =>
  ({ page: 1, limit: 100, sortBy: "createdAt", sortOrder: "asc", ...overrides })

/** Four contacts whose sort keys tie in places, so that the tie-break by id shows. Ids ascend ann < ben < cy < dee. */
const sortable: Record<string, Fields> = {
  ann: { email: "dora@example.com", createdAt: at(2), subscribedAt: at(3) },
  ben: { email: "carl@example.com", createdAt: at(1), subscribedAt: at(1) },
  cy: { email: "anna@example.com", createdAt: at(2), subscribedAt: at(1) },
  dee: { email: "bert@example.com", createdAt: at(3), subscribedAt: at(2) },
}

const sortCases: ReadonlyArray<readonly [ContactQuery["sortBy"], ContactQuery["sortOrder"], ReadonlyArray<string>]> = [
  ["createdAt", "asc", ["ben", "ann", "cy", "dee"]],
  ["createdAt", "desc", ["dee", "cy", "ann", "ben"]],
  ["subscribedAt", "asc", ["ben", "cy", "dee", "ann"]],
  ["subscribedAt", "desc", ["ann", "dee", "cy", "ben"]],
  ["email", "asc", ["cy", "dee", "ben", "ann"]],
  ["email", "desc", ["ann", "ben", "dee", "cy"]],
]

/** Names and addresses holding the characters that LIKE patterns and SQL strings treat specially. */
const tricky: Record<string, Fields> = {
  percent: { firstName: "100% sure", email: "pct@example.com" },
  noPercent: { firstName: "100 percent", email: "plain@example.com" },
  underscore: { lastName: "snake_case", email: "first_last@example.com" },
  noUnderscore: { lastName: "snakexcase", email: "firstxlast@example.com" },
  backslash: { lastName: "back\\slash" },
  noBackslash: { lastName: "backslash" },
  quote: { lastName: "O'Brien" },
  injection: { lastName: "Robert'); DROP TABLE contacts;--" },
}

/** Names in several scripts, for the folding of search (docs/contacts.md lists what each folds to). */
const folding: Record<string, Fields> = {
  emile: { firstName: "ÉMILE", lastName: "Zola" },
  decomposed: { firstName: "E\u0301douard" },
  strasse: { lastName: "Straße" },
  odysseus: { firstName: "ΟΔΥΣΣΕΥΣ" },
  ivan: { firstName: "Иван", lastName: "ПЕТРОВ" },
  istanbul: { lastName: "İstanbul" },
  dotless: { lastName: "Kırmızı" },
}

const foldingCases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["émile", ["emile"]],
  ["ÉMILE", ["emile"]],
  ["E\u0301MILE", ["emile"]],
  ["emile", []],
  ["édouard", ["decomposed"]],
  ["STRASSE", ["strasse"]],
  ["straße", ["strasse"]],
  ["ẞ", ["strasse"]],
  ["οδυσσευς", ["odysseus"]],
  ["ΣΣ", ["odysseus"]],
  ["ευσ", ["odysseus"]],
  ["иван", ["ivan"]],
  ["петров", ["ivan"]],
  ["İSTANBUL", ["istanbul"]],
  ["i\u0307stanbul", ["istanbul"]],
  ["istanbul", []],
  ["KIRMIZI", ["dotless"]],
]

/** Random people: names from a small alphabet where case, accents, LIKE characters and scripts meet. */
const letter = fc.constantFrom("a", "A", "é", "É", "ß", "S", "s", "Σ", "ς", "σ", "И", "и", "İ", "i", "I", "ı", "%", "_", "\\", "'", " ")
const text = fc.array(letter, { minLength: 0, maxLength: 6 }).map((letters) => letters.join(""))
const person = fc.record({
  email: fc.constantFrom("ada@example.com", "bob@example.org", "sigma@shop.io", "is_on@example.com"),
  firstName: fc.option(text, { nil: null }),
  lastName: fc.option(text, { nil: null }),
  status: fc.constantFrom(...contactStatuses),
  source: fc.constantFrom(...contactSources),
  tags: fc.subarray(["vip", "beta", "gold"]),
})
const contactQuery = fc.record({
  page: fc.integer({ min: 1, max: 3 }),
  limit: fc.integer({ min: 1, max: 20 }),
  sortBy: fc.constantFrom(...contactSortKeys),
  sortOrder: fc.constantFrom("asc" as const, "desc" as const),
  status: fc.option(fc.constantFrom(...contactStatuses), { nil: undefined }),
  source: fc.option(fc.constantFrom(...contactSources), { nil: undefined }),
  tag: fc.option(fc.constantFrom("vip", "beta", "none"), { nil: undefined }),
  search: fc.option(fc.oneof(text, fc.constantFrom("p1", "example", "@shop", "s_o")), { nil: undefined }),
})

const searchCases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["%", ["percent"]],
  ["0% s", ["percent"]],
  ["e_c", ["underscore"]],
  ["t_l", ["underscore"]],
  ["k\\s", ["backslash"]],
  ["\\", ["backslash"]],
  ["o'b", ["quote"]],
  ["' OR '1'='1", []],
  ["%' OR 1=1 --", []],
  ["drop table", ["injection"]],
]

export const contactListTests = (it: StoreTester) => {
  describe("contacts.list", () => {
    it.effect("pages through the matches and reports the total on every page", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const name = yield* insertNamed(accountId, sortable)
        const page = (n: number) => contacts.list(accountId, query({ page: n, limit: 3, sortBy: "createdAt", sortOrder: "desc" }))
        const [one, two, three] = [yield* page(1), yield* page(2), yield* page(3)]
        expect([name(one.contacts), name(two.contacts), name(three.contacts)]).toEqual([["dee", "cy", "ann"], ["ben"], []])
        expect([one.total, two.total, three.total]).toEqual([4, 4, 4])
      }))

    it.effect("answers contacts with their tags and custom fields", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const inserted = yield* insertContacts(accountId, [
          { tags: ["vip", "beta"], customFields: { a: "1" }, createdAt: at(1) },
          { customFields: { b: "2", c: "3" }, createdAt: at(2) },
        ])
        const listed = yield* contacts.list(accountId, query())
        expect(listed.contacts.map(comparable)).toEqual(inserted.map(comparable))
      }))

    it.effect("lists only the account's own contacts", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const owner = yield* insertAccount
        const stranger = yield* insertAccount
        const name = yield* insertNamed(owner, { mine: {} })
        yield* insertContacts(stranger, [{}, {}])
        const listed = yield* contacts.list(owner, query())
        expect([name(listed.contacts), listed.total]).toEqual([["mine"], 1])
      }))

    for (const [sortBy, sortOrder, expected] of sortCases) {
      it.effect(`sorts by ${sortBy} ${sortOrder}, ties broken by id in the same direction`, () =>
        Effect.gen(function* () {
          const { contacts } = yield* Store
          const accountId = yield* insertAccount
          const name = yield* insertNamed(accountId, sortable)
          expect(name((yield* contacts.list(accountId, query({ sortBy, sortOrder }))).contacts)).toEqual(expected)
        }))
    }

    it.effect("filters by status, source and tag, alone and together, with totals over the filter", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const name = yield* insertNamed(accountId, {
          a: { status: "ACTIVE", source: "API", tags: ["vip"], createdAt: at(1) },
          b: { status: "ACTIVE", source: "FORM", tags: ["vip", "beta"], createdAt: at(2) },
          c: { status: "PENDING", source: "FORM", createdAt: at(3) },
          d: { status: "UNSUBSCRIBED", source: "CSV_IMPORT", tags: ["beta"], createdAt: at(4) },
        })
        const names = (filter: Partial<ContactQuery>) =>
          contacts.list(accountId, query(filter)).pipe(Effect.map((page) => [name(page.contacts), page.total]))
        expect(yield* names({ status: "ACTIVE" })).toEqual([["a", "b"], 2])
        expect(yield* names({ status: "CLEANED" })).toEqual([[], 0])
        expect(yield* names({ source: "FORM" })).toEqual([["b", "c"], 2])
        expect(yield* names({ tag: "beta" })).toEqual([["b", "d"], 2])
        expect(yield* names({ tag: "nobody" })).toEqual([[], 0])
        expect(yield* names({ status: "ACTIVE", source: "FORM", tag: "vip" })).toEqual([["b"], 1])
        expect(yield* names({ tag: "vip", limit: 1, page: 2 })).toEqual([["b"], 2])
      }))

    it.effect("searches email, first name and last name case-insensitively for a substring", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const name = yield* insertNamed(accountId, {
          byEmail: { email: "grace.hopper@navy.example", createdAt: at(1) },
          byFirst: { firstName: "Hopperton", createdAt: at(2) },
          byLast: { lastName: "McHOPPER", createdAt: at(3) },
          none: { firstName: "Ada", lastName: "Lovelace", createdAt: at(4) },
        })
        const search = (text: string) =>
          contacts.list(accountId, query({ search: text })).pipe(Effect.map((page) => [name(page.contacts), page.total]))
        expect(yield* search("HOPPER")).toEqual([["byEmail", "byFirst", "byLast"], 3])
        expect(yield* search("pPeRt")).toEqual([["byFirst"], 1])
        expect(yield* search("navy.EX")).toEqual([["byEmail"], 1])
        expect(yield* search("")).toEqual([["byEmail", "byFirst", "byLast", "none"], 4])
        expect(yield* search("nobody")).toEqual([[], 0])
      }))

    it.effect("search folds case as core's foldText does, the same on every backend whatever the database's locale", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const name = yield* insertNamed(accountId, folding)
        for (const [text, expected] of foldingCases) {
          const page = yield* contacts.list(accountId, query({ search: text }))
          expect([name(page.contacts), page.total], JSON.stringify(text)).toEqual([expected, expected.length])
        }
      }))

    it.effect("random filters and searches select and order exactly as core's matchesContactFilter and compareContacts", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const people = fc.sample(person, { numRuns: 30, seed: 20240801 })
        const inserted = yield* insertContacts(accountId, people.map((fields, i) => ({
          ...fields, email: `p${i}-${fields.email}`, createdAt: at(i % 7), subscribedAt: at(i % 5),
        })))
        for (const filter of fc.sample(contactQuery, { numRuns: 80, seed: 20240802 })) {
          const expected = inserted.filter((contact) => matchesContactFilter(contact, filter))
            .sort(compareContacts(filter.sortBy, filter.sortOrder))
          const page = yield* contacts.list(accountId, filter)
          const label = JSON.stringify(filter)
          expect(page.contacts.map((contact) => contact.id), label)
            .toEqual(slicePage(expected, filter).map((contact) => contact.id))
          expect(page.total, label).toBe(expected.length)
          const walked = yield* contacts.listAfter(accountId, filter, undefined, 1_000)
          expect(walked.map((contact) => contact.id), label).toEqual(expected.map((contact) => contact.id).sort())
        }
      }))

    for (const [text, expected] of searchCases) {
      it.effect(`search ${JSON.stringify(text)} matches its characters literally`, () =>
        Effect.gen(function* () {
          const { contacts } = yield* Store
          const accountId = yield* insertAccount
          const name = yield* insertNamed(accountId, tricky)
          const page = yield* contacts.list(accountId, query({ search: text }))
          expect([name(page.contacts), page.total]).toEqual([expected, expected.length])
          expect((yield* contacts.list(accountId, query())).total).toBe(Object.keys(tricky).length)
        }))
    }
  })

  describe("contacts.listAfter", () => {
    it.effect("walks the account's contacts by ascending id, a batch at a time", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const owner = yield* insertAccount
        const stranger = yield* insertAccount
        const name = yield* insertNamed(owner, {
          a: { createdAt: at(5) }, b: { createdAt: at(4) }, c: { createdAt: at(3) }, d: { createdAt: at(2) }, e: {},
        })
        yield* insertContacts(stranger, [{}, {}])
        const first = yield* contacts.listAfter(owner, {}, undefined, 2)
        const second = yield* contacts.listAfter(owner, {}, first[1]!.id, 2)
        const third = yield* contacts.listAfter(owner, {}, second[1]!.id, 2)
        const fourth = yield* contacts.listAfter(owner, {}, third[0]!.id, 2)
        expect([name(first), name(second), name(third), name(fourth)]).toEqual([["a", "b"], ["c", "d"], ["e"], []])
      }))

    it.effect("applies the filter and answers tags and custom fields", () =>
      Effect.gen(function* () {
        const { contacts } = yield* Store
        const accountId = yield* insertAccount
        const inserted = yield* insertContacts(accountId, [
          { status: "ACTIVE", tags: ["vip"], customFields: { a: "1" }, firstName: "Ada" },
          { status: "PENDING", tags: ["vip"], firstName: "Ada" },
          { status: "ACTIVE", firstName: "Ada" },
          { status: "ACTIVE", tags: ["vip"], firstName: "Bob" },
          { status: "ACTIVE", tags: ["vip"], lastName: "ada" },
        ])
        const filter = { status: "ACTIVE", tag: "vip", search: "ADA" } as const
        const first = yield* contacts.listAfter(accountId, filter, undefined, 1)
        const rest = yield* contacts.listAfter(accountId, filter, first[0]!.id, 10)
        expect([...first, ...rest].map(comparable)).toEqual([inserted[0]!, inserted[4]!].map(comparable))
      }))
  })
}
