/** The Tokens service on every backend: links built from the configured origins, tokens bound to their account and
 *  recipient, expiring after their lifetime under TestClock. */
import { describe, expect } from "@effect/vitest"
import { Tokens } from "@mailroom/core"
import { Effect, TestClock } from "effect"
import type { ConsentTester } from "./support.js"

export const tokenTests = (it: ConsentTester) => {
  describe("Tokens service", () => {
    it.effect("builds confirmation, unsubscribe and preference links whose tokens verify with their claims", () =>
      Effect.gen(function* () {
        const tokens = yield* Tokens
        const subject = { accountId: "acc_1", recipient: "ada@example.com", listId: "lst_1", campaignId: "cmp_1" }
        const confirmation = yield* tokens.confirmationUrl({ ...subject, nonce: "n1" })
        expect(confirmation.url).toMatch(/^http:\/\/localhost:3000\/c\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
        const claims = yield* tokens.verify("confirm", confirmation.url.split("/c/")[1]!)
        expect(claims).toMatchObject({ p: "confirm", a: "acc_1", r: "ada@example.com", l: "lst_1", c: "cmp_1", n: "n1" })
        const unsubscribe = yield* tokens.unsubscribeUrl(subject)
        expect(unsubscribe).toMatch(/\/u\//)
        expect((yield* tokens.verify("unsubscribe", unsubscribe.split("/u/")[1]!)).r).toBe("ada@example.com")
        const preferences = yield* tokens.preferencesUrl(subject)
        expect((yield* Effect.flip(tokens.verify("unsubscribe", preferences.split("/p/")[1]!))).code).toBe("INVALID_TOKEN")
      }))

    it.effect("a confirmation token expires after 7 days", () =>
      Effect.gen(function* () {
        const tokens = yield* Tokens
        const { token, expiresAt } = yield* tokens.make("confirm", { accountId: "acc_1", recipient: "bob@example.com" })
        const start = yield* TestClock.currentTimeMillis
        expect(expiresAt.getTime() - start).toBe(7 * 24 * 60 * 60 * 1000)
        yield* TestClock.adjust("6 days")
        expect((yield* tokens.verify("confirm", token)).r).toBe("bob@example.com")
        yield* TestClock.adjust("1 day")
        const expired = yield* Effect.flip(tokens.verify("confirm", token))
        expect(expired.message).toContain("expired")
      }))
  })
}
