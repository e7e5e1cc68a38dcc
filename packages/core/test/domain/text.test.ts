import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  escapeLike, foldText, isWellFormedText, type LikeShape, likePattern, matchesLike, parseEmail, textProblem,
  textProblemIn,
} from "../../src/index.js"

describe("foldText", () => {
  // The table of docs/contacts.md: what each case folds to.
  it.each([
    ["ÉMILE", "émile"],
    ["émile", "émile"],
    ["E\u0301MILE", "émile"],
    ["Straße", "strasse"],
    ["STRASSE", "strasse"],
    ["ẞ", "ss"],
    ["ΟΔΥΣΣΕΥΣ", "οδυσσευσ"],
    ["οδυσσευς", "οδυσσευσ"],
    ["ПРИВЕТ", "привет"],
    ["İSTANBUL", "i\u0307stanbul"],
    ["KIRMIZI", "kirmizi"],
    ["kırmızı", "kirmizi"],
    ["ﬁle", "file"],
    ["Ada Lovelace", "ada lovelace"],
  ])("%s folds to %s", (text, folded) => {
    expect(foldText(text)).toBe(folded)
  })

  it("is idempotent and the same for a text and its upper- and lower-cased forms", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme" }), (text) => {
      const folded = foldText(text)
      expect(foldText(folded)).toBe(folded)
      expect(foldText(text.toUpperCase())).toBe(folded)
      expect(foldText(text.toLowerCase())).toBe(folded)
    }), { numRuns: 2_000 })
  })

  it("leaves addresses as they are: they are ASCII and lower-cased already", () => {
    fc.assert(fc.property(fc.emailAddress(), (raw) => {
      const address = parseEmail(raw)
      if (address !== undefined) expect(foldText(address)).toBe(address)
    }))
  })
})

describe("LIKE patterns", () => {
  it("escape the characters LIKE treats specially, and nothing else", () => {
    expect(escapeLike("50%_off\\now")).toBe("50\\%\\_off\\\\now")
    expect(likePattern("a%", "contains")).toBe("%a\\%%")
    expect(likePattern("a", "startsWith")).toBe("a%")
    expect(likePattern("a", "endsWith")).toBe("%a")
    expect(likePattern("a_", "equals")).toBe("a\\_")
  })

  /** LIKE with ESCAPE '\' evaluated by a regular expression, as SQL evaluates it. */
  const like = (subject: string, pattern: string) => {
    let source = ""
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern[i]!
      if (c === "\\") source += pattern[++i]!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      else if (c === "%") source += "[\\s\\S]*"
      else if (c === "_") source += "[\\s\\S]"
      else source += c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    }
    return new RegExp(`^${source}$`, "u").test(subject)
  }

  it("match exactly what matchesLike says, for any text", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "b", "%", "_", "\\", "é") })
    fc.assert(fc.property(text, text, fc.constantFrom<LikeShape>("contains", "startsWith", "endsWith", "equals"),
      (subject, needle, shape) => {
        expect(like(subject, likePattern(needle, shape))).toBe(matchesLike(subject, needle, shape))
      }), { numRuns: 3_000 })
  })
})

describe("well-formed text", () => {
  it("finds the first lone surrogate, in a value or a key, and names its path", () => {
    expect(isWellFormedText("a\ud83d\ude00b")).toBe(true)
    expect(isWellFormedText("a\ud800b")).toBe(false)
    expect(isWellFormedText("\udc00")).toBe(false)
    const pathOf = (value: unknown) => textProblemIn(value)?.path
    expect(pathOf({ firstName: "ok", tags: ["x", "\ud800"] })).toEqual(["tags", "1"])
    expect(pathOf({ customFields: { "\udfff": "v" } })).toEqual(["customFields"])
    expect(pathOf({ contacts: [{ email: "a@b.co", lastName: "\ud800\ud800" }] })).toEqual(["contacts", "0", "lastName"])
    expect(pathOf({ metadata: { note: "\ud83d\ude00" } })).toBeUndefined()
    expect(pathOf("\ud800")).toEqual([])
  })

  it("finds a NUL character (U+0000) in a value or a key, and nothing in text without one", () => {
    const nul = { path: ["contacts", "1", "firstName"], problem: "must not contain NUL characters (U+0000)" }
    expect(textProblemIn({ contacts: [{ firstName: "Ada" }, { firstName: "Bo\u0000b" }] })).toEqual(nul)
    expect(textProblemIn({ metadata: { "k\u0000": 1 } })?.path).toEqual(["metadata"])
    expect(textProblem("\u0000")).toBe("must not contain NUL characters (U+0000)")
    expect(textProblem("a\ud800\u0000")).toMatch(/lone UTF-16 surrogate/)
    fc.assert(fc.property(fc.string({ unit: "grapheme" }), (text) => {
      expect(textProblem(text) === undefined).toBe(!text.includes("\u0000"))
      expect(textProblem(`${text}\u0000${text}`)).toBe("must not contain NUL characters (U+0000)")
    }))
  })
})
