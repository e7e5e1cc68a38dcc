import { CreateContactInput } from "@mailroom/core"
import { Effect, Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { decodeInput } from "../src/index.js"

const failure = async <A, I>(schema: Schema.Schema<A, I, never>, input: unknown, options = {}) => {
  const result = await Effect.runPromise(Effect.either(decodeInput(schema, input, options)))
  if (Either.isRight(result)) throw new Error("the input was accepted")
  return { field: result.left.field, message: result.left.message, code: result.left.code }
}

const Nested = Schema.Struct({
  items: Schema.Array(Schema.Struct({ email: Schema.String, count: Schema.optional(Schema.Number) })),
})

describe("decoding input", () => {
  it("names a missing field", async () => {
    expect(await failure(CreateContactInput, {})).toEqual({ field: "email", message: "email: is required", code: "VALIDATION_ERROR" })
  })

  it("names an unknown field and lists the known ones", async () => {
    const { field, message } = await failure(CreateContactInput, { email: "a@example.com", nickname: "x" })
    expect(field).toBe("nickname")
    expect(message).toMatch(/^nickname: is not a known field; known fields are email \| firstName/)
  })

  it("drops unknown fields when asked to", async () => {
    const result = await Effect.runPromise(decodeInput(CreateContactInput, { email: "a@example.com", extra: 1 }, { onExcessProperty: "ignore" }))
    expect(result).toEqual({ email: "a@example.com" })
  })

  it("names every alternative of a literal union, and the value received", async () => {
    const { field, message } = await failure(CreateContactInput, { email: "a@example.com", status: "GONE" })
    expect(field).toBe("status")
    expect(message).toBe("status: must be \"PENDING\" or \"ACTIVE\" or \"UNSUBSCRIBED\" or \"BOUNCED\" or \"COMPLAINED\" or \"CLEANED\", got \"GONE\"")
  })

  it("says a nullable field takes its type or null", async () => {
    expect((await failure(CreateContactInput, { email: "a@example.com", firstName: 5 })).message).toBe("firstName: must be string or null, got 5")
  })

  it("keeps the schema's own wording for refinements", async () => {
    const { field, message } = await failure(CreateContactInput, { email: "a@example.com", firstName: "x".repeat(101) })
    expect({ field, message }).toEqual({ field: "firstName", message: "firstName: must be at most 100 characters" })
  })

  it("gives the dotted path of a nested problem", async () => {
    expect((await failure(Nested, { items: [{ email: "a" }, { email: "b", count: "2" }] })).field).toBe("items.1.count")
  })

  it("names the field once when the schema's message starts with it", async () => {
    const Limit = Schema.Struct({ limit: Schema.Number.pipe(Schema.lessThan(10, { message: () => "limit must be below 10" })) })
    expect((await failure(Limit, { limit: 12 })).message).toBe("limit: must be below 10")
  })

  it("has no field when the whole input is wrong", async () => {
    expect((await failure(Schema.String, 42)).field).toBeUndefined()
  })
})
