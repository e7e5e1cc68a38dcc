import { Deferred, Effect, Either, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { HttpTransport, HttpTransportError, type PinnedPost, postEachWith } from "../../src/ports/http-transport.js"

const request = (body: string): PinnedPost => ({
  url: new URL("https://hooks.example.com/in"),
  address: "93.184.216.34",
  headers: {},
  body,
  timeoutMs: 10_000,
  maxResponseBytes: 100,
})

describe("postEachWith: a batch over a transport's post", () => {
  it("keeps at most `concurrency` POSTs under way, asks for the next only when a place frees, and answers each", async () => {
    const gates = new Map<string, Deferred.Deferred<void>>()
    let underWay = 0
    let most = 0
    const post = (input: PinnedPost) =>
      Effect.gen(function* () {
        underWay++
        most = Math.max(most, underWay)
        const gate = yield* Deferred.make<void>()
        gates.set(input.body, gate)
        yield* Deferred.await(gate)
        underWay--
        if (input.body === "bad") return yield* Effect.fail(new HttpTransportError({ reason: "reset", detail: "reset", durationMs: 1 }))
        return { status: 200, snippet: input.body, durationMs: 1 }
      })
    const bodies = ["a", "bad", "c", "d", "e"]
    const asked: Array<string> = []
    const outcomes = new Map<string, string>()
    let next = 0
    const fiber = Effect.runFork(postEachWith(post)(2, () => {
      const body = bodies[next++]
      if (body === undefined) return undefined
      asked.push(body)
      return {
        request: request(body),
        answered: (outcome) => outcomes.set(body, Either.isRight(outcome) ? outcome.right.snippet : outcome.left.reason),
      }
    }))
    const release = async (body: string) => {
      while (!gates.has(body)) await new Promise((resolve) => setTimeout(resolve, 1))
      await Effect.runPromise(Deferred.succeed(gates.get(body)!, undefined))
    }
    await release("a")
    await release("bad")
    await release("c")
    await release("d")
    await release("e")
    await Effect.runPromise(Fiber.join(fiber))
    expect(most).toBe(2)
    expect(asked).toEqual(bodies)
    expect(Object.fromEntries(outcomes)).toEqual({ a: "a", bad: "reset", c: "c", d: "d", e: "e" })
  })

  it("without a configured transport, each POST of a batch fails saying so", async () => {
    const transport = await Effect.runPromise(HttpTransport)
    const outcomes: Array<string> = []
    let next = 0
    await Effect.runPromise(transport.postEach(3, () =>
      next++ < 4
        ? { request: request("x"), answered: (outcome) => outcomes.push(Either.isLeft(outcome) ? outcome.left.detail : "answered") }
        : undefined))
    expect(outcomes).toEqual(Array.from({ length: 4 }, () => "no HTTP transport is configured"))
  })
})
