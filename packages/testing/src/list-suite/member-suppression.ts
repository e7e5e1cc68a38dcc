/** Member suppression statuses on every backend: random members (a contact status, a membership removed or not) whose
 *  filtered pages and counts must equal what core's suppression rules (suppressionStatusesOf) decide, for STATIC lists
 *  (membership rows) and DYNAMIC ones (contacts matching rules, never removed). */
import { describe, expect } from "@effect/vitest"
import {
  contactStatuses, type ContactStatus, dynamicMemberId, type MemberFacts, memberFilters, type MemberQuery, memberSuppressionStatuses,
  type MemberRecord, Store, suppressionStatusesOf,
} from "@mailroom/core"
import { Effect, FastCheck as fc } from "effect"
import { makeMembers } from "../fixtures.js"
import { at, insertAccount, insertContacts } from "../store-suite/support.js"
import { type ListTester, makeList, rules, sorted } from "./support.js"

interface MemberCase {
  readonly status: ContactStatus
  readonly removed: boolean
}

const memberCase = fc.record({ status: fc.constantFrom(...contactStatuses), removed: fc.boolean() })
const sample = fc.record({
  members: fc.array(memberCase, { minLength: 0, maxLength: 9 }),
  filter: fc.constantFrom(...memberFilters),
  limit: fc.integer({ min: 1, max: 10 }),
  page: fc.integer({ min: 1, max: 3 }),
})

const factsOf = (member: MemberCase, membership: boolean): MemberFacts =>
  ({ removedFromList: membership && member.removed, contactStatus: member.status })

/** What core says a page of these members holds: the ids in GET members' order (newest first) and the counts. */
const expected = (
  cases: ReadonlyArray<{ readonly contactId: string; readonly facts: MemberFacts }>,
  query: MemberQuery,
) => {
  const suppressed = cases.filter((member) => suppressionStatusesOf(member.facts).length > 0)
  const selected = query.filter === "all" ? cases
    : cases.filter((member) => (suppressionStatusesOf(member.facts).length > 0) === (query.filter === "suppressed"))
  const start = (query.page - 1) * query.limit
  return {
    contactIds: selected.map((member) => member.contactId).slice(start, start + query.limit),
    counts: { total: cases.length, active: cases.length - suppressed.length, suppressed: suppressed.length },
  }
}

const statusesById = (members: ReadonlyArray<MemberRecord>) =>
  Object.fromEntries(members.map((member) => [member.contactId, memberSuppressionStatuses(member)]))

export const memberSuppressionTests = (it: ListTester) => {
  describe("member suppression statuses", () => {
    it.effect("random STATIC members: filters, pages and counts agree with core's suppression rules", () =>
      Effect.gen(function* () {
        const store = yield* Store
        for (const input of fc.sample(sample, { numRuns: 40, seed: 20240701 })) {
          const accountId = yield* insertAccount
          const list = makeList({ accountId })
          yield* store.lists.insert(list)
          const contacts = yield* insertContacts(accountId, input.members.map((member) => ({ status: member.status })))
          // Added one second apart, so that GET members' order (newest first) is the reverse of the input.
          for (const [i, contact] of contacts.entries()) yield* store.members.addCurrent(accountId, list.id, makeMembers([contact.id]), at(i))
          const removed = contacts.filter((_, i) => input.members[i]!.removed).map((contact) => contact.id)
          if (removed.length > 0) yield* store.members.markRemoved(accountId, list.id, removed, at(100))
          const cases = contacts.map((contact, i) => ({ contactId: contact.id, facts: factsOf(input.members[i]!, true) }))
            .reverse()
          const query: MemberQuery = { page: input.page, limit: input.limit, filter: input.filter }
          const page = yield* store.members.page(accountId, list.id, query)
          const label = JSON.stringify(input)
          expect({ contactIds: page.members.map((member) => member.contactId), counts: page.counts }, label)
            .toEqual(expected(cases, query))
          // The facts each backend reads back give the statuses core decides from the generated facts.
          const all = yield* store.members.page(accountId, list.id, { page: 1, limit: 100, filter: "all" })
          expect(statusesById(all.members), label)
            .toEqual(Object.fromEntries(cases.map((member) => [member.contactId, suppressionStatusesOf(member.facts)])))
        }
      }))

    it.effect("random DYNAMIC members: filters, pages and counts agree with core's suppression rules", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const everyone = rules({ all: [{ field: "email", operator: "isSet" }] })
        for (const input of fc.sample(sample, { numRuns: 30, seed: 20240702 })) {
          const accountId = yield* insertAccount
          const contacts = yield* insertContacts(accountId, input.members.map((member, i) =>
            ({ status: member.status, createdAt: at(i), subscribedAt: at(i) })))
          const cases = contacts.map((contact, i) => ({ contactId: contact.id, facts: factsOf(input.members[i]!, false) }))
            .reverse()
          const query: MemberQuery = { page: input.page, limit: input.limit, filter: input.filter }
          const list = makeList({ accountId, type: "DYNAMIC", segmentRules: everyone })
          const page = yield* store.members.pageMatching(accountId, list.id, everyone, query, at(1_000))
          const label = JSON.stringify(input)
          expect({ contactIds: page.members.map((member) => member.contactId), counts: page.counts }, label)
            .toEqual(expected(cases, query))
          expect(sorted(page.members.map((member) => member.id)), label)
            .toEqual(sorted(page.members.map((member) => dynamicMemberId(list.id, member.contactId))))
        }
      }))
  })
}
