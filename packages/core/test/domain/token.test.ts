import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { type TokenClaims } from "../../src/index.js"
import { deriveTokenKey, signToken, verifyToken } from "../../src/domain/token.js"

const key = deriveTokenKey("secret-one", "unsubscribe")
const claims: TokenClaims = { p: "unsubscribe", a: "acc_1", r: "ada@example.com", l: "lst_1", e: 2_000 }
const token = signToken(key, claims)
const detail = (result: Either.Either<unknown, { readonly code: string; readonly message: string }>) =>
  Either.match(result, { onLeft: (error) => `${error.code}: ${error.message}`, onRight: () => "OK" })

describe("signed link tokens", () => {
  it("a token verifies with its key and purpose before it expires, and answers its claims", () => {
    expect(Either.getOrThrow(verifyToken(key, "unsubscribe", token, 1_999))).toEqual(claims)
  })

  it.each([
    ["expired", token, 2_000, "expired"],
    ["truncated", token.slice(0, -3), 1_000, "signature"],
    ["forged payload", `${Buffer.from(JSON.stringify({ ...claims, a: "acc_2" })).toString("base64url")}.${token.split(".")[1]}`, 1_000, "signature"],
    ["forged signature", `${token.split(".")[0]}.${Buffer.alloc(32).toString("base64url")}`, 1_000, "signature"],
    ["malformed", "not-a-token", 1_000, "malformed"],
    ["empty", "", 1_000, "malformed"],
    ["three parts", `${token}.x`, 1_000, "malformed"],
  ])("a %s token is INVALID_TOKEN", (_, candidate, now, why) => {
    const answer = detail(verifyToken(key, "unsubscribe", candidate, now))
    expect(answer).toMatch(/^INVALID_TOKEN: /)
    expect(answer).toContain(why)
  })

  it("a token of another purpose or signed with another secret is refused", () => {
    expect(detail(verifyToken(deriveTokenKey("secret-one", "confirm"), "confirm", token, 1_000))).toMatch(/INVALID_TOKEN/)
    const confirmKey = deriveTokenKey("secret-one", "confirm")
    const wrongPurpose = signToken(confirmKey, { ...claims, p: "confirm" })
    expect(detail(verifyToken(confirmKey, "unsubscribe", wrongPurpose, 1_000))).toContain("not a unsubscribe token")
    expect(detail(verifyToken(deriveTokenKey("secret-two", "unsubscribe"), "unsubscribe", token, 1_000))).toContain("signature")
  })

  it("a signed payload with unknown claims is refused", () => {
    const odd = signToken(key, { ...claims, x: 1 } as TokenClaims)
    expect(detail(verifyToken(key, "unsubscribe", odd, 1_000))).toContain("malformed")
  })
})
