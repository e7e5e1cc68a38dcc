/** Bad tokens against the Tokens service on every backend: forged, tampered, truncated, of another purpose, expired
 *  under TestClock. Each is INVALID_TOKEN from `verify`; `inspect` still reads a genuine expired token (so that a page
 *  can offer a new link) and refuses everything else. */
import { describe, expect } from "@effect/vitest"
import { Tokens } from "@mailroom/core"
import { Effect, TestClock } from "effect"
import type { ConsentTester } from "./support.js"

const subject = { accountId: "acc_tokens", recipient: "ada@example.com", listId: "lst_1" }

/** The token with its payload's claims changed and the old signature kept. */
const tamper = (token: string, change: Record<string, unknown>) => {
  const [payload, signature] = token.split(".") as [string, string]
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>
  return `${Buffer.from(JSON.stringify({ ...claims, ...change })).toString("base64url")}.${signature}`
}

export const tokenInputTests = (it: ConsentTester) => {
  describe("Tokens service: bad tokens", () => {
    it.effect("forged, tampered, truncated and malformed tokens are INVALID_TOKEN for verify and inspect", () =>
      Effect.gen(function* () {
        const tokens = yield* Tokens
        const { token } = yield* tokens.make("unsubscribe", subject)
        const bad = [
          `${token.split(".")[0]}.${"A".repeat(43)}`,
          tamper(token, { r: "eve@example.com" }),
          tamper(token, { a: "acc_other" }),
          tamper(token, { e: Number.MAX_SAFE_INTEGER }),
          token.slice(0, -1),
          token.split(".")[0]!,
          `${token}.extra`,
          "",
          "not a token",
        ]
        for (const candidate of bad) {
          expect((yield* Effect.flip(tokens.verify("unsubscribe", candidate))).code, candidate).toBe("INVALID_TOKEN")
          expect((yield* Effect.flip(tokens.inspect("unsubscribe", candidate))).code, candidate).toBe("INVALID_TOKEN")
        }
        expect((yield* tokens.verify("unsubscribe", token)).r).toBe("ada@example.com")
      }))

    it.effect("a token is accepted for its own purpose only", () =>
      Effect.gen(function* () {
        const tokens = yield* Tokens
        for (const purpose of ["confirm", "unsubscribe", "preferences"] as const) {
          const { token } = yield* tokens.make(purpose, subject)
          for (const other of ["confirm", "unsubscribe", "preferences"] as const) {
            if (other === purpose) continue
            expect((yield* Effect.flip(tokens.verify(other, token))).code).toBe("INVALID_TOKEN")
            expect((yield* Effect.flip(tokens.inspect(other, token))).code).toBe("INVALID_TOKEN")
          }
        }
      }))

    it.effect("inspect reads an expired genuine token and says it expired; verify refuses it", () =>
      Effect.gen(function* () {
        const tokens = yield* Tokens
        const { token } = yield* tokens.make("confirm", { ...subject, nonce: "n1" })
        expect((yield* tokens.inspect("confirm", token)).expired).toBe(false)
        yield* TestClock.adjust("7 days")
        const inspected = yield* tokens.inspect("confirm", token)
        expect(inspected.expired).toBe(true)
        expect(inspected.claims).toMatchObject({ a: "acc_tokens", r: "ada@example.com", n: "n1" })
        expect((yield* Effect.flip(tokens.verify("confirm", token))).message).toContain("expired")
      }))
  })
}
