import { describe, expect, it } from "vitest"
import { originAllowed } from "../../src/index.js"

const form = { allowedOrigins: ["https://shop.example"] }

describe("originAllowed", () => {
  it.each([
    ["the hosted page's own origin", "https://mail.example", "https://mail.example", true],
    ["an allowed origin", "https://shop.example", "https://mail.example", true],
    ["another origin", "https://evil.example", "https://mail.example", false],
    ["no origin", null, "https://mail.example", false],
    ["127.0.0.1 for an APP_URL on localhost", "http://127.0.0.1:3000", "http://localhost:3000", true],
    ["localhost for an APP_URL on 127.0.0.1", "http://localhost:3000", "http://127.0.0.1:3000", true],
    ["[::1] for an APP_URL on localhost", "http://[::1]:3000", "http://localhost:3000", true],
    ["127.0.0.2 for an APP_URL on [::1]", "http://127.0.0.2:3000", "http://[::1]:3000", true],
    ["a loopback origin on another port", "http://127.0.0.1:3001", "http://localhost:3000", false],
    ["a loopback origin with another scheme", "https://127.0.0.1:3000", "http://localhost:3000", false],
    ["a loopback origin for an APP_URL that is not loopback", "http://127.0.0.1:3000", "http://mail.example:3000", false],
    ["a public origin for an APP_URL on localhost", "http://mail.example:3000", "http://localhost:3000", false],
    ["a host that only starts like a loopback one", "http://127.0.0.1.evil.example:3000", "http://localhost:3000", false],
  ] as const)("%s: %s", (_name, origin, ownOrigin, allowed) => {
    expect(originAllowed(form, origin, ownOrigin)).toBe(allowed)
  })
})
