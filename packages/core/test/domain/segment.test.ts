import { Either, ParseResult, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type AccountId, type Contact, type ContactId, contactSources, contactStatuses, type EmailAddress, matchesSegment, type SegmentCondition, type SegmentNode, SegmentRules } from "../../src/index.js"
import { countConditions, segmentLimits } from "../../src/domain/segment.js"

const now = new Date("2024-06-01T00:00:00.000Z")
const day = 86_400_000

const contact = (overrides: Partial<Contact> = {}): Contact => ({
  id: "ct_1" as ContactId,
  accountId: "acc_1" as AccountId,
  email: "ada@example.com" as EmailAddress,
  firstName: "Ada",
  lastName: "Lovelace",
  phone: null,
  metadata: null,
  source: "API",
  status: "ACTIVE",
  subscribedAt: new Date(now.getTime() - 10 * day),
  unsubscribedAt: null,
  confirmedAt: null,
  consentSource: null,
  consentAt: null,
  consentIp: null,
  consentUserAgent: null,
  consentText: null,
  tags: [{ id: "tag_1", contactId: "ct_1" as ContactId, tag: "vip" }],
  customFields: [{ id: "cf_1", contactId: "ct_1" as ContactId, key: "plan", value: "Gold" }],
  createdAt: new Date(now.getTime() - 40 * day),
  updatedAt: now,
  ...overrides,
})

const decode = Schema.decodeUnknownEither(SegmentRules)
const rules = (input: unknown) => Either.getOrThrow(decode(input))
/** The first problem's dotted path and message, as the HTTP layer reports it. */
const problem = (input: unknown) => {
  const result = decode(input)
  if (Either.isRight(result)) throw new Error("expected the rules to be refused")
  const [first] = ParseResult.ArrayFormatter.formatErrorSync(result.left)
  return { path: first!.path.join("."), message: first!.message }
}
const matches = (condition: unknown, subject: Contact = contact()) =>
  matchesSegment(subject, rules({ all: [condition] }), now)

describe("segment conditions", () => {
  it.each([
    // text fields: ASCII case is ignored, absent values read as ""
    [{ field: "email", operator: "equals", value: "ADA@example.com" }, true],
    [{ field: "email", operator: "notEquals", value: "ada@example.com" }, false],
    [{ field: "firstName", operator: "contains", value: "d" }, true],
    [{ field: "firstName", operator: "notContains", value: "x" }, true],
    [{ field: "lastName", operator: "startsWith", value: "love" }, true],
    [{ field: "lastName", operator: "endsWith", value: "LACE" }, true],
    [{ field: "lastName", operator: "endsWith", value: "love" }, false],
    [{ field: "phone", operator: "isSet" }, false],
    [{ field: "phone", operator: "isNotSet" }, true],
    [{ field: "phone", operator: "notEquals", value: "+1" }, true],
    [{ field: "phone", operator: "contains", value: "1" }, false],
    [{ field: "firstName", operator: "contains", value: "%" }, false],
    // custom fields by exact key
    [{ field: "customField", key: "plan", operator: "equals", value: "gold" }, true],
    [{ field: "customField", key: "Plan", operator: "isSet" }, false],
    [{ field: "customField", key: "region", operator: "isNotSet" }, true],
    [{ field: "customField", key: "region", operator: "notEquals", value: "eu" }, true],
    // status and source
    [{ field: "status", operator: "in", value: ["ACTIVE", "PENDING"] }, true],
    [{ field: "status", operator: "notIn", value: ["ACTIVE"] }, false],
    [{ field: "source", operator: "in", value: ["FORM"] }, false],
    [{ field: "source", operator: "notIn", value: ["FORM", "SYNC"] }, true],
    // tags: names are normalised like contact tags
    [{ field: "tag", operator: "has", value: " VIP " }, true],
    [{ field: "tag", operator: "notHas", value: "vip" }, false],
    [{ field: "tag", operator: "has", value: "beta" }, false],
    // dates: strictly before / after an instant, or within the last N days of `now`
    [{ field: "createdAt", operator: "before", value: "2024-05-01" }, true],
    [{ field: "createdAt", operator: "after", value: "2024-05-01T00:00:00Z" }, false],
    [{ field: "subscribedAt", operator: "withinLastDays", value: 10 }, true],
    [{ field: "subscribedAt", operator: "withinLastDays", value: 9 }, false],
    [{ field: "createdAt", operator: "withinLastDays", value: 30 }, false],
  ])("%j matches the sample contact: %s", (condition, expected) => {
    expect(matches(condition)).toBe(expected)
  })

  it("before and after exclude the instant itself", () => {
    const at = contact({ createdAt: new Date("2024-05-01T00:00:00.000Z") })
    expect(matches({ field: "createdAt", operator: "before", value: "2024-05-01" }, at)).toBe(false)
    expect(matches({ field: "createdAt", operator: "after", value: "2024-05-01" }, at)).toBe(false)
  })

  it("ignores case as core's foldText does, accents kept", () => {
    const emile = contact({ firstName: "Émile" })
    expect(matches({ field: "firstName", operator: "equals", value: "émile" }, emile)).toBe(true)
    expect(matches({ field: "firstName", operator: "equals", value: "ÉMILE" }, emile)).toBe(true)
    expect(matches({ field: "firstName", operator: "equals", value: "emile" }, emile)).toBe(false)
  })
})

