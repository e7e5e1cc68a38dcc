import { describe, expect, it } from "vitest"
import { idTime, makeRandomIds } from "../../src/ports/ids.js"

describe("makeRandomIds", () => {
  it("ids made in the same millisecond sort in the order they were made, and keep that millisecond", () => {
    const ids = makeRandomIds()
    const at = new Date("2026-01-01T00:00:00.000Z")
    const made = Array.from({ length: 1_000 }, () => ids.make("list", at))
    expect([...made].sort()).toEqual(made)
    expect(new Set(made).size).toBe(made.length)
    for (const id of made) expect(idTime(id)).toEqual(at)
  })

  it("a later millisecond sorts after an earlier one", () => {
    const ids = makeRandomIds()
    const first = ids.make("list", new Date(1_000))
    const second = ids.make("list", new Date(1_001))
    expect(first < second).toBe(true)
  })
})
