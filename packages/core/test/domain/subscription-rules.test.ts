import { describe, expect, it } from "vitest"
import { confirmationStep, subscribeChanged } from "../../src/domain/subscription.js"

const at = new Date("2026-01-10T00:00:00Z")
const later = { expiresAt: new Date("2026-01-12T00:00:00Z") }
const past = { expiresAt: new Date("2026-01-09T00:00:00Z") }

describe("what a subscribe call does about the double opt-in link (confirmationStep)", () => {
  it.each([
    ["a new contact with double opt-in", true, null, undefined, "send"],
    ["a PENDING contact whose link still holds", true, "PENDING", later, "outstanding"],
    ["a PENDING contact whose link expired", true, "PENDING", past, "send"],
    ["a PENDING contact with no link", true, "PENDING", undefined, "send"],
    ["an UNSUBSCRIBED contact coming back with double opt-in", true, "UNSUBSCRIBED", undefined, "send"],
    ["an ACTIVE contact (doubleOptIn ignored) with a stale pending row", false, "ACTIVE", later, "withdraw"],
    ["a single opt-in with nothing pending", false, "PENDING", undefined, "none"],
  ] as const)("%s: %s", (_, requires, status, pending, expected) => {
    expect(confirmationStep(requires, status, pending, at)).toBe(expected)
  })
})

describe("whether a subscribe call changed anything (subscribeChanged)", () => {
  const nothing = {
    created: false, statusChanged: false, decision: { resubscribed: false, liftSuppression: false }, listsJoined: 0, topicsOptedIn: 0,
  }
  it("a repeat that changes nothing is no change", () => {
    expect(subscribeChanged(nothing)).toBe(false)
  })
  it.each([
    ["created", { created: true }],
    ["status changed", { statusChanged: true }],
    ["resubscribed", { decision: { resubscribed: true, liftSuppression: false } }],
    ["suppression lifted", { decision: { resubscribed: false, liftSuppression: true } }],
    ["a list joined", { listsJoined: 1 }],
    ["a topic opted into", { topicsOptedIn: 1 }],
  ])("%s is a change", (_, change) => {
    expect(subscribeChanged({ ...nothing, ...change })).toBe(true)
  })
})
