import { describe, expect, it } from "vitest"
import { csvCell, csvRow } from "../src/index.js"

describe("CSV cells", () => {
  it.each(["=1+2", "+1", "-1", "@SUM(A1)", "\tTAB", "\rCR"])("prefixes %j with a single quote so no spreadsheet runs it", (value) => {
    expect(csvCell(value).replace(/^"|"$/g, "").startsWith(`'${value[0]}`)).toBe(true)
  })

  it.each(["plain", "1=2", "a+b", "x-y", "mail@example.com", ""])("leaves %j as it is", (value) => {
    expect(csvCell(value)).toBe(value)
  })

  it.each([
    ["a,b", "\"a,b\""],
    ["say \"hi\"", "\"say \"\"hi\"\"\""],
    ["two\nlines", "\"two\nlines\""],
    ["cr\rinside", "\"cr\rinside\""],
    ["=\"x\",1", "\"'=\"\"x\"\",1\""],
  ])("quotes %j as RFC 4180 asks", (value, expected) => {
    expect(csvCell(value)).toBe(expected)
  })

  it("ends each record with CRLF", () => {
    expect(csvRow(["a", "b,c", ""])).toBe("a,\"b,c\",\r\n")
  })
})
