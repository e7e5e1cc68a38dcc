import http from "node:http"
import type { AddressInfo } from "node:net"
import { makeTestCertificate, startWebhookReceiver, type WebhookReceiver } from "@mailroom/testing"
import { Effect, Either, Fiber } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { makeUndiciTransport } from "../src/index.js"

const host = "hooks.mailroom.test"
const certificate = makeTestCertificate(host)
const transport = makeUndiciTransport({ ca: certificate.cert })
let https: WebhookReceiver
let plain: WebhookReceiver

beforeAll(async () => {
  https = await startWebhookReceiver({ tls: certificate })
  plain = await startWebhookReceiver()
})
afterAll(async () => {
  await Effect.runPromise(transport.close)
  await https.close()
  await plain.close()
})
beforeEach(() => {
  https.answer = () => ({ status: 200, body: "ok" })
  plain.answer = () => ({ status: 200, body: "ok" })
})

const post = (url: string, address = "127.0.0.1", overrides: { timeoutMs?: number; maxResponseBytes?: number } = {}) =>
  Effect.runPromise(Effect.either(transport.service.post({
    url: new URL(url),
    address,
    headers: { "content-type": "application/json", "x-service-event": "email.delivered" },
    body: JSON.stringify({ eventType: "email.delivered" }),
    timeoutMs: overrides.timeoutMs ?? 10_000,
    maxResponseBytes: overrides.maxResponseBytes ?? 1024,
  })))

