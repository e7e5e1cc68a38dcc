import { Either, ParseResult, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type AccountId, AddMembersInput, checkSegmentRules, compareLists, compareMembers, type ContactId, type ContactList,
  type ContactStatus, contactStatuses, createMissingBlock, CreateListInput, type EmailAddress, type ListId,
  matchesListQuery, memberEvent, type MemberRecord, memberSuppressionStatuses, RemoveMembersInput, SegmentRules,
  isSuppressedMember, memberSuppressionRules, suppressionStatuses, UpdateListInput, checkSubscribe, eligibilityChecks,
  suppressionBehind, suppressionReasons,
} from "../../src/index.js"

const problemOf = <A, I>(schema: Schema.Schema<A, I>, input: unknown) => {
  const result = Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })(input)
  if (Either.isRight(result)) throw new Error("expected the input to be refused")
  const [first] = ParseResult.ArrayFormatter.formatErrorSync(result.left)
  return { path: first!.path.join("."), message: first!.message }
}
const decoded = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
  Either.getOrThrow(Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })(input))

const list = (overrides: Partial<ContactList> = {}): ContactList => ({
  id: "lst_1" as ListId,
  accountId: "acc_1" as AccountId,
  name: "Newsletter",
  description: "Monthly News",
  type: "STATIC",
  segmentRules: null,
  suppressionGroupId: null,
  trackingEnabled: true,
  isArchived: false,
  createdAt: new Date("2024-01-01T00:00:00Z"),
  updatedAt: new Date("2024-01-01T00:00:00Z"),
  lastSyncedAt: null,
  ...overrides,
})

describe("list input", () => {
  it("trims the name and accepts 1-255 characters, a description up to 1,000 and every documented field", () => {
    const input = decoded(CreateListInput, {
      name: "  Customers ", description: "d".repeat(1000), type: "DYNAMIC", trackingEnabled: false,
      suppressionGroupId: null, segmentRules: { all: [{ field: "status", operator: "in", value: ["ACTIVE"] }] },
    })
    expect(input.name).toBe("Customers")
    expect(decoded(CreateListInput, { name: "n".repeat(255) }).name).toHaveLength(255)
  })

  it.each([
    [{}, "name", "is missing"],
    [{ name: "   " }, "name", "name must not be empty"],
    [{ name: "n".repeat(256) }, "name", "at most 255"],
    [{ name: "a", description: "d".repeat(1001) }, "description", "at most 1000"],
    [{ name: "a", type: "SMART" }, "type", "Expected"],
    [{ name: "a", trackingEnabled: "yes" }, "trackingEnabled", "Expected boolean"],
    [{ name: "a", suppressionGroupId: "" }, "suppressionGroupId", "send null to untag"],
    [{ name: "a", segmentRules: { all: [{ field: "x" }] } }, "segmentRules.all.0.field", "field must be one of"],
    [{ name: "a", color: "red" }, "color", "is unexpected"],
  ])("POST body %j is refused at %s", (input, path, message) => {
    const found = problemOf(CreateListInput, input)
    expect(found.path).toBe(path)
    expect(found.message).toContain(message)
  })

  it("PATCH takes only the spec's fields: the type of a list is fixed", () => {
    expect(problemOf(UpdateListInput, { type: "DYNAMIC" }).path).toBe("type")
    expect(decoded(UpdateListInput, { isArchived: true, suppressionGroupId: null })).toEqual({
      isArchived: true, suppressionGroupId: null,
    })
  })

  const rules = Schema.decodeUnknownSync(SegmentRules)({ all: [{ field: "phone", operator: "isSet" }] })

  it.each([
    ["STATIC", null, undefined],
    ["DYNAMIC", rules, undefined],
    ["DYNAMIC", null, "a DYNAMIC list needs segmentRules"],
    ["STATIC", rules, "only DYNAMIC lists take segmentRules"],
  ] as const)("a %s list with rules %j: %s", (type, segmentRules, refusal) => {
    const result = checkSegmentRules(type, segmentRules)
    if (refusal === undefined) {
      expect(Either.getOrThrow(result)).toBe(segmentRules)
    } else {
      expect(Either.isLeft(result) && result.left.code).toBe("VALIDATION_ERROR")
      expect(Either.isLeft(result) && result.left.field).toBe("segmentRules")
      expect(Either.isLeft(result) && result.left.message).toContain(refusal)
    }
  })
})

