import { describe, expect, it } from "vitest"
import { makeTrustHop, resolveClientAddress, type TrustProxy } from "../src/index.js"
import { call, makeTestApp } from "./support.js"

const resolve = (peer: string | null, forwardedFor: string | undefined, trust?: TrustProxy) =>
  resolveClientAddress(peer, forwardedFor, makeTrustHop(trust))

describe("resolveClientAddress", () => {
  it.each([
    ["no proxy trusted: the peer, X-Forwarded-For ignored", "198.51.100.4", "203.0.113.7", undefined, "198.51.100.4"],
    ["false trusts none", "198.51.100.4", "203.0.113.7", false, "198.51.100.4"],
    ["0 hops trusts none", "198.51.100.4", "203.0.113.7", 0, "198.51.100.4"],
    ["an IPv4-mapped peer is written as IPv4", "::ffff:198.51.100.4", undefined, undefined, "198.51.100.4"],
    ["an IPv6 peer stays as it is", "2001:db8::1", "203.0.113.7", undefined, "2001:db8::1"],
    ["one trusted hop: the address the proxy appended", "10.0.0.2", "203.0.113.7", 1, "203.0.113.7"],
    ["one trusted hop: what the client wrote before is not believed", "10.0.0.2", "1.2.3.4, 203.0.113.7", 1, "203.0.113.7"],
    ["two trusted hops", "10.0.0.2", "1.2.3.4, 203.0.113.7, 10.0.0.9", 2, "203.0.113.7"],
    ["more hops trusted than there are: the leftmost", "10.0.0.2", "203.0.113.7", 5, "203.0.113.7"],
    ["a trusted range: walks while the hops are in it", "10.0.0.2", "1.2.3.4, 203.0.113.7, 10.1.1.1", ["10.0.0.0/8"], "203.0.113.7"],
    ["a trusted range: a peer outside it is the client", "198.51.100.4", "203.0.113.7", ["10.0.0.0/8"], "198.51.100.4"],
    ["loopback by name", "127.0.0.1", "203.0.113.7", ["loopback"], "203.0.113.7"],
    ["loopback by name, IPv6 peer", "::1", "203.0.113.7", ["loopback"], "203.0.113.7"],
    ["uniquelocal by name", "192.168.1.10", "203.0.113.7", ["uniquelocal"], "203.0.113.7"],
    ["a single trusted address", "172.20.0.5", "203.0.113.7", ["172.20.0.5"], "203.0.113.7"],
    ["an IPv4-mapped peer matches an IPv4 range", "::ffff:10.0.0.2", "203.0.113.7", ["10.0.0.0/8"], "203.0.113.7"],
    ["an IPv6 range", "fd00::5", "2001:db8::7", ["fd00::/8"], "2001:db8::7"],
    ["an entry with a port", "10.0.0.2", "203.0.113.7:4711", 1, "203.0.113.7"],
    ["a bracketed IPv6 entry with a port", "10.0.0.2", "[2001:db8::7]:443", 1, "2001:db8::7"],
    ["a forwarded IPv4-mapped address is written as IPv4", "10.0.0.2", "::ffff:203.0.113.7", 1, "203.0.113.7"],
    ["an entry that is no address ends the walk at the hop that reported it", "10.0.0.2", "203.0.113.7, unknown", 2, "10.0.0.2"],
    ["true: every hop, the leftmost", "10.0.0.2", "203.0.113.7, 198.51.100.1", true, "203.0.113.7"],
    ["no X-Forwarded-For: the peer", "10.0.0.2", undefined, 1, "10.0.0.2"],
    ["no peer: unknown, whatever X-Forwarded-For claims", null, "203.0.113.7", 1, null],
  ] as const)("%s", (_, peer, forwardedFor, trust, expected) => {
    expect(resolve(peer, forwardedFor, trust as TrustProxy | undefined)).toBe(expected)
  })

  it.each([[["10.0.0.0/33"]], [["not-an-address"]], [["private"]], [-1], [1.5]])("refuses the option %j at startup", (trust) => {
    expect(() => makeTrustHop(trust as TrustProxy)).toThrow(/trustProxy/)
  })
})

describe("the client address of a request", () => {
  const failedAuthenticationsPerMinute = 2
  /** Spends the failed authentications of whatever address the request resolves to, and answers the last status. */
  const spend = async (app: ReturnType<typeof makeTestApp>, env: object, headers: Record<string, string> = {}) => {
    let status = 0
    for (let i = 0; i <= failedAuthenticationsPerMinute; i++) {
      const response = await app.app.fetch(new Request("http://mailroom.test/v1/contacts", { headers }), env)
      status = response.status
    }
    return status
  }

  it("is the address the host passes, and by default X-Forwarded-For changes nothing", async () => {
    const app = makeTestApp({ rateLimits: { failedAuthenticationsPerMinute } })
    expect(await spend(app, { clientAddress: "198.51.100.4" })).toBe(429)
    expect(await spend(app, { clientAddress: "198.51.100.4" }, { "x-forwarded-for": "203.0.113.7" })).toBe(429)
    expect((await app.app.fetch(new Request("http://mailroom.test/v1/contacts"), { clientAddress: "198.51.100.5" })).status).toBe(401)
  })

  it("is the forwarded address behind a trusted proxy", async () => {
    const app = makeTestApp({ rateLimits: { failedAuthenticationsPerMinute }, trustProxy: ["10.0.0.0/8"] })
    expect(await spend(app, { clientAddress: "10.0.0.2" }, { "x-forwarded-for": "203.0.113.7" })).toBe(429)
    const other = await app.app.fetch(
      new Request("http://mailroom.test/v1/contacts", { headers: { "x-forwarded-for": "203.0.113.8" } }),
      { clientAddress: "10.0.0.2" },
    )
    expect(other.status).toBe(401)
  })

  it("is read from @hono/node-server's socket when it serves the app itself", async () => {
    const app = makeTestApp({ rateLimits: { failedAuthenticationsPerMinute } })
    expect(await spend(app, { incoming: { socket: { remoteAddress: "::ffff:198.51.100.9" } } })).toBe(429)
    expect(await spend(app, { clientAddress: "198.51.100.9" })).toBe(429)
    expect((await call(app, "GET", "/v1/contacts")).status).toBe(401)
  })
})
