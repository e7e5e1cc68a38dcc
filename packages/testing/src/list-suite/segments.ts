/** Dynamic-list members on every backend: one table of rules with the members each must select, run against the same
 *  contacts everywhere (the SQL backends compile the rules, memory calls core's matchesSegment), then random rules
 *  whose answer must equal matchesSegment's. */
import { describe, expect } from "@effect/vitest"
import {
  type AccountId, contactSources, dynamicMemberId, contactStatuses, matchesSegment, type SegmentNode, type SegmentRules, Store,
} from "@mailroom/core"
import { Effect, FastCheck as fc } from "effect"
import type { ContactOverrides } from "../fixtures.js"
import { insertAccount, insertContacts } from "../store-suite/support.js"
import { type ListTester, makeList, rules, sorted } from "./support.js"

const now = new Date("2024-06-01T00:00:00.000Z")
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000)

/** The people every rule of the table is evaluated against, by local part of their address. */
const people: Record<string, Omit<ContactOverrides, "accountId">> = {
  ada: {
    email: "ada@example.com", firstName: "Ada", lastName: "Lovelace ΟΔΥΣΣΕΥΣ", phone: "+14155550100", status: "ACTIVE",
    source: "API", tags: ["vip"], customFields: { plan: "Gold" }, createdAt: daysAgo(40), subscribedAt: daysAgo(10),
  },
  bob: {
    email: "bob@example.org", firstName: "Bob", lastName: "Strauß", status: "UNSUBSCRIBED", source: "FORM", tags: ["beta"],
    customFields: { plan: "silver" }, createdAt: daysAgo(5), subscribedAt: daysAgo(5),
  },
  emile: {
    email: "emile@example.com", firstName: "Émile", lastName: "Zola", status: "BOUNCED", source: "CSV_IMPORT",
    createdAt: daysAgo(400), subscribedAt: daysAgo(400),
  },
  sale: {
    email: "sale@shop.io", firstName: "50%_off", lastName: "O'Hara", status: "PENDING", source: "MANUAL",
    tags: ["vip", "beta"], customFields: { region: "eu", city: "İSTANBUL" }, createdAt: daysAgo(1), subscribedAt: daysAgo(1),
  },
  zed: {
    email: "zed@example.com", status: "ACTIVE", source: "SYNC", customFields: { plan: "", city: "ПРИВЕТ" },
    createdAt: daysAgo(20), subscribedAt: daysAgo(20),
  },
}

const vip = { field: "tag", operator: "has", value: "vip" }

