/** makeRecentCache: the values of the last keys used, the least recently used dropped first. */
import { describe, expect, it } from "vitest"
import { makeRecentCache } from "../../src/internal/recent-cache.js"

describe("makeRecentCache", () => {
  it("makes a value once per key kept, and drops the least recently used key past its size", () => {
    const dropped: Array<string> = []
    const made: Array<string> = []
    const cache = makeRecentCache<string, string>(2, (value) => dropped.push(value))
    const get = (key: string) => cache.get(key, () => {
      made.push(key)
      return `v-${key}`
    })
    expect(get("a")).toBe("v-a")
    expect(get("b")).toBe("v-b")
    // A hit makes nothing and makes "a" the most recently used: "b" goes first.
    expect(get("a")).toBe("v-a")
    expect(get("c")).toBe("v-c")
    expect(dropped).toEqual(["v-b"])
    expect(get("a")).toBe("v-a")
    expect(get("b")).toBe("v-b")
    expect(made).toEqual(["a", "b", "c", "b"])
    expect(dropped).toEqual(["v-b", "v-c"])
  })
})
