/** Send-time eligibility on every backend: the spec's filtering table run against the same people everywhere, then
 *  random worlds whose answer must equal core's `ineligibility` (the SQL backends compile the table to one query, the
 *  memory backend evaluates it). Another account holding the opposite facts must never change the answer. */
import { describe, expect } from "@effect/vitest"
import {
  type AccountId, type ContactStatus, contactStatuses, type EmailAddress, type IneligibleReason, ineligibility,
  type SendScope, Store, type SuppressionReason, suppressionReasons, type TopicId,
} from "@mailroom/core"
import { Effect, FastCheck as fc } from "effect"
import { makeContact, uniqueText } from "../fixtures.js"
import { insertAccount } from "../store-suite/support.js"
import { type ConsentTester, makeSuppression, makeTopic } from "./support.js"

interface Person {
  readonly status: ContactStatus | null
  readonly suppression: SuppressionReason | null
  readonly optedOut: boolean
}

/** Stores `people` in a fresh account under one topic, and the opposite facts in another account. */
const seed = (people: ReadonlyArray<Person>) =>
  Effect.gen(function* () {
    const store = yield* Store
    const accountId = yield* insertAccount
    const other = yield* insertAccount
    const topic = makeTopic({ accountId })
    const otherTopic = makeTopic({ accountId: other, id: uniqueText("grp") as TopicId })
    yield* store.topics.insert(topic)
    yield* store.topics.insert(otherTopic)
    const emails: Array<EmailAddress> = []
    for (const person of people) {
      const email = `${uniqueText("p")}@example.com` as EmailAddress
      emails.push(email)
      if (person.status !== null) yield* store.contacts.insert(makeContact({ accountId, email, status: person.status }))
      else yield* store.contacts.insert(makeContact({ accountId: other, email, status: "BOUNCED" }))
      if (person.suppression !== null) yield* store.suppressions.put(makeSuppression({ accountId, email }, person.suppression))
      else yield* store.suppressions.put(makeSuppression({ accountId: other, email }, "Bounce"))
      if (person.optedOut) yield* store.topics.optOut(accountId, topic.id, email, new Date(0))
      else yield* store.topics.optOut(other, otherTopic.id, email, new Date(0))
    }
    return { accountId, topicId: topic.id, emails }
  })

const expected = (scope: SendScope, people: ReadonlyArray<Person>, emails: ReadonlyArray<EmailAddress>) => {
  const dropped = new Map<string, IneligibleReason>()
  people.forEach((person, i) => {
    const reason = ineligibility(scope, { contactStatus: person.status, suppression: person.suppression, optedOut: person.optedOut })
    if (reason !== undefined) dropped.set(emails[i]!, reason)
  })
  return dropped
}

const answer = (accountId: AccountId, scope: SendScope, emails: ReadonlyArray<EmailAddress>) =>
  Effect.flatMap(Store, (store) => store.suppressions.eligibility(accountId, scope, emails))

/** The spec's send-time filtering table, one person per row: [facts, dropped from marketing under the topic,
 *  dropped from transactional mail]. */
const table: ReadonlyArray<readonly [Person, IneligibleReason | null, IneligibleReason | null]> = [
  [{ status: "ACTIVE", suppression: null, optedOut: false }, null, null],
  [{ status: "PENDING", suppression: null, optedOut: false }, null, null],
  [{ status: null, suppression: null, optedOut: false }, null, null],
  [{ status: "UNSUBSCRIBED", suppression: null, optedOut: false }, "CONTACT_UNSUBSCRIBED", null],
  [{ status: "BOUNCED", suppression: null, optedOut: false }, "CONTACT_BOUNCED", "CONTACT_BOUNCED"],
  [{ status: "COMPLAINED", suppression: null, optedOut: false }, "CONTACT_COMPLAINED", "CONTACT_COMPLAINED"],
  [{ status: "CLEANED", suppression: null, optedOut: false }, "CONTACT_CLEANED", "CONTACT_CLEANED"],
  [{ status: null, suppression: "Bounce", optedOut: false }, "BOUNCE_SUPPRESSION", "BOUNCE_SUPPRESSION"],
  [{ status: "ACTIVE", suppression: "Complaint", optedOut: false }, "COMPLAINT_SUPPRESSION", "COMPLAINT_SUPPRESSION"],
  [{ status: "ACTIVE", suppression: "Unsubscribe", optedOut: false }, "UNSUBSCRIBE_SUPPRESSION", null],
  [{ status: null, suppression: "Manual", optedOut: false }, "MANUAL_SUPPRESSION", null],
  [{ status: "ACTIVE", suppression: null, optedOut: true }, "TOPIC_OPT_OUT", null],
  [{ status: null, suppression: null, optedOut: true }, "TOPIC_OPT_OUT", null],
  [{ status: "UNSUBSCRIBED", suppression: "Bounce", optedOut: true }, "BOUNCE_SUPPRESSION", "BOUNCE_SUPPRESSION"],
]

