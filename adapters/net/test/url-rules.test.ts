/** The webhook URL rules through the Dns port, answered by a real DNS server, and the check-then-connect path: the
 *  address that was checked is the address connected to, whatever the DNS answers afterwards. */
import { checkWebhookTarget, Dns, strictUrlRules } from "@mailroom/core"
import { startDnsServer, startWebhookReceiver, type TestDnsServer } from "@mailroom/testing"
import { Effect, Either, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeUndiciTransport, NodeDns } from "../src/index.js"

let dns: TestDnsServer
beforeAll(async () => {
  dns = await startDnsServer({
    "public.mailroom.test": { a: ["93.184.216.34"], aaaa: ["2606:2800:220:1::1"] },
    "private.mailroom.test": { a: ["10.0.0.7"] },
    "loopback.mailroom.test": { a: ["127.0.0.1"] },
    "loopback6.mailroom.test": { aaaa: ["::1"] },
    "linklocal.mailroom.test": { a: ["169.254.169.254"] },
    "reserved.mailroom.test": { a: ["240.0.0.9"] },
    "cgnat.mailroom.test": { a: ["100.64.0.1"] },
    "mapped.mailroom.test": { aaaa: ["::ffff:10.0.0.1"] },
    "unique-local.mailroom.test": { aaaa: ["fd12:3456::1"] },
    "mixed.mailroom.test": { a: ["93.184.216.34", "192.168.1.20"] },
    "mixed6.mailroom.test": { a: ["93.184.216.34"], aaaa: ["fe80::1"] },
    "empty.mailroom.test": {},
  })
})
afterAll(() => dns.close())

const check = (url: string, rules = strictUrlRules) =>
  Effect.runPromise(Effect.either(checkWebhookTarget(url, rules).pipe(Effect.provide(NodeDns.layer({ servers: [dns.server] })))))

describe("URL rules through the Dns port", () => {
  it("accepts a host whose every address is public, and connects to the first", async () => {
    const target = Either.getOrThrow(await check("https://public.mailroom.test/in"))
    expect(target.address).toBe("93.184.216.34")
    expect(target.port).toBe(443)
  })

  it.each([
    ["private.mailroom.test", /10\.0\.0\.7 is a private address/],
    ["loopback.mailroom.test", /loopback/],
    ["loopback6.mailroom.test", /loopback/],
    ["linklocal.mailroom.test", /linkLocal/],
    ["reserved.mailroom.test", /reserved/],
    ["cgnat.mailroom.test", /carrierGradeNat/],
    ["mapped.mailroom.test", /IPv4-mapped/],
    ["unique-local.mailroom.test", /uniqueLocal/],
    ["mixed.mailroom.test", /192\.168\.1\.20 is a private address/],
    ["mixed6.mailroom.test", /fe80::1 is a linkLocal/],
    ["empty.mailroom.test", /does not resolve to any address/],
    ["missing.mailroom.test", /does not resolve \(ENOTFOUND\)/],
  ])("refuses %s", async (host, reason) => {
    const result = await check(`https://${host}/in`)
    expect(Either.getLeft(result)._tag).toBe("Some")
    expect(Either.getLeft(result).pipe((e) => e._tag === "Some" ? e.value : "")).toMatch(reason)
  })

  it("refuses before any lookup what needs none: http, other ports, credentials", async () => {
    const asked = dns.questions.length
    for (const url of ["http://public.mailroom.test/", "https://public.mailroom.test:8443/", "https://a:b@public.mailroom.test/"]) {
      expect(Either.isLeft(await check(url))).toBe(true)
    }
    expect(dns.questions.length).toBe(asked)
  })

  it("relaxed rules accept loopback and private answers, and still refuse link-local ones", async () => {
    const relaxed = { allowPrivate: true }
    expect(Either.getOrThrow(await check("http://loopback.mailroom.test:8080/in", relaxed)).address).toBe("127.0.0.1")
    expect(Either.isRight(await check("http://private.mailroom.test/in", relaxed))).toBe(true)
    expect(Either.isLeft(await check("http://linklocal.mailroom.test/in", relaxed))).toBe(true)
  })

  it("an answer that changes after the check does not change where the request goes", async () => {
    const receiver = await startWebhookReceiver()
    const transport = makeUndiciTransport()
    try {
      dns.zone.set("rebind.mailroom.test", { a: ["127.0.0.1"] })
      const relaxed = { allowPrivate: true }
      const target = Either.getOrThrow(await check(`http://rebind.mailroom.test:${receiver.port}/in`, relaxed))
      // The name now points elsewhere (where nothing listens); the delivery still goes to the address checked.
      dns.zone.set("rebind.mailroom.test", { a: ["127.0.0.3"] })
      const asked = dns.questions.length
      const answer = await Effect.runPromise(transport.service.post({
        url: target.url, address: target.address, headers: {}, body: "{}", timeoutMs: 5_000, maxResponseBytes: 100,
      }))
      expect(answer.status).toBe(200)
      expect(receiver.requests).toHaveLength(1)
      expect(receiver.requests[0]!.headers.host).toBe(`rebind.mailroom.test:${receiver.port}`)
      expect(dns.questions.length).toBe(asked)
      // The next delivery checks again and sees the new answer.
      expect(Either.getOrThrow(await check(`http://rebind.mailroom.test:${receiver.port}/in`, relaxed)).address).toBe("127.0.0.3")
    } finally {
      await Effect.runPromise(transport.close)
      await receiver.close()
    }
  })

  it("a fake behind the port serves unit tests the same way", async () => {
    const fake = Layer.succeed(Dns, {
      lookupAddresses: () => Effect.succeed(["8.8.8.8", "10.1.1.1"]),
      resolveTxt: () => Effect.succeed([]),
      resolveMx: () => Effect.succeed([]),
      resolveCname: () => Effect.succeed([]),
    })
    const result = await Effect.runPromise(Effect.either(checkWebhookTarget("https://anything.example/", strictUrlRules).pipe(Effect.provide(fake))))
    expect(Either.getLeft(result).pipe((e) => e._tag === "Some" ? e.value : "")).toMatch(/10\.1\.1\.1/)
  })
})
