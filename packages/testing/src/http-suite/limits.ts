/** Account isolation, the Free plan's contact cap, request rates and body size. Spec: audience "Errors"
 *  (RESOURCE_NOT_FOUND, FREE_TIER_CONTACT_LIMIT, RATE_LIMIT_EXCEEDED), "Limits"; sending "Limits" (8 MiB bodies). */
import { describe, expect, it } from "vitest"
import { type Client, expectError } from "./client.js"

const mebibytes = (n: number) => n * 1024 * 1024

/** A JSON contact body of exactly `bytes` bytes (padding in metadata). */
const bodyOfSize = (bytes: number) => {
  const shell = JSON.stringify({ email: "big@example.com", metadata: { pad: "" } })
  return JSON.stringify({ email: "big@example.com", metadata: { pad: "x".repeat(bytes - shell.length) } })
}

/** A body streamed in 64 KiB chunks with no Content-Length, as chunked transfer encoding sends it. */
const streamed = (text: string): ReadableStream<Uint8Array> => {
  const bytes = new TextEncoder().encode(text)
  let offset = 0
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close()
      controller.enqueue(bytes.slice(offset, offset + 65536))
      offset += 65536
    },
  })
}

export const limitTests = (client: () => Client) => {
  describe("account isolation", () => {
    it("answers 404 RESOURCE_NOT_FOUND for another account's contact on every route, changing nothing", async () => {
      const mine = await client().account()
      const theirs = await client().account()
      const foreign = await client().contact(theirs.key, { email: "private@example.com", tags: ["secret"] })
      for (const [method, path, body] of [
        ["GET", `/v1/contacts/${foreign.id}`, undefined],
        ["PATCH", `/v1/contacts/${foreign.id}`, { firstName: "Hijacked", status: "CLEANED" }],
        ["POST", `/v1/contacts/${foreign.id}/tags`, { tags: ["hijacked"] }],
        ["DELETE", `/v1/contacts/${foreign.id}/tags/secret`, undefined],
        ["DELETE", `/v1/contacts/${foreign.id}`, undefined],
      ] as const) {
        expectError(await client().call(method, path, { key: mine.key, ...(body === undefined ? {} : { body }) }), 404, "RESOURCE_NOT_FOUND")
      }
      expect(await client().read(theirs.key, foreign.id)).toEqual(foreign)
    })

    it("never shows another account's contacts in lists, tags, searches or exports", async () => {
      const mine = await client().account()
      const theirs = await client().account()
      await client().contact(theirs.key, { email: "private@example.com", tags: ["secret"] })
      expect((await client().call("GET", "/v1/contacts?search=private", { key: mine.key })).json.meta.total_count).toBe(0)
      expect((await client().call("GET", "/v1/contacts/tags", { key: mine.key })).json.data).toEqual([])
      expect((await client().call("GET", "/v1/contacts/export?format=json", { key: mine.key })).json).toEqual([])
    })
  })

  describe("Free plan", () => {
    it("answers 403 FREE_TIER_CONTACT_LIMIT for the 101st active contact, creating nothing", async () => {
      const { key } = await client().account({ plan: "free" })
      const contacts = Array.from({ length: 100 }, (_, i) => ({ email: `active${i}@example.com` }))
      expect((await client().call("POST", "/v1/contacts/bulk", { key, body: { contacts } })).json.data.created).toBe(100)
      expectError(await client().call("POST", "/v1/contacts", { key, body: { email: "one-too-many@example.com" } }), 403, "FREE_TIER_CONTACT_LIMIT")
      expect(await client().count(key)).toBe(100)
    })

    it("still takes contacts that are not active, but refuses to activate them past the cap", async () => {
      const { key } = await client().account()
      const contacts = Array.from({ length: 100 }, (_, i) => ({ email: `active${i}@example.com` }))
      await client().call("POST", "/v1/contacts/bulk", { key, body: { contacts } })
      const waiting = await client().contact(key, { email: "waiting@example.com", status: "UNSUBSCRIBED" })
      expectError(await client().call("PATCH", `/v1/contacts/${waiting.id}`, { key, body: { status: "ACTIVE" } }), 403, "FREE_TIER_CONTACT_LIMIT")
      expect(await client().read(key, waiting.id)).toEqual(waiting)
      expect(await client().count(key, "status=ACTIVE")).toBe(100)
    })

    it("does not cap a paid plan", async () => {
      const { key } = await client().account({ plan: "starter" })
      const contacts = Array.from({ length: 100 }, (_, i) => ({ email: `active${i}@example.com` }))
      await client().call("POST", "/v1/contacts/bulk", { key, body: { contacts } })
      expect((await client().call("POST", "/v1/contacts", { key, body: { email: "more@example.com" } })).status).toBe(201)
    })
  })

  describe("request rate", () => {
    it("answers the 61st POST /contacts within a minute 429 RATE_LIMIT_EXCEEDED with retry_after and Retry-After", async () => {
      const account = await client().account({ plan: "pro" })
      for (let i = 0; i < 60; i++) {
        const answer = await client().call("POST", "/v1/contacts", { key: account.key, body: { email: `r${i}@example.com` } })
        expect(answer.status, answer.text).toBe(201)
      }
      const limited = await client().call("POST", "/v1/contacts", { key: account.key, body: { email: "r60@example.com" } })
      expectError(limited, 429, "RATE_LIMIT_EXCEEDED")
      const retryAfter = limited.json.error.context.retry_after
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true)
      expect(limited.headers.get("retry-after")).toBe(String(retryAfter))
      expect(await client().count(account.key)).toBe(60)
      const otherKey = await client().key(account.id)
      expect((await client().call("POST", "/v1/contacts", { key: otherKey.key, body: { email: "r60@example.com" } })).status).toBe(201)
      expect((await client().call("GET", "/v1/contacts", { key: account.key })).status).toBe(200)
    })
  })

  describe("request size", () => {
    it("answers a body declared over 8 MiB 413 PAYLOAD_TOO_LARGE, creating nothing", async () => {
      const { key } = await client().account()
      const answer = await client().call("POST", "/v1/contacts", { key, raw: bodyOfSize(mebibytes(8) + 1), headers: { "content-type": "application/json" } })
      expectError(answer, 413, "PAYLOAD_TOO_LARGE")
      expect(await client().count(key)).toBe(0)
    })

    it("answers a streamed body over 8 MiB 413 PAYLOAD_TOO_LARGE, creating nothing", async () => {
      const { key } = await client().account()
      const answer = await client().call("POST", "/v1/contacts", { key, raw: streamed(bodyOfSize(mebibytes(8) + 1)), headers: { "content-type": "application/json" } })
      expectError(answer, 413, "PAYLOAD_TOO_LARGE")
      expect(await client().count(key)).toBe(0)
    })

    it("reads a body just under 8 MiB (refused for its metadata, not its size)", async () => {
      const { key } = await client().account()
      const answer = await client().call("POST", "/v1/contacts", { key, raw: bodyOfSize(mebibytes(8)), headers: { "content-type": "application/json" } })
      expectError(answer, 400, "VALIDATION_ERROR", "metadata")
    })
  })
}
