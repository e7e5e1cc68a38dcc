import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeNodeDns } from "../src/index.js"
import { startDnsServer, type TestDnsServer } from "./dns-server.js"

let dns: TestDnsServer
beforeAll(async () => {
  dns = await startDnsServer({
    "both.mailroom.test": { a: ["93.184.216.34", "93.184.216.35"], aaaa: ["2606:2800:220:1::1"] },
    "v4.mailroom.test": { a: ["93.184.216.34"] },
    "records.mailroom.test": { txt: ["v=spf1 include:mailroom.test ~all"], mx: [{ exchange: "mx.mailroom.test", priority: 10 }] },
  })
})
afterAll(() => dns.close())

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect))

describe("NodeDns against a DNS server", () => {
  it("answers every A and AAAA address, IPv4 first", async () => {
    const answer = await Effect.runPromise(makeNodeDns({ servers: [dns.server] }).lookupAddresses("both.mailroom.test"))
    expect(answer).toEqual(["93.184.216.34", "93.184.216.35", "2606:2800:220:1::1"])
  })

  it("answers a name without AAAA records with its A records", async () => {
    expect(await Effect.runPromise(makeNodeDns({ servers: [dns.server] }).lookupAddresses("v4.mailroom.test"))).toEqual(["93.184.216.34"])
  })

  it("fails with the resolver's code for a name that does not exist", async () => {
    const result = await run(makeNodeDns({ servers: [dns.server] }).lookupAddresses("missing.mailroom.test"))
    expect(result._tag).toBe("Left")
    if (result._tag === "Left") {
      expect(result.left._tag).toBe("DnsError")
      expect(result.left.reason).toBe("ENOTFOUND")
    }
  })

  it("reads TXT and MX records", async () => {
    const node = makeNodeDns({ servers: [dns.server] })
    expect(await Effect.runPromise(node.resolveTxt("records.mailroom.test"))).toEqual(["v=spf1 include:mailroom.test ~all"])
    expect(await Effect.runPromise(node.resolveMx("records.mailroom.test"))).toEqual([{ exchange: "mx.mailroom.test", priority: 10 }])
  })

  it("without servers, uses the system resolver, hosts file included", async () => {
    const answer = await Effect.runPromise(makeNodeDns().lookupAddresses("localhost"))
    expect(answer.length).toBeGreaterThan(0)
    expect(answer.every((address) => address === "127.0.0.1" || address === "::1")).toBe(true)
  })
})
