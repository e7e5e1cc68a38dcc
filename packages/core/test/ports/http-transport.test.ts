import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { HttpTransport, type PinnedPost } from "../../src/ports/http-transport.js"

const request = (body: string): PinnedPost => ({
  url: new URL("https://hooks.example.com/in"),
  address: "93.184.216.34",
  headers: {},
  body,
  timeoutMs: 10_000,
  maxResponseBytes: 100,
})

describe("HttpTransport without an engine", () => {
  it("fails each POST saying that no transport is configured", async () => {
    const transport = await Effect.runPromise(HttpTransport)
    const outcome = await Effect.runPromise(Effect.either(transport.post(request("x"))))
    expect(Either.isLeft(outcome) ? outcome.left.detail : "answered").toBe("no HTTP transport is configured")
  })
})