/** Each rule with the people it selects. */
const table: ReadonlyArray<readonly [string, unknown, ReadonlyArray<string>]> = [
  ["status in ACTIVE", { all: [{ field: "status", operator: "in", value: ["ACTIVE"] }] }, ["ada", "zed"]],
  ["status not in ACTIVE, PENDING", { all: [{ field: "status", operator: "notIn", value: ["ACTIVE", "PENDING"] }] }, ["bob", "emile"]],
  ["source in FORM, SYNC", { all: [{ field: "source", operator: "in", value: ["FORM", "SYNC"] }] }, ["bob", "zed"]],
  ["source not in API", { all: [{ field: "source", operator: "notIn", value: ["API"] }] }, ["bob", "emile", "sale", "zed"]],
  ["email ends with @example.com", { all: [{ field: "email", operator: "endsWith", value: "@EXAMPLE.com" }] }, ["ada", "emile", "zed"]],
  ["email equals, any case", { all: [{ field: "email", operator: "equals", value: "ADA@example.COM" }] }, ["ada"]],
  ["email does not contain example", { all: [{ field: "email", operator: "notContains", value: "example" }] }, ["sale"]],
  ["first name contains a literal %", { all: [{ field: "firstName", operator: "contains", value: "%" }] }, ["sale"]],
  ["first name contains a literal _", { all: [{ field: "firstName", operator: "contains", value: "0%_" }] }, ["sale"]],
  ["first name starts with a", { all: [{ field: "firstName", operator: "startsWith", value: "a" }] }, ["ada"]],
  ["first name is not set", { all: [{ field: "firstName", operator: "isNotSet" }] }, ["zed"]],
  ["first name equals émile (case folded)", { all: [{ field: "firstName", operator: "equals", value: "émile" }] }, ["emile"]],
  ["first name equals emile (accents kept)", { all: [{ field: "firstName", operator: "equals", value: "emile" }] }, []],
  ["last name contains SS (ß folds to ss)", { all: [{ field: "lastName", operator: "contains", value: "SS" }] }, ["bob"]],
  ["last name ends with ς (final sigma folds to σ)", { all: [{ field: "lastName", operator: "endsWith", value: "Σ" }] }, ["ada"]],
  ["custom field city starts with ПРИ", { all: [{ field: "customField", key: "city", operator: "startsWith", value: "при" }] }, ["zed"]],
  ["custom field city contains İ", { all: [{ field: "customField", key: "city", operator: "contains", value: "i\u0307st" }] }, ["sale"]],
  ["first name equals ÉMILE", { all: [{ field: "firstName", operator: "equals", value: "ÉMILE" }] }, ["emile"]],
  ["last name is not Lovelace Odysseus (absent counts)", { all: [{ field: "lastName", operator: "notEquals", value: "LOVELACE οδυσσευς" }] }, ["bob", "emile", "sale", "zed"]],
  ["last name contains a quote", { all: [{ field: "lastName", operator: "contains", value: "'" }] }, ["sale"]],
  ["phone is set", { all: [{ field: "phone", operator: "isSet" }] }, ["ada"]],
  ["phone starts with +1415", { all: [{ field: "phone", operator: "startsWith", value: "+1415" }] }, ["ada"]],
  ["tag vip", { all: [vip] }, ["ada", "sale"]],
  ["no tag vip", { all: [{ field: "tag", operator: "notHas", value: "vip" }] }, ["bob", "emile", "zed"]],
  ["custom field plan equals gold", { all: [{ field: "customField", key: "plan", operator: "equals", value: "gold" }] }, ["ada"]],
  ["custom field plan is set (empty is not)", { all: [{ field: "customField", key: "plan", operator: "isSet" }] }, ["ada", "bob"]],
  ["custom field plan is not set", { all: [{ field: "customField", key: "plan", operator: "isNotSet" }] }, ["emile", "sale", "zed"]],
  ["custom field plan does not contain il", { all: [{ field: "customField", key: "plan", operator: "notContains", value: "IL" }] }, ["ada", "emile", "sale", "zed"]],
  ["custom field region starts with E", { all: [{ field: "customField", key: "region", operator: "startsWith", value: "E" }] }, ["sale"]],
  ["created within the last 7 days", { all: [{ field: "createdAt", operator: "withinLastDays", value: 7 }] }, ["bob", "sale"]],
  ["created before 2024", { all: [{ field: "createdAt", operator: "before", value: "2024-01-01" }] }, ["emile"]],
  ["subscribed after 2024-05-25", { all: [{ field: "subscribedAt", operator: "after", value: "2024-05-25T00:00:00Z" }] }, ["bob", "sale"]],
  ["any: tag beta or BOUNCED", { any: [{ field: "tag", operator: "has", value: "beta" }, { field: "status", operator: "in", value: ["BOUNCED"] }] }, ["bob", "emile", "sale"]],
  ["all: vip and (PENDING or plan gold)", {
    all: [vip, { any: [{ field: "status", operator: "in", value: ["PENDING"] }, { field: "customField", key: "plan", operator: "equals", value: "GOLD" }] }],
  }, ["ada", "sale"]],
  ["nothing: vip and not vip", { all: [vip, { field: "tag", operator: "notHas", value: "vip" }] }, []],
  ["three levels", {
    any: [{ all: [{ field: "status", operator: "in", value: ["ACTIVE"] }, { any: [{ field: "phone", operator: "isSet" }, { field: "source", operator: "in", value: ["SYNC"] }] }] }],
  }, ["ada", "zed"]],
]

/** The account's contacts built from `people`, plus a foreign account holding the same people (never selected). */
const seed = Effect.gen(function* () {
  const accountId = yield* insertAccount
  const contacts = yield* insertContacts(accountId, Object.values(people))
  yield* insertContacts(yield* insertAccount, Object.values(people))
  const names = new Map(contacts.map((contact, i) => [contact.email as string, Object.keys(people)[i]!]))
  return { accountId, contacts, names }
})

const membersOf = (accountId: AccountId, segmentRules: SegmentRules) =>
  Effect.gen(function* () {
    const store = yield* Store
    const list = makeList({ accountId, type: "DYNAMIC", segmentRules })
    const page = yield* store.members.pageMatching(accountId, list.id, segmentRules, { page: 1, limit: 100, filter: "all" }, now)
    return { list, page }
  })

