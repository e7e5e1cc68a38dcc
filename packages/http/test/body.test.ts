import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { defaultBodyLimitBytes, readBody } from "../src/index.js"

const read = (request: Request, limit: number) => Effect.runPromise(Effect.either(readBody(request, limit)))

/** A body that fails the test if anyone reads it: proves a refusal came from the declared length alone. */
const untouchable = () => new ReadableStream<Uint8Array>({
  pull() {
    throw new Error("the body was read")
  },
})

const chunked = (chunks: ReadonlyArray<string>) => {
  let pulled = 0
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[pulled++]
      if (next === undefined) return controller.close()
      controller.enqueue(new TextEncoder().encode(next))
    },
  })
  return { stream, pulled: () => pulled }
}

const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request("http://mailroom.test/", { method: "POST", body, headers, duplex: "half" } as RequestInit)

describe("readBody", () => {
  it("defaults to 8 MiB", () => {
    expect(defaultBodyLimitBytes).toBe(8 * 1024 * 1024)
  })

  it("answers the whole body when it fits", async () => {
    const result = await read(post("{\"a\":1}"), 7)
    expect(Either.getOrThrow(result)).toEqual(new TextEncoder().encode("{\"a\":1}"))
  })

  it("refuses a declared Content-Length over the limit without reading the body", async () => {
    const result = await read(post(untouchable(), { "content-length": "101" }), 100)
    expect(Either.flip(result).pipe(Either.getOrThrow)).toMatchObject({ _tag: "PayloadTooLarge", code: "PAYLOAD_TOO_LARGE", limitBytes: 100 })
  })

  it("refuses a streamed body over the limit, and stops reading it", async () => {
    const body = chunked(["a".repeat(60), "b".repeat(60), "c".repeat(60), "d".repeat(60)])
    const result = await read(post(body.stream), 100)
    expect(Either.flip(result).pipe(Either.getOrThrow)._tag).toBe("PayloadTooLarge")
    expect(body.pulled()).toBeLessThan(4)
  })

  it("refuses a body larger than its understated Content-Length", async () => {
    const result = await read(post("x".repeat(500), { "content-length": "10" }), 100)
    expect(Either.flip(result).pipe(Either.getOrThrow)._tag).toBe("PayloadTooLarge")
  })

  it("reads a body with a declared length whole, however it arrives in chunks", async () => {
    const body = chunked(["{\"a\":", "1", "}"])
    const result = await read(post(body.stream, { "content-length": "7" }), 100)
    expect(new TextDecoder().decode(Either.getOrThrow(result))).toBe("{\"a\":1}")
  })

  it("answers no bytes for a declared length of zero without reading the body", async () => {
    const result = await read(post(untouchable(), { "content-length": "0" }), 100)
    expect(Either.getOrThrow(result)).toHaveLength(0)
  })

  it("accepts a body of exactly the limit", async () => {
    expect(Either.isRight(await read(post("x".repeat(100)), 100))).toBe(true)
  })

  it("answers no bytes for a request without a body", async () => {
    const result = await read(new Request("http://mailroom.test/"), 100)
    expect(Either.getOrThrow(result)).toHaveLength(0)
  })
})