describe("undici transport pinned to a checked address", () => {
  it("connects to the checked address for a host that no resolver knows, verifying TLS for that host", async () => {
    const before = https.requests.length
    const result = await post(`https://${host}:${https.port}/hooks/in?x=1`)
    expect(Either.getOrThrow(result).status).toBe(200)
    expect(Either.getOrThrow(result).snippet).toBe("ok")
    const request = https.requests[before]!
    expect(request.method).toBe("POST")
    expect(request.path).toBe("/hooks/in?x=1")
    expect(request.headers.host).toBe(`${host}:${https.port}`)
    expect(request.headers["x-service-event"]).toBe("email.delivered")
    expect(request.body).toBe(JSON.stringify({ eventType: "email.delivered" }))
  })

  it("refuses a certificate that does not name the URL's host", async () => {
    const result = await post(`https://other.mailroom.test:${https.port}/`)
    expect(Either.getLeft(result).pipe((e) => e._tag === "Some" ? e.value.reason : undefined)).toBe("tls")
  })

  it("never follows a redirect: a 3xx is the answer", async () => {
    plain.answer = () => ({ status: 302, headers: { location: `http://127.0.0.1:${plain.port}/elsewhere` } })
    const before = plain.requests.length
    const result = await post(`http://${host}:${plain.port}/in`)
    expect(Either.getOrThrow(result).status).toBe(302)
    expect(plain.requests.length).toBe(before + 1)
  })

  it.each([400, 404, 410, 500, 503])("answers %i with the receiver's snippet", async (status) => {
    plain.answer = () => ({ status, body: `status ${status}` })
    const answer = Either.getOrThrow(await post(`http://${host}:${plain.port}/in`))
    expect(answer).toMatchObject({ status, snippet: `status ${status}` })
    expect(answer.durationMs).toBeGreaterThanOrEqual(0)
  })

  it("gives up at the deadline when the receiver hangs", async () => {
    plain.answer = () => ({ hang: true })
    const started = Date.now()
    const result = await post(`http://${host}:${plain.port}/in`, "127.0.0.1", { timeoutMs: 300 })
    const error = Either.getLeft(result)
    expect(error._tag === "Some" && error.value.reason).toBe("timeout")
    expect(Date.now() - started).toBeLessThan(3_000)
  })

  it("reports a reset connection", async () => {
    plain.answer = () => ({ reset: true })
    const error = Either.getLeft(await post(`http://${host}:${plain.port}/in`))
    expect(error._tag === "Some" && error.value.reason).toBe("reset")
  })

  it("reports a refused connection", async () => {
    const error = Either.getLeft(await post(`http://${host}:1/in`))
    expect(error._tag === "Some" && error.value.reason).toBe("refused")
  })

  it("reads at most the snippet of a huge answer", async () => {
    plain.answer = () => ({ hugeBody: 50 * 1024 * 1024 })
    const started = Date.now()
    const answer = Either.getOrThrow(await post(`http://${host}:${plain.port}/in`, "127.0.0.1", { maxResponseBytes: 1000 }))
    expect(answer.status).toBe(200)
    expect(answer.snippet).toBe("x".repeat(1000))
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it("keeps no lookup of its own: a second address for the same URL gets its own pinned connection", async () => {
    const other = await startWebhookReceiver({ host: "127.0.0.2", port: plain.port }).catch(() => undefined)
    if (other === undefined) return expect.fail("127.0.0.2 is not available for listening")
    try {
      const beforePlain = plain.requests.length
      expect(Either.getOrThrow(await post(`http://${host}:${plain.port}/in`, "127.0.0.2")).status).toBe(200)
      expect(other.requests).toHaveLength(1)
      expect(plain.requests.length).toBe(beforePlain)
    } finally {
      await other.close()
    }
  })

  it("answers an empty snippet for a 204 and for a declared empty body", async () => {
    plain.answer = () => ({ status: 204 })
    expect(Either.getOrThrow(await post(`http://${host}:${plain.port}/in`))).toMatchObject({ status: 204, snippet: "" })
    plain.answer = () => ({ status: 200, body: "" })
    expect(Either.getOrThrow(await post(`http://${host}:${plain.port}/in`))).toMatchObject({ status: 200, snippet: "" })
  })

  it("keeps at most maxInFlight requests under way; the others start in order as turns free, and a waiter that gives up takes no turn", async () => {
    const capped = makeUndiciTransport({ maxInFlight: 2 })
    const releases: Array<() => void> = []
    plain.answer = () => ({ after: new Promise((resolve) => releases.push(() => resolve({ status: 200, body: "ok" }))) })
    const before = plain.requests.length
    const send = (path: string) => capped.service.post({
      url: new URL(`http://${host}:${plain.port}/${path}`),
      address: "127.0.0.1",
      headers: {},
      body: path,
      timeoutMs: 10_000,
      maxResponseBytes: 100,
    })
    try {
      const first = Effect.runPromise(send("a"))
      const second = Effect.runPromise(send("b"))
      // Waits for a turn, then gives up: it never reaches the receiver, and its turn goes to the next.
      const quitter = Effect.runFork(send("quitter"))
      const third = Effect.runPromise(send("c"))
      await plain.waitFor(before + 2, 5_000)
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(plain.requests.slice(before).map((r) => r.body)).toEqual(["a", "b"])
      await Effect.runPromise(Fiber.interrupt(quitter))
      releases[0]!()
      expect((await first).status).toBe(200)
      await plain.waitFor(before + 3, 5_000)
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(plain.requests.slice(before).map((r) => r.body)).toEqual(["a", "b", "c"])
      releases[1]!()
      releases[2]!()
      expect((await second).status).toBe(200)
      expect((await third).status).toBe(200)
    } finally {
      await Effect.runPromise(capped.close)
    }
  })

  it("opens no more connections to a receiver than requests can be under way at once (maxInFlight)", async () => {
    const sockets = new Set<unknown>()
    const server = http.createServer((req, res) => {
      req.resume()
      req.on("end", () => res.writeHead(204).end())
    })
    server.keepAliveTimeout = 60_000
    server.on("connection", (socket) => sockets.add(socket))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const limited = makeUndiciTransport({ maxInFlight: 4 })
    try {
      const url = new URL(`http://${host}:${(server.address() as AddressInfo).port}/in`)
      const request = { url, address: "127.0.0.1", headers: { "content-type": "application/json" }, body: "{}", timeoutMs: 10_000, maxResponseBytes: 64 }
      // Sixteen at once, four times the transport's bound.
      const answers = await Effect.runPromise(Effect.forEach(Array.from({ length: 400 }, () => request), (one) => limited.service.post(one), { concurrency: 16 }))
      const answered = answers.filter((answer) => answer.status === 204).length
      expect(answered).toBe(400)
      expect(sockets.size).toBeGreaterThan(0)
      expect(sockets.size).toBeLessThanOrEqual(4)
    } finally {
      await Effect.runPromise(limited.close)
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("keeps agents for reuse, and never hands out one it closed to make room (maxAgents)", async () => {
    const one = makeUndiciTransport({ maxAgents: 1 })
    const postWith = (url: URL) => Effect.runPromise(Effect.either(one.service.post({
      url, address: "127.0.0.1", headers: {}, body: "{}", timeoutMs: 10_000, maxResponseBytes: 64,
    })))
    try {
      const first = new URL(`http://${host}:${plain.port}/a`)
      const before = plain.requests.length
      // The same target twice, then another (its agent takes the only place), then the first again.
      for (const url of [first, first, new URL(`http://other.${host}:${plain.port}/b`), first]) {
        expect(Either.getOrThrow(await postWith(url)).status).toBe(200)
      }
      expect(plain.requests.slice(before).map((request) => request.path)).toEqual(["/a", "/a", "/b", "/a"])
    } finally {
      await Effect.runPromise(one.close)
    }
  })
})
