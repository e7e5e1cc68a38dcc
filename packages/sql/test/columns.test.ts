/** Column codecs: what each driver answers decodes to the domain's values, and anything else is refused. */
import { EventType } from "@mailroom/core"
import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { LiteralColumn } from "../src/internal/columns.js"

describe("LiteralColumn", () => {
  const decode = Schema.decodeUnknownEither(LiteralColumn(EventType))

  it("accepts each literal of its schema, as is", () => {
    for (const type of EventType.literals) expect(decode(type)).toEqual(Either.right(type))
  })

  it("refuses any other value, naming the literals it expected", () => {
    for (const value of ["email.unknown", "", "EMAIL.DELIVERED", 1, null, undefined, { type: "email.delivered" }]) {
      const result = decode(value)
      expect(Either.isLeft(result)).toBe(true)
      if (Either.isLeft(result)) expect(result.left.message).toContain("email.delivered")
    }
  })
})
