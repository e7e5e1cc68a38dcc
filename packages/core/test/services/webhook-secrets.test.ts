import { describe, expect, it } from "vitest"
import { sealSecret, unsealSecret } from "../../src/services/webhook-sender.js"

describe("webhook secrets at rest", () => {
  const a = "platform-secret-a-0123456789abcdef"
  const b = "platform-secret-b-0123456789abcdef"

  it("unseal with the MAILROOM_SECRET that sealed, again and again", () => {
    const sealed = sealSecret(a, "whsec_one")
    expect(sealed).not.toContain("whsec_one")
    expect(unsealSecret(a, sealed)).toBe("whsec_one")
    expect(unsealSecret(a, sealed)).toBe("whsec_one")
  })

  it("never unseal under another MAILROOM_SECRET, even once unsealed under the right one", () => {
    const sealed = sealSecret(a, "whsec_two")
    expect(unsealSecret(a, sealed)).toBe("whsec_two")
    expect(unsealSecret(b, sealed)).toBeUndefined()
    expect(unsealSecret(a, sealed)).toBe("whsec_two")
    expect(unsealSecret(b, sealSecret(b, "whsec_three"))).toBe("whsec_three")
  })

  it("refuse a tampered or foreign text", () => {
    const sealed = sealSecret(a, "whsec_four")
    const flipped = `${sealed.slice(0, -2)}${sealed.at(-2) === "A" ? "B" : "A"}${sealed.at(-1)}`
    expect(unsealSecret(a, flipped)).toBeUndefined()
    expect(unsealSecret(a, "whsec_plain")).toBeUndefined()
  })
})
