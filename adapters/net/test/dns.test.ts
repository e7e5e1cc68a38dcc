import { startDnsServer, type TestDnsServer } from "@mailroom/testing"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type NodeDnsOptions, makeNodeDns, parseDnsServers } from "../src/index.js"

let dns: TestDnsServer
beforeAll(async () => {
  dns = await startDnsServer({
    "both.mailroom.test": { a: ["93.184.216.34", "93.184.216.35"], aaaa: ["2606:2800:220:1::1"] },
    "v4.mailroom.test": { a: ["93.184.216.34"] },
    "records.mailroom.test": { txt: ["v=spf1 include:mailroom.test ~all"], mx: [{ exchange: "mx.mailroom.test", priority: 10 }] },
    "chunks.mailroom.test": { txt: [["v=DKIM1; k=rsa; ", "p=MIIBIjAN", "BgkqhkiG9w0"], "mailroom-verify=dom_1"] },
    "broken.mailroom.test": { failure: "servfail", txt: ["never seen"] },
    "silent.mailroom.test": { failure: "silent" },
  })
})
afterAll(() => dns.close())

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect))
const failureOf = async <A>(effect: Effect.Effect<A, { readonly kind: string; readonly reason: string }>) => {
  const result = await run(effect)
  if (result._tag === "Right") throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`)
  return { kind: result.left.kind, reason: result.left.reason }
}

/** A resolver over the test server with its cache on a clock the test moves. */
const withClock = (options: NodeDnsOptions = {}) => {
  let now = 1_000_000
  const node = makeNodeDns({ servers: [dns.server], now: () => now, ...options })
  return { node, advance: (seconds: number) => { now += seconds * 1000 } }
}
const asked = (question: string) => dns.questions.filter((q) => q === question).length

describe("NodeDns against a DNS server", () => {
  it("answers every A and AAAA address, IPv4 first", async () => {
    const answer = await Effect.runPromise(makeNodeDns({ servers: [dns.server] }).lookupAddresses("both.mailroom.test"))
    expect(answer).toEqual(["93.184.216.34", "93.184.216.35", "2606:2800:220:1::1"])
  })

  it("answers a name without AAAA records with its A records", async () => {
    expect(await Effect.runPromise(makeNodeDns({ servers: [dns.server] }).lookupAddresses("v4.mailroom.test"))).toEqual(["93.184.216.34"])
  })

  it("fails with the resolver's code for a name that does not exist", async () => {
    expect(await failureOf(makeNodeDns({ servers: [dns.server] }).lookupAddresses("missing.mailroom.test")))
      .toEqual({ kind: "notFound", reason: "ENOTFOUND" })
  })

  it("reads TXT and MX records", async () => {
    const node = makeNodeDns({ servers: [dns.server] })
    expect(await Effect.runPromise(node.resolveTxt("records.mailroom.test"))).toEqual(["v=spf1 include:mailroom.test ~all"])
    expect(await Effect.runPromise(node.resolveMx("records.mailroom.test"))).toEqual([{ exchange: "mx.mailroom.test", priority: 10 }])
  })

  it("joins the character strings of one TXT record, and never those of two records", async () => {
    const txt = await Effect.runPromise(makeNodeDns({ servers: [dns.server] }).resolveTxt("chunks.mailroom.test"))
    expect([...txt].sort()).toEqual(["mailroom-verify=dom_1", "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0"])
  })

  it("tells a name that does not exist and a name without the record type from a failed lookup", async () => {
    const node = makeNodeDns({ servers: [dns.server], cache: false, timeoutMs: 150, tries: 1 })
    expect(await failureOf(node.resolveTxt("missing.mailroom.test"))).toEqual({ kind: "notFound", reason: "ENOTFOUND" })
    expect(await failureOf(node.resolveTxt("v4.mailroom.test"))).toEqual({ kind: "notFound", reason: "ENODATA" })
    expect(await failureOf(node.resolveMx("v4.mailroom.test"))).toEqual({ kind: "notFound", reason: "ENODATA" })
    expect(await failureOf(node.resolveTxt("broken.mailroom.test"))).toEqual({ kind: "failed", reason: "ESERVFAIL" })
    expect(await failureOf(node.lookupAddresses("broken.mailroom.test"))).toEqual({ kind: "failed", reason: "ESERVFAIL" })
  })

  it("gives up on a server that never answers after its timeout, as a failed lookup", async () => {
    const node = makeNodeDns({ servers: [dns.server], timeoutMs: 200, tries: 2 })
    const started = Date.now()
    expect(await failureOf(node.resolveTxt("silent.mailroom.test"))).toEqual({ kind: "failed", reason: "ETIMEOUT" })
    const elapsed = Date.now() - started
    expect(elapsed).toBeGreaterThanOrEqual(350)
    expect(elapsed).toBeLessThan(3_000)
    expect(asked("TXT silent.mailroom.test")).toBeGreaterThanOrEqual(2)
  })

  it("without servers, uses the system resolver, hosts file included", async () => {
    const answer = await Effect.runPromise(makeNodeDns().lookupAddresses("localhost"))
    expect(answer.length).toBeGreaterThan(0)
    expect(answer.every((address) => address === "127.0.0.1" || address === "::1")).toBe(true)
  })
})

describe("NodeDns's cache", () => {
  it("keeps A and AAAA records for their TTL, and asks again once it has passed", async () => {
    dns.zone.set("ttl.mailroom.test", { a: ["93.184.216.34"], aaaa: ["2606:2800:220:1::1"], ttl: 30 })
    const { node, advance } = withClock()
    const before = asked("A ttl.mailroom.test")
    await Effect.runPromise(node.lookupAddresses("ttl.mailroom.test"))
    dns.zone.set("ttl.mailroom.test", { a: ["93.184.216.99"], ttl: 30 })
    advance(29)
    expect(await Effect.runPromise(node.lookupAddresses("ttl.mailroom.test"))).toEqual(["93.184.216.34", "2606:2800:220:1::1"])
    expect(asked("A ttl.mailroom.test") - before).toBe(1)
    advance(2)
    expect(await Effect.runPromise(node.lookupAddresses("ttl.mailroom.test"))).toEqual(["93.184.216.99"])
    expect(asked("A ttl.mailroom.test") - before).toBe(2)
  })

  it("does not keep records whose TTL is 0", async () => {
    dns.zone.set("zero.mailroom.test", { a: ["93.184.216.34"], ttl: 0 })
    const { node } = withClock()
    const before = asked("A zero.mailroom.test")
    await Effect.runPromise(node.lookupAddresses("zero.mailroom.test"))
    await Effect.runPromise(node.lookupAddresses("zero.mailroom.test"))
    expect(asked("A zero.mailroom.test") - before).toBe(2)
  })

  it("keeps TXT records, whose TTL Node does not tell, for the bounded default of 60 seconds", async () => {
    dns.zone.set("txt-ttl.mailroom.test", { txt: ["first"], ttl: 3_600 })
    const { node, advance } = withClock()
    await Effect.runPromise(node.resolveTxt("txt-ttl.mailroom.test"))
    dns.zone.set("txt-ttl.mailroom.test", { txt: ["second"], ttl: 3_600 })
    advance(59)
    expect(await Effect.runPromise(node.resolveTxt("txt-ttl.mailroom.test"))).toEqual(["first"])
    advance(2)
    expect(await Effect.runPromise(node.resolveTxt("txt-ttl.mailroom.test"))).toEqual(["second"])
  })

  it("never keeps a 'no such record' answer longer than a minute, whatever it is configured to", async () => {
    const { node, advance } = withClock({ cache: { negativeTtlSeconds: 3_600 } })
    expect((await failureOf(node.resolveTxt("late.mailroom.test"))).kind).toBe("notFound")
    dns.zone.set("late.mailroom.test", { txt: ["mailroom-verify=dom_2"] })
    advance(59)
    expect((await failureOf(node.resolveTxt("late.mailroom.test"))).reason).toBe("ENOTFOUND")
    advance(2)
    expect(await Effect.runPromise(node.resolveTxt("late.mailroom.test"))).toEqual(["mailroom-verify=dom_2"])
  })

  it("keeps a 'no such record' answer 30 seconds by default", async () => {
    dns.zone.set("nodata.mailroom.test", { a: ["93.184.216.34"] })
    const { node, advance } = withClock()
    expect((await failureOf(node.resolveTxt("nodata.mailroom.test"))).reason).toBe("ENODATA")
    dns.zone.set("nodata.mailroom.test", { txt: ["published"] })
    advance(29)
    expect((await failureOf(node.resolveTxt("nodata.mailroom.test"))).reason).toBe("ENODATA")
    advance(2)
    expect(await Effect.runPromise(node.resolveTxt("nodata.mailroom.test"))).toEqual(["published"])
  })

  it("never keeps a failed lookup: the next lookup asks again", async () => {
    dns.zone.set("flaky.mailroom.test", { failure: "servfail" })
    const { node } = withClock()
    expect((await failureOf(node.resolveTxt("flaky.mailroom.test"))).kind).toBe("failed")
    dns.zone.set("flaky.mailroom.test", { txt: ["recovered"] })
    expect(await Effect.runPromise(node.resolveTxt("flaky.mailroom.test"))).toEqual(["recovered"])
  })

  it("asks once for lookups of the same question that overlap", async () => {
    dns.zone.set("shared.mailroom.test", { mx: [{ exchange: "mx.shared.mailroom.test", priority: 5 }] })
    const { node } = withClock()
    const answers = await Effect.runPromise(Effect.all(Array.from({ length: 5 }, () => node.resolveMx("shared.mailroom.test")), { concurrency: 5 }))
    expect(answers.every((answer) => answer[0]?.exchange === "mx.shared.mailroom.test")).toBe(true)
    expect(asked("MX shared.mailroom.test")).toBe(1)
  })

  it("asks the servers now for a fresh lookup, and keeps its answer for the lookups after it", async () => {
    const { node } = withClock()
    expect((await failureOf(node.resolveTxt("fresh.mailroom.test"))).kind).toBe("notFound")
    dns.zone.set("fresh.mailroom.test", { txt: ["mailroom-verify=dom_3"] })
    expect((await failureOf(node.resolveTxt("fresh.mailroom.test"))).kind).toBe("notFound")
    expect(await Effect.runPromise(node.resolveTxt("fresh.mailroom.test", { fresh: true }))).toEqual(["mailroom-verify=dom_3"])
    const before = asked("TXT fresh.mailroom.test")
    expect(await Effect.runPromise(node.resolveTxt("fresh.mailroom.test"))).toEqual(["mailroom-verify=dom_3"])
    expect(asked("TXT fresh.mailroom.test")).toBe(before)
  })

  it("asks every time when the cache is off", async () => {
    dns.zone.set("uncached.mailroom.test", { txt: ["v"], ttl: 300 })
    const node = makeNodeDns({ servers: [dns.server], cache: false })
    await Effect.runPromise(node.resolveTxt("uncached.mailroom.test"))
    await Effect.runPromise(node.resolveTxt("uncached.mailroom.test"))
    expect(asked("TXT uncached.mailroom.test")).toBe(2)
  })
})

describe("parseDnsServers (DNS_SERVERS)", () => {
  it.each([
    ["1.1.1.1", ["1.1.1.1"]],
    ["127.0.0.1:5353", ["127.0.0.1:5353"]],
    [" 1.1.1.1 , 8.8.8.8:53 ", ["1.1.1.1", "8.8.8.8:53"]],
    ["2001:db8::1", ["2001:db8::1"]],
    ["[2001:db8::1]", ["2001:db8::1"]],
    ["[::1]:5353", ["[::1]:5353"]],
    ["", []],
  ])("reads %j", (value, servers) => {
    expect(parseDnsServers(value)).toEqual(servers)
  })

  it.each(["dns.example.com", "1.1.1.1:0", "1.1.1.1:70000", "1.1.1.1:x", "[1.1.1.1]:53", "[::1]:", "::1]:53"])(
    "refuses %j naming the entry",
    (value) => {
      expect(() => parseDnsServers(value)).toThrow(value.trim())
    },
  )
})
