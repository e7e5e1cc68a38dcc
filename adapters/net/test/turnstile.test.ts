/** The Turnstile adapter against a local stub of the siteverify API: what it posts, and how it reads the answers. */
import { once } from "node:events"
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeTurnstile } from "../src/index.js"

interface Received {
  readonly method: string
  readonly contentType: string | undefined
  readonly form: Record<string, string>
}

describe("Turnstile adapter", () => {
  let server: Server
  let url: string
  const received: Array<Received> = []
  // The stub passes the answer "good", fails "bad", answers 500 for "broken", junk for "junk" and never for "slow".
  beforeAll(async () => {
    server = createServer(async (request: IncomingMessage, response) => {
      let body = ""
      for await (const chunk of request) body += String(chunk)
      const form = Object.fromEntries(new URLSearchParams(body))
      received.push({ method: request.method ?? "", contentType: request.headers["content-type"], form })
      if (form.response === "slow") return
      if (form.response === "broken") return response.writeHead(500).end("oops")
      if (form.response === "junk") return response.writeHead(200, { "content-type": "application/json" }).end("{}")
      const success = form.secret === "the-secret" && form.response === "good"
      response.writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ success, "error-codes": success ? [] : ["invalid-input-response"] }))
    })
    server.listen(0, "127.0.0.1")
    await once(server, "listening")
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/turnstile/v0/siteverify`
  })
  afterAll(() => {
    server.closeAllConnections()
    server.close()
  })

  const turnstile = (timeoutMs?: number) => makeTurnstile({ siteKey: "site", secretKey: "the-secret", verifyUrl: url, timeoutMs })

  it("posts the secret, the answer and the client's address as a form, and passes on success", async () => {
    received.length = 0
    expect(await Effect.runPromise(turnstile().verify("good", "203.0.113.9"))).toBe(true)
    expect(received).toEqual([{
      method: "POST", contentType: "application/x-www-form-urlencoded;charset=UTF-8",
      form: { secret: "the-secret", response: "good", remoteip: "203.0.113.9" },
    }])
  })

  it("fails an answer the provider refuses, and leaves out an unknown client address", async () => {
    received.length = 0
    expect(await Effect.runPromise(turnstile().verify("bad", null))).toBe(false)
    expect(received[0]?.form).toEqual({ secret: "the-secret", response: "bad" })
  })

  it("refuses an empty or oversized answer without asking", async () => {
    received.length = 0
    expect(await Effect.runPromise(turnstile().verify("", null))).toBe(false)
    expect(await Effect.runPromise(turnstile().verify("x".repeat(2049), null))).toBe(false)
    expect(received).toEqual([])
  })

  it.each(["broken", "junk"])("reports a provider that answers %s as an error (submissions fail closed)", async (answer) => {
    const result = await Effect.runPromise(Effect.either(turnstile().verify(answer, null)))
    expect(Either.isLeft(result) && result.left._tag).toBe("BotChallengeError")
  })

  it("gives up after its timeout", async () => {
    const result = await Effect.runPromise(Effect.either(turnstile(300).verify("slow", null)))
    expect(Either.isLeft(result) && result.left.message).toMatch(/could not be verified/)
  })

  it("names the widget the hosted page shows", () => {
    expect(turnstile().widget).toEqual({
      siteKey: "site", scriptUrl: "https://challenges.cloudflare.com/turnstile/v0/api.js",
      origin: "https://challenges.cloudflare.com", className: "cf-turnstile", fieldName: "cf-turnstile-response",
    })
  })
})