describe("list queries", () => {
  const base = { page: 1, limit: 20, type: "ALL", isArchived: false } as const

  it.each([
    [{}, list(), true],
    [{ type: "DYNAMIC" }, list(), false],
    [{ type: "STATIC" }, list(), true],
    [{}, list({ isArchived: true }), false],
    [{ isArchived: true }, list({ isArchived: true }), true],
    [{ search: "NEWS" }, list(), true],
    [{ search: "monthly" }, list(), true],
    [{ search: "weekly" }, list(), false],
    [{ search: "news" }, list({ name: "Ads", description: null }), false],
    [{ search: "" }, list(), true],
  ] as const)("query %j over %j matches: %s", (query, subject, expected) => {
    expect(matchesListQuery(subject, { ...base, ...query })).toBe(expected)
  })

  it("orders lists newest first, ties broken by id descending", () => {
    const older = list({ id: "lst_a" as ListId, createdAt: new Date(1) })
    const newerA = list({ id: "lst_b" as ListId, createdAt: new Date(2) })
    const newerB = list({ id: "lst_c" as ListId, createdAt: new Date(2) })
    expect([older, newerA, newerB].sort(compareLists).map((l) => l.id)).toEqual(["lst_c", "lst_b", "lst_a"])
  })
})

const member = (status: ContactStatus, removedAt: Date | null, overrides: Partial<MemberRecord> = {}): MemberRecord => ({
  id: "mem_1",
  contactId: "ct_1" as ContactId,
  contact: {
    id: "ct_1" as ContactId,
    email: "ada@example.com" as EmailAddress,
    firstName: null,
    lastName: null,
    status,
    subscribedAt: new Date(0),
    createdAt: new Date(0),
  },
  suppression: null,
  optedOutOfTopic: false,
  addedAt: new Date(0),
  removedAt,
  ...overrides,
})

describe("member suppression statuses", () => {
  // Spec: "List member", suppressionStatuses. One row per contact status, with and without a list unsubscribe.
  const byStatus: Record<ContactStatus, ReadonlyArray<string>> = {
    PENDING: [],
    ACTIVE: [],
    UNSUBSCRIBED: ["UNSUBSCRIBED"],
    BOUNCED: ["BOUNCED"],
    COMPLAINED: ["COMPLAINED"],
    CLEANED: ["CLEANED"],
  }

  it.each(contactStatuses.flatMap((status) => [[status, false], [status, true]] as const))(
    "a %s contact, membership removed: %s",
    (status, removed) => {
      const expected = [...(removed ? ["REMOVED_FROM_LIST"] : []), ...byStatus[status]]
      expect(memberSuppressionStatuses(member(status, removed ? new Date(1) : null))).toEqual(expected)
    },
  )

  it("a member is suppressed exactly when it has a suppression status", () => {
    for (const status of contactStatuses) {
      for (const removed of [false, true]) {
        const m = member(status, removed ? new Date(1) : null)
        expect(isSuppressedMember(m)).toBe(memberSuppressionStatuses(m).length > 0)
      }
    }
  })

  it("every rule names a status of the spec's table, and every status of the table has a rule", () => {
    const named = new Set(memberSuppressionRules.map((rule) => rule.status))
    expect([...named].every((status) => (suppressionStatuses as ReadonlyArray<string>).includes(status))).toBe(true)
    expect([...named].sort()).toEqual([...suppressionStatuses].sort())
  })

  it.each([
    ["Manual", "MANUALLY_SUPPRESSED"], ["Unsubscribe", "UNSUBSCRIBED"], ["Bounce", "BOUNCED"], ["Complaint", "COMPLAINED"],
  ] as const)("an account-level %s suppression shows as %s, once, even when the contact status says it too", (reason, status) => {
    expect(memberSuppressionStatuses(member("ACTIVE", null, { suppression: reason }))).toEqual([status])
    expect(memberSuppressionStatuses(member(status === "MANUALLY_SUPPRESSED" ? "ACTIVE" : status, null, { suppression: reason })))
      .toEqual([status])
  })

  it("an opt-out of the list's topic shows as CATEGORY_SUPPRESSED, after the other reasons", () => {
    expect(memberSuppressionStatuses(member("UNSUBSCRIBED", new Date(1), { suppression: "Manual", optedOutOfTopic: true })))
      .toEqual(["REMOVED_FROM_LIST", "UNSUBSCRIBED", "MANUALLY_SUPPRESSED", "CATEGORY_SUPPRESSED"])
  })

  it("orders members most recently added first, ties broken by id descending", () => {
    const first = member("ACTIVE", null, { id: "mem_a", addedAt: new Date(5) })
    const second = member("ACTIVE", null, { id: "mem_b", addedAt: new Date(5) })
    const latest = member("ACTIVE", null, { id: "mem_0", addedAt: new Date(9) })
    expect([first, second, latest].sort(compareMembers).map((m) => m.id)).toEqual(["mem_0", "mem_b", "mem_a"])
  })
})

