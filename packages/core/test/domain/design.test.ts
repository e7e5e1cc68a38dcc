import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  type AccountId, changeLifecycle, checkDesignRoom, decodeCursor, type DesignId, DraftInput, encodeCursor, newDesign,
  sendableVersion, VariablesSchema,
} from "../../src/index.js"

const design = newDesign({
  id: "tpl_a" as DesignId, accountId: "acc_1" as AccountId, applicationKey: "account", key: "welcome", locale: "en",
  draft: { name: "W", subject: "S", format: "html", html: "<p>x</p>", text: null, category: null, variables: {} },
  brandId: null, at: new Date(0),
})

describe("sendableVersion (sending rule 5, Design rows of States and transitions)", () => {
  it.each([
    ["never published", design, "TEMPLATE_NOT_PUBLISHED"],
    ["retired, with a replacement", changeLifecycle({ ...design, liveVersion: 2 }, "retire", "tpl_b" as DesignId, new Date(1)), "TEMPLATE_RETIRED"],
    ["retired before any publish", changeLifecycle(design, "retire", null, new Date(1)), "TEMPLATE_RETIRED"],
  ] as const)("%s: refused with %s", (_, subject, code) => {
    const result = sendableVersion(subject)
    expect(Either.isLeft(result) && result.left.code).toBe(code)
  })

  it("a published design sends its live version; the retired error names the replacement", () => {
    expect(sendableVersion({ ...design, status: "published", liveVersion: 3 })).toEqual(Either.right(3))
    const retired = sendableVersion(changeLifecycle({ ...design, liveVersion: 2 }, "retire", "tpl_b" as DesignId, new Date(1)))
    expect(Either.isLeft(retired) && retired.left.message).toContain("tpl_b")
  })
})

describe("checkDesignRoom (Limits: Studio templates)", () => {
  it.each([
    ["free", 0, "PLAN_UPGRADE_REQUIRED"], ["starter", 0, "PLAN_UPGRADE_REQUIRED"],
    ["micro", 24, null], ["micro", 25, "API_KEY_LIMIT_REACHED"], ["pro", 99, null], ["pro", 100, "API_KEY_LIMIT_REACHED"],
    ["scale", 499, null], ["scale", 500, "API_KEY_LIMIT_REACHED"], ["enterprise", 100_000, null],
  ] as const)("%s holding %i: %s", (plan, count, code) => {
    const result = checkDesignRoom(plan, count)
    expect(Either.isLeft(result) ? result.left.code : null).toBe(code)
  })
})

describe("draft and variables schemas", () => {
  const decode = (input: unknown) => Schema.decodeUnknownEither(DraftInput)(input)
  it("a draft needs html or text, a subject of 1-998 characters", () => {
    expect(Either.isRight(decode({ name: "n", subject: "s", html: "<p/>" }))).toBe(true)
    expect(Either.isRight(decode({ name: "n", subject: "s", text: "t" }))).toBe(true)
    expect(Either.isLeft(decode({ name: "n", subject: "s" }))).toBe(true)
    expect(Either.isLeft(decode({ name: "n", subject: "x".repeat(999), html: "<p/>" }))).toBe(true)
  })
  it("variables: identifiers only, items only on arrays, `theme` reserved", () => {
    const ok = (variables: unknown) => Either.isRight(Schema.decodeUnknownEither(VariablesSchema)(variables))
    expect(ok({ first_name: { type: "string", required: true, example: "Ada" } })).toBe(true)
    expect(ok({ items: { type: "array", items: { url: { type: "string", format: "url" } } } })).toBe(true)
    expect(ok({ "first-name": { type: "string" } })).toBe(false)
    expect(ok({ theme: { type: "object" } })).toBe(false)
    expect(ok({ name: { type: "string", items: { a: { type: "string" } } } })).toBe(false)
    expect(ok({ name: { type: "date" } })).toBe(false)
  })
})

describe("list cursor", () => {
  it("round-trips an id and refuses anything else", () => {
    expect(decodeCursor(encodeCursor("tpl_01abc"))).toBe("tpl_01abc")
    expect(decodeCursor("nonsense")).toBeUndefined()
  })
})