describe("segment groups", () => {
  it("all needs every condition, any needs one, and groups nest", () => {
    const active = { field: "status", operator: "in", value: ["ACTIVE"] }
    const form = { field: "source", operator: "in", value: ["FORM"] }
    const vip = { field: "tag", operator: "has", value: "vip" }
    expect(matchesSegment(contact(), rules({ all: [active, form] }), now)).toBe(false)
    expect(matchesSegment(contact(), rules({ any: [active, form] }), now)).toBe(true)
    expect(matchesSegment(contact(), rules({ all: [vip, { any: [form, active] }] }), now)).toBe(true)
    expect(matchesSegment(contact(), rules({ all: [vip, { any: [form, { all: [active, form] }] }] }), now)).toBe(false)
  })

  const statusCondition = fc.record({
    field: fc.constant("status" as const),
    operator: fc.constantFrom("in" as const, "notIn" as const),
    value: fc.uniqueArray(fc.constantFrom(...contactStatuses), { minLength: 1 }),
  })
  const sourceCondition = fc.record({
    field: fc.constant("source" as const),
    operator: fc.constantFrom("in" as const, "notIn" as const),
    value: fc.uniqueArray(fc.constantFrom(...contactSources), { minLength: 1 }),
  })
  const textCondition = fc.record({
    field: fc.constantFrom("email" as const, "firstName" as const, "lastName" as const),
    operator: fc.constantFrom("equals" as const, "contains" as const, "startsWith" as const, "endsWith" as const),
    value: fc.stringMatching(/^[a-zA-Z@.]{1,4}$/),
  })
  const condition: fc.Arbitrary<SegmentCondition> = fc.oneof(statusCondition, sourceCondition, textCondition)
  const tree: fc.Arbitrary<SegmentNode> = fc.letrec<{ node: SegmentNode }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      condition,
      fc.record({ all: fc.array(tie("node"), { minLength: 1, maxLength: 3 }) }),
      fc.record({ any: fc.array(tie("node"), { minLength: 1, maxLength: 3 }) }),
    ),
  })).node
  const person = fc.record({
    status: fc.constantFrom(...contactStatuses),
    source: fc.constantFrom(...contactSources),
    firstName: fc.option(fc.stringMatching(/^[a-zA-Z]{0,5}$/), { nil: null }),
  }).map((fields) => contact(fields))

  const negate = (c: SegmentCondition): SegmentCondition | undefined =>
    c.field === "status" || c.field === "source"
      ? { ...c, operator: c.operator === "in" ? "notIn" : "in" }
      : c.field === "email" || c.field === "firstName" || c.field === "lastName"
      ? c.operator === "equals" ? { ...c, operator: "notEquals" }
        : c.operator === "contains" ? { ...c, operator: "notContains" }
        : undefined
      : undefined

  it("a negated operator matches exactly the contacts the plain one does not", () => {
    fc.assert(fc.property(condition, person, (c, subject) => {
      const opposite = negate(c)
      if (opposite === undefined) return
      expect(matchesSegment(subject, opposite, now)).toBe(!matchesSegment(subject, c, now))
    }))
  })

  it("a group of one is its member, all is every member, any is some member", () => {
    fc.assert(fc.property(fc.array(tree, { minLength: 1, maxLength: 4 }), person, (nodes, subject) => {
      const each = nodes.map((node) => matchesSegment(subject, node, now))
      expect(matchesSegment(subject, { all: nodes }, now)).toBe(each.every(Boolean))
      expect(matchesSegment(subject, { any: nodes }, now)).toBe(each.some(Boolean))
      expect(matchesSegment(subject, { all: [nodes[0]!] }, now)).toBe(each[0])
    }))
  })
})