const person = fc.record({
  status: fc.constantFrom<ContactStatus | null>(null, ...contactStatuses),
  suppression: fc.constantFrom<SuppressionReason | null>(null, null, ...suppressionReasons),
  optedOut: fc.boolean(),
})

export const eligibilityTests = (it: ConsentTester) => {
  describe("send-time eligibility", () => {
    it.effect("every row of the spec's table drops the same addresses for the same reason on every backend", () =>
      Effect.gen(function* () {
        const people = table.map(([facts]) => facts)
        const { accountId, topicId, emails } = yield* seed(people)
        const marketing = yield* answer(accountId, { kind: "marketing", topicId }, emails)
        const transactional = yield* answer(accountId, { kind: "transactional", topicId }, emails)
        table.forEach(([facts, inMarketing, inTransactional], i) => {
          const name = JSON.stringify(facts)
          expect(marketing.dropped.find((d) => d.email === emails[i])?.reason ?? null, name).toBe(inMarketing)
          expect(transactional.dropped.find((d) => d.email === emails[i])?.reason ?? null, name).toBe(inTransactional)
        })
        expect(marketing.eligible).toEqual(emails.filter((_, i) => table[i]![1] === null))
        // Without a topic, opt-outs drop nobody.
        const untopical = yield* answer(accountId, { kind: "marketing", topicId: null }, emails)
        expect(untopical.dropped.some((d) => d.reason === "TOPIC_OPT_OUT")).toBe(false)
      }))

    it.effect("answers each address once, keeps the order given, and knows nothing of unknown addresses", () =>
      Effect.gen(function* () {
        const { accountId, topicId, emails } = yield* seed([
          { status: "ACTIVE", suppression: null, optedOut: false },
          { status: null, suppression: "Manual", optedOut: false },
        ])
        const stranger = `${uniqueText("s")}@example.com` as EmailAddress
        const result = yield* answer(accountId, { kind: "marketing", topicId }, [stranger, emails[1]!, emails[0]!, stranger])
        expect(result.eligible).toEqual([stranger, emails[0]])
        expect(result.dropped).toEqual([{ email: emails[1], reason: "MANUAL_SUPPRESSION" }])
        expect(yield* answer(accountId, { kind: "marketing", topicId }, [])).toEqual({ eligible: [], dropped: [] })
        // A topic of another account, or none at all, holds no opt-outs of this one.
        const foreign = yield* answer(accountId, { kind: "marketing", topicId: "grp_unknown" }, emails)
        expect(foreign.dropped.map((d) => d.reason)).toEqual(["MANUAL_SUPPRESSION"])
      }))

    it.effect("random recipients are dropped exactly as core's eligibility table says", () =>
      Effect.gen(function* () {
        const worlds = fc.sample(fc.tuple(
          fc.array(person, { minLength: 1, maxLength: 12 }),
          fc.constantFrom("marketing" as const, "transactional" as const),
          fc.boolean(),
        ), { numRuns: 25, seed: 20240601 })
        for (const [people, kind, underTopic] of worlds) {
          const { accountId, topicId, emails } = yield* seed(people)
          const scope: SendScope = { kind, topicId: underTopic ? topicId : null }
          const want = expected(scope, people, emails)
          const got = yield* answer(accountId, scope, emails)
          const name = JSON.stringify({ people, scope })
          expect(new Map(got.dropped.map((d) => [d.email as string, d.reason])), name).toEqual(want)
          expect(got.eligible, name).toEqual(emails.filter((email) => !want.has(email)))
        }
      }))
  })
}
