import { describe, expect, it } from "vitest"
import type { AccountId } from "../../src/domain/account.js"
import { fannedOutDelivery, type WebhookId } from "../../src/domain/webhook.js"
import { makeFreshDeliveries } from "../../src/services/webhook-queue.js"

const delivery = (n: number) =>
  fannedOutDelivery(
    { id: `evt_${n}`, accountId: "acc_1" as AccountId, type: "contact.subscribed", payload: `{"n":${n}}` },
    "wh_1" as WebhookId,
    new Date(1_000),
  )

describe("makeFreshDeliveries", () => {
  it("answers the deliveries named, in the order named, once", () => {
    const fresh = makeFreshDeliveries({ count: 10, ageMs: 1_000 })
    const [a, b, c] = [delivery(1), delivery(2), delivery(3)]
    fresh.put([a, b, c], 5_000)
    expect(fresh.take([c.id, a.id], 5_500)).toEqual([c, a])
    expect(fresh.take([c.id], 5_500)).toBeUndefined()
    expect(fresh.take([b.id], 5_500)).toEqual([b])
  })

  it("answers none unless every delivery named is kept, and keeps none of them after", () => {
    const fresh = makeFreshDeliveries({ count: 10, ageMs: 1_000 })
    const [a, b] = [delivery(1), delivery(2)]
    fresh.put([a], 5_000)
    expect(fresh.take([a.id, b.id], 5_000)).toBeUndefined()
    expect(fresh.take([a.id], 5_000)).toBeUndefined()
  })

  it("answers none for deliveries kept longer than the age limit", () => {
    const fresh = makeFreshDeliveries({ count: 10, ageMs: 1_000 })
    const [a, b] = [delivery(1), delivery(2)]
    fresh.put([a], 5_000)
    fresh.put([b], 5_500)
    expect(fresh.take([b.id], 6_500)).toEqual([b])
    expect(fresh.take([a.id], 6_001)).toBeUndefined()
  })

  it("drops the oldest beyond the count", () => {
    const fresh = makeFreshDeliveries({ count: 2, ageMs: 1_000 })
    const [a, b, c] = [delivery(1), delivery(2), delivery(3)]
    fresh.put([a, b], 5_000)
    fresh.put([c], 5_001)
    expect(fresh.take([a.id], 5_002)).toBeUndefined()
    expect(fresh.take([b.id, c.id], 5_002)).toEqual([b, c])
  })
})
