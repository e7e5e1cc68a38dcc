import { describe, expect, it } from "vitest"
import { createMailroom, defaultDatabase, parseDatabase } from "../src/index.js"

describe("the database URL", () => {
  it.each([
    ["memory:", { kind: "memory" }],
    ["sqlite:.data/mailroom.sqlite", { kind: "sqlite", filename: ".data/mailroom.sqlite" }],
    ["sqlite:///var/lib/mailroom.db", { kind: "sqlite", filename: "/var/lib/mailroom.db" }],
    ["sqlite::memory:", { kind: "sqlite", filename: ":memory:" }],
    ["postgres://mailroom:pw@db:5432/mailroom", { kind: "postgres", url: "postgres://mailroom:pw@db:5432/mailroom" }],
    ["postgresql://db/mailroom", { kind: "postgres", url: "postgresql://db/mailroom" }],
  ])("reads %s", (url, choice) => {
    expect(parseDatabase(url)).toEqual(choice)
  })

  it("defaults to the SQLite file of CONTRACT.md", () => {
    expect(defaultDatabase).toBe("sqlite:.data/mailroom.sqlite")
  })

  it.each(["mysql://root:hunter2@db/mailroom", "sqlite:", "", "postgres:/db"])("refuses %j at startup", (url) => {
    expect(() => createMailroom({ database: url })).toThrow(/database|sqlite/)
  })

  it("does not repeat a password from a URL it refuses", () => {
    expect(() => parseDatabase("mysql://root:hunter2@db/mailroom")).toThrow(/^(?!.*hunter2).*mysql:/)
  })
})
