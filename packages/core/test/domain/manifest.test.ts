import { describe, expect, it } from "vitest"
import { assetReferences, canonicalJson, manifestLimits, manifestOverLimit, manifestSource, manifestVersion } from "../../src/domain/manifest.js"

const hash = "a".repeat(64)
const content = {
  brands: [{ key: "brd_1", name: "Acme", colors: { primary: "#112233", text: "#000000" } }],
  designs: [{ key: "welcome", locale: "en", brand: "brd_1", draft: { name: "W", subject: "Hi", html: "<p>x</p>" }, live: null }],
  assets: [{ id: null, hash, url: `https://mail.example.com/assets/${hash}.png`, contentType: "image/png" as const, width: 1, height: 1 }],
}

describe("manifest version", () => {
  it("is the same for the same content whatever its key order, and changes when a draft changes", () => {
    const reordered = { ...content, brands: [{ colors: { text: "#000000", primary: "#112233" }, name: "Acme", key: "brd_1" }] }
    expect(manifestVersion(reordered)).toBe(manifestVersion(content))
    const edited = { ...content, designs: [{ ...content.designs[0]!, draft: { ...content.designs[0]!.draft, subject: "Hello" } }] }
    expect(manifestVersion(edited)).not.toBe(manifestVersion(content))
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}')
  })

  it("names its source without showing the account's id", () => {
    expect(manifestSource("acc_123", "account")).toMatch(/^src_[0-9a-f]{32}$/)
    expect(manifestSource("acc_123", "account")).not.toContain("acc_123")
    expect(manifestSource("acc_123", "shop")).not.toBe(manifestSource("acc_123", "account"))
  })
})

describe("manifest limits", () => {
  const design = (blocks: number) => ({ draft: { blocks: Array.from({ length: blocks }, () => ({ type: "spacer", height: 8 })) } })
  it("counts templates, blocks (columns' blocks too) and bytes before decoding", () => {
    expect(manifestOverLimit({ manifest: { designs: [design(500)] } })).toBeUndefined()
    expect(manifestOverLimit({ manifest: { designs: [design(501)] } })?.field).toBe("manifest.designs[0].draft.blocks")
    const columns = { draft: { blocks: [...Array.from({ length: 497 }, () => ({ type: "divider" })), { type: "columns", columns: [[{ type: "divider" }], [{ type: "divider" }, { type: "divider" }]] }] } }
    expect(manifestOverLimit({ manifest: { designs: [columns] } })?.field).toBe("manifest.designs[0].draft.blocks")
    expect(manifestOverLimit({ manifest: { designs: Array.from({ length: 100 }, () => design(1)) } })).toBeUndefined()
    expect(manifestOverLimit({ manifest: { designs: Array.from({ length: 101 }, () => design(1)) } })?.field).toBe("manifest.designs")
    expect(manifestOverLimit({ manifest: { designs: [], padding: "x".repeat(manifestLimits.bytes) } })?.field).toBe("manifest")
  })
})

describe("asset references", () => {
  it("finds the asset files a value shows under APP_URL, once each", () => {
    const other = "b".repeat(64)
    const value = { html: `<img src="https://mail.example.com/assets/${hash}.png"><img src="https://mail.example.com/assets/${hash}.png">`, logo: `https://mail.example.com/assets/${other}.jpg`, elsewhere: `https://cdn.example.com/assets/${"c".repeat(64)}.png` }
    expect(assetReferences("https://mail.example.com/", value)).toEqual([{ hash, format: "png" }, { hash: other, format: "jpeg" }])
  })
})
