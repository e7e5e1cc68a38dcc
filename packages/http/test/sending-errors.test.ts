import { IdempotencyKeyReused, PayloadTooLarge, QuotaExceeded } from "@mailroom/core"
import { describe, expect, it } from "vitest"
import { errorResponse } from "../src/index.js"

describe("sending errors over HTTP", () => {
  it("QUOTA_EXCEEDED answers 429 with the reset date in the context", async () => {
    const response = errorResponse(new QuotaExceeded({ limit: 3000, used: 2999, requested: 2, resetsAt: new Date("2026-04-01T00:00:00Z") }))
    expect(response.status).toBe(429)
    const body = await response.json() as { error: Record<string, unknown> }
    expect(body.error).toMatchObject({
      code: "QUOTA_EXCEEDED",
      context: { resets_at: "2026-04-01T00:00:00.000Z", limit: 3000, used: 2999 },
    })
    expect(String(body.error["message"])).toContain("2026-04-01")
  })

  it("a body over its limit answers 413 naming the field", async () => {
    const response = errorResponse(new PayloadTooLarge({ limitBytes: 1048576, field: "content.html" }))
    expect(response.status).toBe(413)
    const body = await response.json() as { error: Record<string, unknown> }
    expect(body.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", context: { field: "content.html" } })
    expect(String(body.error["message"])).toBe("content.html is larger than 1048576 bytes")
  })

  it("IDEMPOTENCY_KEY_REUSED answers 409", async () => {
    const response = errorResponse(new IdempotencyKeyReused({ key: "order-7" }))
    expect(response.status).toBe(409)
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("IDEMPOTENCY_KEY_REUSED")
  })
})
