/** createMailroom's dnsServers (DNS_SERVERS): every lookup of the runtime goes to those servers. */
import { Dns } from "@mailroom/core"
import { startDnsServer, type TestDnsServer } from "@mailroom/testing"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMailroom, DnsServersError } from "../src/index.js"

let dns: TestDnsServer
beforeAll(async () => {
  dns = await startDnsServer({ "configured.mailroom.test": { txt: ["mailroom-verify=dom_configured"] } })
})
afterAll(() => dns.close())

describe("createMailroom's dnsServers", () => {
  it("sends the runtime's lookups to the configured servers", async () => {
    const mailroom = createMailroom({ database: "memory:", dnsServers: [dns.server], backgroundWork: false })
    try {
      const txt = await mailroom.runtime.runPromise(Effect.flatMap(Dns, (resolver) => resolver.resolveTxt("configured.mailroom.test")))
      expect(txt).toEqual(["mailroom-verify=dom_configured"])
      expect(dns.questions).toContain("TXT configured.mailroom.test")
    } finally {
      await mailroom.close()
    }
  })

  it("refuses an entry that is not an IP address when it is created", () => {
    expect(() => createMailroom({ database: "memory:", dnsServers: ["resolver.example.com"] })).toThrow(DnsServersError)
  })
})
