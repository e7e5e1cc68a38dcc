import { Either, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { allowedMoves, contactStatuses, CreateContactInput, type ContactStatus } from "../../src/index.js"
import { mergeTags, moveStatus } from "../../src/domain/contact.js"

// The spec's table, audience "Contact status changed with PATCH /contacts/{id}", copied row by row.
const specTable: Array<[ContactStatus, Array<ContactStatus>]> = [
  ["PENDING", ["ACTIVE", "UNSUBSCRIBED", "CLEANED"]],
  ["ACTIVE", ["UNSUBSCRIBED", "BOUNCED", "COMPLAINED", "CLEANED"]],
  ["UNSUBSCRIBED", ["ACTIVE", "PENDING"]],
  ["BOUNCED", ["ACTIVE"]],
  ["COMPLAINED", []],
  ["CLEANED", []],
]

describe("contact status moves", () => {
  it.each(specTable)("from %s the allowed moves are %j", (from, to) => {
    expect([...allowedMoves[from]].sort()).toEqual([...to].sort())
  })

  it.each(contactStatuses.flatMap((from) => contactStatuses.map((to) => [from, to] as const)))(
    "%s -> %s is allowed exactly when the table lists it (or stays put)",
    (from, to) => {
      const allowed = from === to || specTable.find(([f]) => f === from)![1].includes(to)
      const result = moveStatus(from, to)
      expect(Either.isRight(result)).toBe(allowed)
      if (Either.isLeft(result)) {
        expect(result.left.code).toBe("INVALID_STATUS_TRANSITION")
        expect(result.left.message).toContain(from)
      }
    },
  )
})

describe("tags", () => {
  it("merging keeps existing tags, folds duplicates and refuses more than 50", () => {
    fc.assert(fc.property(
      fc.uniqueArray(fc.stringMatching(/^[a-z0-9]{1,8}$/), { maxLength: 60 }),
      fc.uniqueArray(fc.stringMatching(/^[a-z0-9]{1,8}$/), { maxLength: 60 }),
      (existing, added) => {
        const union = new Set([...existing, ...added])
        const result = mergeTags(existing, added)
        if (union.size > 50) {
          expect(Either.isLeft(result) && result.left.code).toBe("TAG_LIMIT_EXCEEDED")
        } else {
          expect(Either.getOrThrow(result)).toEqual([...union])
        }
      },
    ))
  })
})

describe("POST /contacts input", () => {
  const decode = Schema.decodeUnknownEither(CreateContactInput, { onExcessProperty: "error" })

  it("lower-cases and trims the address", () => {
    expect(Either.getOrThrow(decode({ email: "  Ada@Example.COM " })).email).toBe("ada@example.com")
  })

  it.each([
    ["no at sign", { email: "ada.example.com" }],
    ["a space inside", { email: "ada lovelace@example.com" }],
    ["a name over 100 characters", { email: "a@example.com", firstName: "x".repeat(101) }],
    ["a phone that is not E.164", { email: "a@example.com", phone: "555-0123" }],
    ["metadata over 4 KB", { email: "a@example.com", metadata: { blob: "x".repeat(4100) } }],
    ["51 tags", { email: "a@example.com", tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }],
    ["a tag with a space", { email: "a@example.com", tags: ["two words"] }],
    ["an unknown status", { email: "a@example.com", status: "GONE" }],
    ["an unknown field", { email: "a@example.com", nickname: "ada" }],
  ])("refuses %s", (_, input) => {
    expect(Either.isLeft(decode(input))).toBe(true)
  })
})
