import { describe, expect, it } from "vitest"
import { Either, Schema } from "effect"
import {
  checkBrandRoom, contrastRatio, contrastWarnings, CreateBrandInput, newBrand, normalizeColor, themeOf, updateBrand,
  type BrandId,
} from "../../src/domain/brand.js"
import type { AccountId } from "../../src/domain/account.js"
import { defaultTheme } from "../../src/domain/theme.js"

const decode = Schema.decodeUnknownEither(CreateBrandInput)
const at = new Date("2026-11-29T16:00:00.000Z")
const make = (input: unknown) => newBrand({
  id: "brd_1" as BrandId, accountId: "acc_1" as AccountId, applicationKey: "account",
  input: Either.getOrThrow(decode(input)), isDefault: false, at,
})

describe("brands", () => {
  it("contrast follows WCAG: black on white is 21:1, equal colours 1:1, and #777 on white just under 4.5", () => {
    expect(contrastRatio("#000000", "#ffffff")).toBeCloseTo(21, 5)
    expect(contrastRatio("#abcdef", "#abcdef")).toBeCloseTo(1, 5)
    expect(contrastRatio("#777777", "#ffffff")).toBeLessThan(4.5)
    expect(contrastRatio("#767676", "#ffffff")).toBeGreaterThanOrEqual(4.5)
  })

  it("the default theme meets AA on every checked pair", () => {
    expect(contrastWarnings(defaultTheme.colors)).toEqual([])
  })

  it("#rgb becomes #rrggbb, lowercase", () => {
    expect(normalizeColor("#0Af")).toBe("#00aaff")
    expect(normalizeColor("#ABCDEF")).toBe("#abcdef")
  })

  it("refuses colours that are not colours, with the field in the message", () => {
    for (const primary of ["red", "#12", "#1234567", "rgb(0,0,0)", "#ggg"]) {
      const decoded = decode({ name: "A", colors: { primary } })
      expect(Either.isLeft(decoded), primary).toBe(true)
    }
  })

  it("a new brand takes the default theme where it says nothing; themeOf gives the {{theme.*}} shape", () => {
    const brand = make({ name: "Acme", colors: { primary: "#123" }, logo: { url: "https://a.example/l.png" } })
    const theme = themeOf(brand)
    expect(theme.colors).toEqual({ ...defaultTheme.colors, primary: "#112233" })
    expect(theme.logo).toEqual({ url: "https://a.example/l.png", alt: "Acme", width: 150 })
    expect(Object.keys(theme).sort()).toEqual(Object.keys(defaultTheme).sort())
  })

  it("an update merges colours one by one, null clears, and updatedAt always moves on", () => {
    const brand = make({ name: "Acme", footer: "Hello", colors: { text: "#111111" } })
    const next = updateBrand(brand, { expectedUpdatedAt: at.toISOString(), colors: { primary: "#222222" }, footer: null }, at)
    expect(next.colors).toMatchObject({ text: "#111111", primary: "#222222" })
    expect(next.footer).toBeNull()
    expect(next.updatedAt.getTime()).toBe(at.getTime() + 1)
  })

  it("plans: none below Micro, then Micro 3, Pro 10, Scale 25", () => {
    expect(Either.isLeft(checkBrandRoom("starter", 0))).toBe(true)
    expect(Either.isRight(checkBrandRoom("micro", 2))).toBe(true)
    expect(Either.isLeft(checkBrandRoom("micro", 3))).toBe(true)
    expect(Either.isLeft(checkBrandRoom("pro", 10))).toBe(true)
    expect(Either.isRight(checkBrandRoom("scale", 24))).toBe(true)
    expect(Either.isRight(checkBrandRoom("enterprise", 1000))).toBe(true)
  })
})