const statusCondition = fc.record({
  field: fc.constant("status"),
  operator: fc.constantFrom("in", "notIn"),
  value: fc.uniqueArray(fc.constantFrom(...contactStatuses), { minLength: 1 }),
})
const sourceCondition = fc.record({
  field: fc.constant("source"),
  operator: fc.constantFrom("in", "notIn"),
  value: fc.uniqueArray(fc.constantFrom(...contactSources), { minLength: 1 }),
})
const textCondition = fc.record({
  field: fc.constantFrom("email", "firstName", "lastName", "phone"),
  operator: fc.constantFrom("equals", "notEquals", "contains", "notContains", "startsWith", "endsWith"),
  value: fc.constantFrom(
    "a", "A", "ada", "%", "_", "0%_", "'", "émile", "ÉMILE", "example.com", "+1", "o", "Lace", "ß", "SS", "σ", "ς", "İ", "i",
  ),
})
const presenceCondition = fc.record({
  field: fc.constantFrom("firstName", "lastName", "phone"),
  operator: fc.constantFrom("isSet", "isNotSet"),
})
const customCondition = fc.record({
  field: fc.constant("customField"),
  key: fc.constantFrom("plan", "region", "city", "missing"),
  operator: fc.constantFrom("equals", "notEquals", "contains", "startsWith", "isSet", "isNotSet"),
  value: fc.constantFrom("gold", "S", "eu", "il", "привет", "İ", "i\u0307"),
}).map((c) => (c.operator === "isSet" || c.operator === "isNotSet" ? { field: c.field, key: c.key, operator: c.operator } : c))
const tagCondition = fc.record({
  field: fc.constant("tag"),
  operator: fc.constantFrom("has", "notHas"),
  value: fc.constantFrom("vip", "beta", "none"),
})
const dateCondition = fc.oneof(
  fc.record({
    field: fc.constantFrom("createdAt", "subscribedAt"),
    operator: fc.constantFrom("before", "after"),
    value: fc.integer({ min: 0, max: 500 }).map((days) => daysAgo(days).toISOString()),
  }),
  fc.record({
    field: fc.constantFrom("createdAt", "subscribedAt"),
    operator: fc.constant("withinLastDays"),
    value: fc.integer({ min: 1, max: 500 }),
  }),
)
const condition = fc.oneof(
  statusCondition, sourceCondition, textCondition, presenceCondition, customCondition, tagCondition, dateCondition,
)
const group = (depth: number): fc.Arbitrary<unknown> => {
  const child = depth >= 3 ? condition : fc.oneof({ weight: 3, arbitrary: condition }, { weight: 1, arbitrary: group(depth + 1) })
  return fc.oneof(
    fc.record({ all: fc.array(child, { minLength: 1, maxLength: 3 }) }),
    fc.record({ any: fc.array(child, { minLength: 1, maxLength: 3 }) }),
  )
}

export const segmentTests = (it: ListTester) => {
  describe("dynamic list members", () => {
    it.effect("every rule of the shared table selects the same members on every backend", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const { accountId, contacts, names } = yield* seed
        for (const [name, input, expected] of table) {
          const segmentRules = rules(input)
          // The table itself agrees with core's meaning of the rules.
          expect(contacts.filter((c) => matchesSegment(c, segmentRules, now)).map((c) => names.get(c.email)).sort(), name)
            .toEqual(sorted(expected))
          const { list, page } = yield* membersOf(accountId, segmentRules)
          expect(page.members.map((member) => names.get(member.contact.email)).sort(), name).toEqual(sorted(expected))
          expect(page.counts.total, name).toBe(expected.length)
          yield* store.lists.insert(list)
          expect(yield* store.lists.countMembers(accountId, list, now), name)
            .toEqual({ current: expected.length, all: expected.length })
        }
      }))

    it.effect("members of a dynamic list are contacts: newest first, counted and filtered by status", () =>
      Effect.gen(function* () {
        const { accountId, contacts, names } = yield* seed
        const segmentRules = rules({ any: [{ field: "email", operator: "isSet" }] })
        const { list, page } = yield* membersOf(accountId, segmentRules)
        expect(page.members.map((member) => names.get(member.contact.email))).toEqual(["sale", "bob", "zed", "ada", "emile"])
        expect(page.counts).toEqual({ total: 5, active: 3, suppressed: 2 })
        const ada = page.members.find((member) => member.contact.email === "ada@example.com")!
        const stored = contacts.find((contact) => contact.email === "ada@example.com")!
        expect(ada.id).toBe(dynamicMemberId(list.id, stored.id))
        expect(ada.addedAt.getTime()).toBe(stored.createdAt.getTime())
        expect(ada.removedAt).toBeNull()
        const store = yield* Store
        const suppressed = yield* store.members.pageMatching(accountId, list.id, segmentRules, { page: 1, limit: 1, filter: "suppressed" }, now)
        expect(suppressed.members.map((member) => names.get(member.contact.email))).toEqual(["bob"])
        expect(suppressed.counts).toEqual(page.counts)
      }))

    it.effect("random rules select exactly the contacts core's matchesSegment selects", () =>
      Effect.gen(function* () {
        const { accountId, contacts } = yield* seed
        const samples = fc.sample(group(1), { numRuns: 60, seed: 20240601 })
        for (const input of samples) {
          const segmentRules = rules(input)
          const expected = contacts.filter((c) => matchesSegment(c, segmentRules as SegmentNode, now)).map((c) => c.id)
          const { page } = yield* membersOf(accountId, segmentRules)
          expect(sorted(page.members.map((member) => member.contactId)), JSON.stringify(input)).toEqual(sorted(expected))
        }
      }))
  })
}