describe("adding members", () => {
  it.each([
    [null, undefined],
    ["PENDING", undefined],
    ["ACTIVE", undefined],
    ["UNSUBSCRIBED", "RECIPIENT_UNSUBSCRIBED"],
    ["BOUNCED", "RECIPIENT_SUPPRESSED"],
    ["COMPLAINED", "RECIPIENT_SUPPRESSED"],
    ["CLEANED", "RECIPIENT_SUPPRESSED"],
  ] as const)("an address whose contact is %s is refused with createMissing as %s", (status, reason) => {
    expect(createMissingBlock("ada@example.com", { contactStatus: status, suppression: null })).toBe(reason)
  })

  it.each([
    ["Bounce", "RECIPIENT_SUPPRESSED"],
    ["Complaint", "RECIPIENT_SUPPRESSED"],
    ["Unsubscribe", "RECIPIENT_UNSUBSCRIBED"],
    ["Manual", "RECIPIENT_UNSUBSCRIBED"],
  ] as const)("an address that is no contact with a %s suppression is refused with createMissing as %s", (suppression, reason) => {
    expect(createMissingBlock("ada@example.com", { contactStatus: null, suppression })).toBe(reason)
  })

  it("refuses with createMissing exactly the addresses a subscribe without resubscribe refuses, with its code", () => {
    fc.assert(fc.property(
      fc.constantFrom(null, ...contactStatuses),
      fc.constantFrom(null, ...suppressionReasons),
      (contactStatus, suppression) => {
        const facts = { contactStatus, suppression }
        const subscribe = checkSubscribe("ada@example.com", facts, false)
        const block = createMissingBlock("ada@example.com", facts)
        expect(block === undefined).toBe(Either.isRight(subscribe))
        if (Either.isLeft(subscribe) && subscribe.left.code !== "CONTACT_BLOCKED") expect(block).toBe(subscribe.left.code)
      },
    ))
  })

  it.each(eligibilityChecks.map((check) => [check.reason, check.fact.kind === "suppression" ? check.fact.reason : null] as const))(
    "the send-time reason %s stands for the suppression %s",
    (reason, suppression) => {
      expect(suppressionBehind(reason)).toBe(suppression)
    },
  )

  it("takes contactIds and emails, up to 1,000 each, and at least one of them", () => {
    const input = decoded(AddMembersInput, { emails: [" Ada@Example.com "], createMissing: true })
    expect(input.emails).toEqual(["ada@example.com"])
    const thousand = Array.from({ length: 1000 }, (_, i) => `ct_${i}`)
    expect(decoded(AddMembersInput, { contactIds: thousand }).contactIds).toHaveLength(1000)
    expect(problemOf(AddMembersInput, { contactIds: [...thousand, "ct_x"] }).message).toContain("at most 1000")
    expect(problemOf(AddMembersInput, {}).message).toContain("give contactIds or emails")
    expect(problemOf(AddMembersInput, { contactIds: [], emails: [] }).path).toBe("contactIds")
    expect(problemOf(AddMembersInput, { emails: ["not-an-address"] }).path).toBe("emails.0")
    expect(problemOf(RemoveMembersInput, { createMissing: true, contactIds: ["ct_1"] }).path).toBe("createMissing")
  })

  it("builds list.member_* events with the spec's details", () => {
    fc.assert(fc.property(
      fc.constantFrom("list.member_added" as const, "list.member_removed" as const),
      fc.constantFrom("API" as const, "UNSUBSCRIBE" as const, "IMPORT" as const),
      (type, source) => {
        const event = memberEvent(type, {
          id: "evt_1", accountId: "acc_1" as AccountId, listId: "lst_1" as ListId, contactId: "ct_1" as ContactId,
          email: "ada@example.com", source, occurredAt: new Date(0),
        })
        expect(event.type).toBe(type)
        expect(event.recipient).toBe("ada@example.com")
        expect(event.details).toEqual({ listId: "lst_1", contactId: "ct_1", email: "ada@example.com", source })
      },
    ))
  })
})