describe("segmentRules validation", () => {
  it("accepts every field with its operators and normalises dates and tags", () => {
    const decoded = rules({
      any: [
        { field: "createdAt", operator: "after", value: "2024-01-01" },
        { all: [{ field: "tag", operator: "has", value: " Beta " }, { field: "phone", operator: "isSet" }] },
      ],
    })
    expect(decoded).toEqual({
      any: [
        { field: "createdAt", operator: "after", value: "2024-01-01T00:00:00.000Z" },
        { all: [{ field: "tag", operator: "has", value: "beta" }, { field: "phone", operator: "isSet" }] },
      ],
    })
    expect(countConditions(decoded)).toBe(3)
  })

  it.each([
    [{ none: [] }, "", "a group must be an object with all or any"],
    [[], "", "a group must be an object with all or any"],
    [{ all: [] }, "all", "a group needs at least one condition"],
    [{ all: [{ field: "shoeSize", operator: "equals", value: "9" }] }, "all.0.field", "field must be one of"],
    [{ all: [{ operator: "equals", value: "9" }] }, "all.0.field", "a condition needs a field"],
    [{ all: [{ field: "email", operator: "in", value: ["a"] }] }, "all.0.operator", "operator for email must be one of"],
    [{ all: [{ field: "status", operator: "equals", value: "ACTIVE" }] }, "all.0.operator", "operator for status must be one of in, notIn"],
    [{ all: [{ field: "status", operator: "in", value: ["GONE"] }] }, "all.0.value.0", "statuses are PENDING"],
    [{ all: [{ field: "status", operator: "in", value: [] }] }, "all.0.value", "at least one status"],
    [{ all: [{ field: "source", operator: "in", value: ["FAX"] }] }, "all.0.value.0", "sources are MANUAL"],
    [{ all: [{ field: "firstName", operator: "equals", value: "" }] }, "all.0.value", "value must not be empty"],
    [{ all: [{ field: "firstName", operator: "equals", value: "x".repeat(256) }] }, "all.0.value", "at most 255"],
    [{ all: [{ field: "firstName", operator: "equals" }] }, "all.0.value", "is missing"],
    [{ all: [{ field: "firstName", operator: "isSet", value: "x" }] }, "all.0.value", "is unexpected"],
    [{ all: [{ field: "customField", operator: "equals", value: "x" }] }, "all.0.key", "is missing"],
    [{ all: [{ field: "tag", operator: "has", value: "no spaces" }] }, "all.0.value", "lowercase letters"],
    [{ all: [{ field: "createdAt", operator: "before", value: "last week" }] }, "all.0.value", "ISO 8601"],
    [{ all: [{ field: "createdAt", operator: "before", value: "2024-05-01T10:00" }] }, "all.0.value", "ISO 8601"],
    [{ all: [{ field: "createdAt", operator: "withinLastDays", value: 0 }] }, "all.0.value", "between 1 and 36500"],
    [{ all: [{ field: "createdAt", operator: "withinLastDays", value: 1.5 }] }, "all.0.value", "whole number"],
    [{ all: ["status"] }, "all.0", "a condition must be an object"],
    [{ all: [{ field: "email", operator: "isSet" }], any: [] }, "any", "is unexpected"],
  ])("%j is refused at %s: %s", (input, path, message) => {
    const found = problem(input)
    expect(found.path).toBe(path)
    expect(found.message).toContain(message)
  })

  it(`refuses groups nested deeper than ${segmentLimits.depth} levels, naming the group`, () => {
    const leaf = { field: "email", operator: "isSet" }
    expect(Either.isRight(decode({ all: [{ any: [{ all: [leaf] }] }] }))).toBe(true)
    const found = problem({ all: [{ any: [{ all: [{ any: [leaf] }] }] }] })
    expect(found.path).toBe("all.0.any.0.all.0")
    expect(found.message).toContain(`at most ${segmentLimits.depth} levels`)
  })

  it(`refuses more than ${segmentLimits.groupSize} conditions in a group and ${segmentLimits.conditions} in all`, () => {
    const leaf = { field: "email", operator: "isSet" }
    expect(problem({ all: Array.from({ length: segmentLimits.groupSize + 1 }, () => leaf) }).message)
      .toContain(`at most ${segmentLimits.groupSize} conditions`)
    const wide = { all: Array.from({ length: 3 }, () => ({ any: Array.from({ length: 40 }, () => leaf) })) }
    expect(problem(wide).message).toContain(`at most ${segmentLimits.conditions} conditions in all`)
    expect(Either.isRight(decode({ all: Array.from({ length: 2 }, () => ({ any: Array.from({ length: 50 }, () => leaf) })) })))
      .toBe(true)
  })
})
