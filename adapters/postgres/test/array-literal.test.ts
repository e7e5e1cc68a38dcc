/** Array parameters written as literals in one pass (array-literal.ts): Postgres reads each literal as the array that
 *  pg's own writer would have sent, and the arrays the fast path cannot write are left to pg. */
import { findTestPostgres } from "@mailroom/testing"
import fc from "fast-check"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { arrayLiteral, withArrayLiterals } from "../src/array-literal.js"

const url = await findTestPostgres()

describe("arrayLiteral", () => {
  it("writes strings, nulls, booleans and safe integers as an array literal", () => {
    expect(arrayLiteral(["a", "say \"hi\"", "back\\slash", "", "NULL", null, undefined])).toBe(
      String.raw`{"a","say \"hi\"","back\\slash","","NULL",null,null}`)
    expect(arrayLiteral([1, -2, 1_700_000_000_000, null])).toBe("{1,-2,1700000000000,null}")
    expect(arrayLiteral([true, false])).toBe("{true,false}")
    expect(arrayLiteral([])).toBe("{}")
  })

  it("leaves to pg what JSON would write otherwise: control characters, lone surrogates, dates, nested arrays, other numbers", () => {
    for (const values of [["line\nbreak"], ["tab\t"], ["nul\u0000"], ["\ud800 alone"], [new Date(0)], [["nested"]], [1.5], [2 ** 53], [Number.NaN], [{ a: 1 }], [Buffer.from("x")]]) {
      expect(arrayLiteral(values)).toBeUndefined()
    }
    // A surrogate pair is a character like any other.
    expect(arrayLiteral(["emoji \ud83d\ude00"])).toBe("{\"emoji \ud83d\ude00\"}")
  })

  it("replaces only the arrays it can write, and answers the same parameters when there are none", () => {
    const params = ["plain", ["a", "b"], [new Date(0)], 3]
    expect(withArrayLiterals(params)).toEqual(["plain", "{\"a\",\"b\"}", [new Date(0)], 3])
    expect(params[1]).toEqual(["a", "b"])
    const none = ["plain", 3]
    expect(withArrayLiterals(none)).toBe(none)
  })
})

describe.skipIf(url === undefined)("arrayLiteral on Postgres", () => {
  let client: pg.Client
  beforeAll(async () => {
    client = new pg.Client({ connectionString: url! })
    await client.connect()
  })
  afterAll(() => client.end())

  /** What Postgres reads from `value` as a `type` array. */
  const read = async (value: unknown, type: string) =>
    (await client.query<{ v: unknown }>(`SELECT $1::${type}[] AS v`, [value])).rows[0]!.v

  const tricky = fc.constantFrom("", "NULL", "null", "{}", "{a,b}", "\"", "\\", "\\\"", "a\\nb", "a,b", " padded ", "é ñ 中文", "\ud83d\ude00", "\ud800",
    "line\nbreak", "\u007f", "{\"eventType\":\"list.member_added\",\"details\":{\"email\":\"a@example.com\"}}")
  const text = fc.oneof(tricky, fc.string({ unit: "binary" }).filter((s) => !s.includes("\u0000")), fc.constant(null))

  it("Postgres reads each literal as the array pg writes itself (text, JSON bodies included)", async () => {
    await fc.assert(fc.asyncProperty(fc.array(text, { maxLength: 12 }), async (values) => {
      const literal = arrayLiteral(values)
      const expected = await read(values, "text")
      expect(await read(literal ?? values, "text")).toEqual(expected)
      expect(expected).toEqual(values.map((value) => value === null ? null : Buffer.from(value, "utf8").toString("utf8")))
    }), { numRuns: 300 })
  })

  it("reads integers, bigints and booleans as pg writes them", async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { nil: null })), async (values) => {
      expect(await read(arrayLiteral(values), "integer")).toEqual(await read(values, "integer"))
    }), { numRuns: 100 })
    const millis = [0, 1_700_000_000_000, Number.MAX_SAFE_INTEGER, null]
    expect(await read(arrayLiteral(millis), "bigint")).toEqual(await read(millis, "bigint"))
    expect(await read(arrayLiteral([true, false, null]), "boolean")).toEqual([true, false, null])
  })
})
