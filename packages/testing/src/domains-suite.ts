/** The domains scenario suite: every route of the spec's "Domains" table over HTTP, against a Mailroom whose DNS
 *  lookups go to a real DNS server on 127.0.0.1 that each test publishes records in. SPF_INCLUDE is
 *  `_spf.mailroom.test` and DMARC_REPORT_ADDRESS `dmarc@mailroom.test`; the target's DNS cache is off and a query
 *  waits 300 ms, once, so that a record published is seen at the next verify and a silent server fails fast. */
import { createPublicKey } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startDnsServer, type TestDnsServer, txtChunks } from "./dns-server.js"
import { expectError, type HttpTarget, makeClient } from "./http-suite/client.js"

/** What the suite asks of the Mailroom behind a target, besides adminToken "test-admin-token". */
export interface DomainsTargetConfig {
  readonly dnsServers: ReadonlyArray<string>
  readonly dns: { readonly timeoutMs: number; readonly tries: number; readonly cache: false }
  readonly spfInclude: string
  readonly dmarcReportAddress: string
}

export const domainsTargetConfig = (server: string): DomainsTargetConfig => ({
  dnsServers: [server],
  dns: { timeoutMs: 300, tries: 1, cache: false },
  spfInclude: "_spf.mailroom.test",
  dmarcReportAddress: "dmarc@mailroom.test",
})

let counter = 0
/** A hostname no other test uses. */
const freshHostname = () => `d${Date.now().toString(36)}${(counter++).toString(36)}.example`

export const domainsSuite = (name: string, makeTarget: (config: DomainsTargetConfig) => Promise<HttpTarget>) =>
  describe(`domain scenarios (${name})`, () => {
    let target: HttpTarget | undefined
    let dns: TestDnsServer
    beforeAll(async () => {
      dns = await startDnsServer()
      target = await makeTarget(domainsTargetConfig(dns.server))
    })
    afterAll(async () => {
      await target?.close()
      await dns?.close()
    })
    const client = makeClient(() => {
      if (target === undefined) throw new Error("the HTTP target is not ready")
      return target
    })

    const account = async (plan = "pro") => (await client.account({ plan })).key
    const add = async (key: string, hostname: string) => {
      const answer = await client.call("POST", "/v1/domains", { key, body: { hostname } })
      expect(answer.status, answer.text).toBe(201)
      expect(answer.text).not.toMatch(/PRIVATE KEY|sealed/i)
      return answer.json.data as Record<string, any>
    }
    const verify = async (key: string, id: string) => {
      const answer = await client.call("POST", `/v1/domains/${id}/verify`, { key })
      expect(answer.status, answer.text).toBe(200)
      return answer.json.data as Record<string, any>
    }
    /** Publishes, at `prefix` + each record's host, the records the domain lists (the DKIM key in 255-byte strings). */
    const publish = (domain: Record<string, any>, options: { readonly except?: string; readonly suffix?: string } = {}) => {
      const at = (host: string) => `${host}${options.suffix ?? ""}`
      const records = domain.dnsRecords as Record<string, { host: string; value: string }>
      const txt = new Map<string, Array<string | ReadonlyArray<string>>>()
      for (const [record, { host, value }] of Object.entries(records)) {
        if (record === options.except) continue
        const values = txt.get(at(host)) ?? []
        values.push(record === "dkim" ? txtChunks(value) : value)
        txt.set(at(host), values)
      }
      for (const [host, values] of txt) dns.zone.set(host, { txt: values, ttl: 300 })
    }
    const statuses = (domain: Record<string, any>) =>
      Object.fromEntries(Object.entries(domain.dnsRecords as Record<string, { status: string }>).map(([k, v]) => [k, v.status]))

    describe("adding a domain", () => {
      it("POST /domains answers the pending domain with the four TXT records to publish, and GET reads it back", async () => {
        const key = await account()
        const hostname = freshHostname()
        const domain = await add(key, hostname.toUpperCase())
        expect(domain).toEqual({
          id: expect.stringMatching(/^dom_/), hostname, status: "pending", isInboxHosted: false,
          dnsRecords: {
            verification: { status: "pending", type: "TXT", host: hostname, value: `mailroom-verify=${domain.id}` },
            spf: { status: "pending", type: "TXT", host: hostname, value: "v=spf1 include:_spf.mailroom.test -all" },
            dkim: {
              status: "pending", type: "TXT", host: `default._domainkey.${hostname}`, selector: "default",
              value: expect.stringMatching(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+=*$/),
            },
            dmarc: { status: "pending", type: "TXT", host: `_dmarc.${hostname}`, value: "v=DMARC1; p=quarantine; rua=mailto:dmarc@mailroom.test" },
          },
          createdAt: expect.any(String), verifiedAt: null, lastCheckedAt: null,
        })
        const publicKey = createPublicKey({ key: Buffer.from(domain.dnsRecords.dkim.value.split("p=")[1], "base64"), format: "der", type: "spki" })
        expect([publicKey.asymmetricKeyType, publicKey.asymmetricKeyDetails?.modulusLength]).toEqual(["rsa", 2048])
        const read = await client.call("GET", `/v1/domains/${domain.id}`, { key })
        expect(read.status).toBe(200)
        expect(read.json).toEqual({ success: true, data: domain })
      })

      it("lists domains with { data, pagination }, each record's status and the DKIM selector, newest first, by status", async () => {
        const key = await account("scale")
        const first = await add(key, freshHostname())
        const second = await add(key, freshHostname())
        const listed = await client.call("GET", "/v1/domains", { key })
        expect(listed.status).toBe(200)
        expect(listed.json.pagination).toEqual({ page: 1, limit: 25, total: 2, totalPages: 1 })
        expect(listed.json.data.map((d: any) => d.id)).toEqual([second.id, first.id])
        expect(listed.json.data[0].dnsRecords).toEqual({
          verification: { status: "pending" }, spf: { status: "pending" }, dkim: { status: "pending", selector: "default" },
          dmarc: { status: "pending" },
        })
        expect(listed.text).not.toMatch(/PRIVATE KEY/)
        const page = await client.call("GET", "/v1/domains?limit=1&page=2", { key })
        expect([page.json.data.map((d: any) => d.id), page.json.pagination]).toEqual([[first.id], { page: 2, limit: 1, total: 2, totalPages: 2 }])
        expect((await client.call("GET", "/v1/domains?status=verified", { key })).json.data).toEqual([])
        expect((await client.call("GET", "/v1/domains?status=pending", { key })).json.pagination.total).toBe(2)
        expectError(await client.call("GET", "/v1/domains?limit=101", { key }), 400, "VALIDATION_ERROR", "limit")
        expectError(await client.call("GET", "/v1/domains?status=gone", { key }), 400, "VALIDATION_ERROR", "status")
      })

      it("lower-cases the hostname, converts an IDN to punycode and drops a trailing dot", async () => {
        const key = await account()
        const label = `b${(counter++).toString(36)}`
        const idn = (await add(key, ` Bücher-${label}.Example. `)).hostname
        expect(idn).toMatch(new RegExp(`^xn--bcher-${label}-[a-z0-9]+\\.example$`))
        expect(idn).toBe(new URL(`http://bücher-${label}.example`).hostname)
        expect((await add(key, `Mail.${label}.CO.UK`)).hostname).toBe(`mail.${label}.co.uk`)
      })

      it.each([
        ["an IPv4 address", "192.0.2.10"],
        ["an IPv6 address", "[2001:db8::1]"],
        ["a bare public suffix", "com"],
        ["a bare public suffix of two labels", "co.uk"],
        ["a private public suffix", "github.io"],
        ["a single label", "localhost"],
        ["a URL", "https://example.com/"],
        ["an address", "ada@example.com"],
        ["a label starting with a hyphen", "-mail.example.com"],
        ["a space", "mail example.com"],
        ["an empty name", "  "],
        ["a label of 64 characters", `${"a".repeat(64)}.example.com`],
      ])("refuses %s with VALIDATION_ERROR naming hostname, and adds nothing", async (_, hostname) => {
        const key = await account()
        expectError(await client.call("POST", "/v1/domains", { key, body: { hostname } }), 400, "VALIDATION_ERROR", "hostname")
        expect((await client.call("GET", "/v1/domains", { key })).json.pagination.total).toBe(0)
      })

      it("refuses a body without hostname", async () => {
        const key = await account()
        expectError(await client.call("POST", "/v1/domains", { key, body: {} }), 400, "VALIDATION_ERROR", "hostname")
      })

      it("asks for the existing SPF record with the include before its all mechanism", async () => {
        const key = await account()
        const hostname = freshHostname()
        dns.zone.set(hostname, { txt: ["google-site-verification=abc", "v=spf1 include:_spf.google.com ~all"] })
        const domain = await add(key, hostname)
        expect(domain.dnsRecords.spf.value).toBe("v=spf1 include:_spf.google.com include:_spf.mailroom.test ~all")
      })

      it("refuses a hostname the account has already with DOMAIN_ALREADY_EXISTS; another account may add it", async () => {
        const key = await account()
        const hostname = freshHostname()
        await add(key, hostname)
        expectError(await client.call("POST", "/v1/domains", { key, body: { hostname: hostname.toUpperCase() } }), 400, "DOMAIN_ALREADY_EXISTS")
        expect((await client.call("GET", "/v1/domains", { key })).json.pagination.total).toBe(1)
        await add(await account(), hostname)
      })
    })

    describe("plans and scopes", () => {
      it("needs the Starter plan (403 below it) and counts domains per plan: Starter 1, Micro 2 (400 API_KEY_LIMIT_REACHED past it)", async () => {
        const free = await account("free")
        expectError(await client.call("POST", "/v1/domains", { key: free, body: { hostname: freshHostname() } }), 403, "PLAN_UPGRADE_REQUIRED")
        expect((await client.call("GET", "/v1/domains", { key: free })).json.pagination.total).toBe(0)

        const starter = await account("starter")
        const only = await add(starter, freshHostname())
        const over = await client.call("POST", "/v1/domains", { key: starter, body: { hostname: freshHostname() } })
        expectError(over, 400, "API_KEY_LIMIT_REACHED")
        expect(over.json.error.message).toMatch(/starter plan allows at most 1 custom domain/)
        expect((await client.call("DELETE", `/v1/domains/${only.id}`, { key: starter })).status).toBe(200)
        await add(starter, freshHostname())

        const micro = await account("micro")
        await add(micro, freshHostname())
        await add(micro, freshHostname())
        expectError(await client.call("POST", "/v1/domains", { key: micro, body: { hostname: freshHostname() } }), 400, "API_KEY_LIMIT_REACHED")
      })

      it("reads need domains:read and changes domains:write", async () => {
        const owner = await client.account({ plan: "pro" })
        const domain = await add(owner.key, freshHostname())
        const reader = await client.key(owner.id, ["domains:read"])
        expect((await client.call("GET", "/v1/domains", { key: reader.key })).status).toBe(200)
        expect((await client.call("GET", `/v1/domains/${domain.id}`, { key: reader.key })).status).toBe(200)
        expectError(await client.call("POST", "/v1/domains", { key: reader.key, body: { hostname: freshHostname() } }), 403, "SCOPE_INSUFFICIENT")
        expectError(await client.call("POST", `/v1/domains/${domain.id}/verify`, { key: reader.key }), 403, "SCOPE_INSUFFICIENT")
        expectError(await client.call("DELETE", `/v1/domains/${domain.id}`, { key: reader.key }), 403, "SCOPE_INSUFFICIENT")
        const other = await client.key(owner.id, ["contacts:read"])
        expectError(await client.call("GET", "/v1/domains", { key: other.key }), 403, "SCOPE_INSUFFICIENT")
      })

      it("answers DOMAIN_NOT_FOUND for an unknown id and for another account's domain", async () => {
        const domain = await add(await account(), freshHostname())
        const stranger = await account()
        for (const [method, path] of [["GET", ""], ["POST", "/verify"], ["DELETE", ""]] as const) {
          expectError(await client.call(method, `/v1/domains/${domain.id}${path}`, { key: stranger }), 404, "DOMAIN_NOT_FOUND")
          expectError(await client.call(method, `/v1/domains/dom_unknown${path}`, { key: stranger }), 404, "DOMAIN_NOT_FOUND")
        }
      })

      it("DELETE answers { id, deleted: true } and the domain is gone", async () => {
        const key = await account()
        const domain = await add(key, freshHostname())
        const deleted = await client.call("DELETE", `/v1/domains/${domain.id}`, { key })
        expect([deleted.status, deleted.json]).toEqual([200, { success: true, data: { id: domain.id, deleted: true } }])
        expectError(await client.call("GET", `/v1/domains/${domain.id}`, { key }), 404, "DOMAIN_NOT_FOUND")
        expect((await client.call("GET", "/v1/domains", { key })).json.pagination.total).toBe(0)
      })
    })

    describe("verifying", () => {
      it("checks the ownership record first: while it is missing, the other three are not checked", async () => {
        const key = await account()
        const domain = await add(key, freshHostname())
        publish(domain, { except: "verification" })
        const checked = await verify(key, domain.id)
        expect(checked.status).toBe("pending")
        expect(checked.dnsRecords.verification).toMatchObject({ status: "pending", error: { code: "DNS_VERIFICATION_FAILED" } })
        expect(checked.dnsRecords.verification.error.message).toContain(`mailroom-verify=${domain.id}`)
        for (const record of ["spf", "dkim", "dmarc"]) expect(checked.dnsRecords[record]).not.toHaveProperty("error")
        expect(statuses(checked)).toEqual({ verification: "pending", spf: "pending", dkim: "pending", dmarc: "pending" })
        expect(checked.lastCheckedAt).not.toBeNull()
      })

      it("with the ownership record found, reports each missing record with DNS_RECORD_MISSING, and verifies once all four are published", async () => {
        const key = await account()
        const domain = await add(key, freshHostname())
        dns.zone.set(domain.hostname, { txt: [domain.dnsRecords.verification.value] })
        const partly = await verify(key, domain.id)
        expect(statuses(partly)).toEqual({ verification: "verified", spf: "pending", dkim: "pending", dmarc: "pending" })
        for (const record of ["spf", "dkim", "dmarc"]) expect(partly.dnsRecords[record].error.code).toBe("DNS_RECORD_MISSING")
        expect(partly.status).toBe("pending")

        publish(domain)
        const done = await verify(key, domain.id)
        expect(done.status).toBe("verified")
        expect(statuses(done)).toEqual({ verification: "verified", spf: "verified", dkim: "verified", dmarc: "verified" })
        expect(Object.values(done.dnsRecords).some((record: any) => "error" in record)).toBe(false)
        expect(Date.parse(done.verifiedAt)).not.toBeNaN()

        const again = await verify(key, domain.id)
        expect([again.status, again.verifiedAt]).toEqual(["verified", done.verifiedAt])
        expect((await client.call("GET", "/v1/domains?status=verified", { key })).json.data.map((d: any) => d.id)).toEqual([domain.id])
      })

      it("reads records by meaning: an SPF record with other mechanisms and the include, a DMARC record with other tags", async () => {
        const key = await account()
        const domain = await add(key, freshHostname())
        publish(domain)
        dns.zone.set(domain.hostname, {
          txt: [domain.dnsRecords.verification.value, "v=spf1 ip4:192.0.2.0/24 mx INCLUDE:_spf.mailroom.test. ~all"],
        })
        dns.zone.set(`_dmarc.${domain.hostname}`, { txt: ["v=DMARC1;p=reject; pct=100; adkim=s"] })
        expect((await verify(key, domain.id)).status).toBe("verified")
      })

      it.each([
        ["an SPF record without the include", "spf", (d: any) => ({ [d.hostname]: [d.dnsRecords.verification.value, "v=spf1 include:_spf.google.com -all"] }),
          /does not include _spf\.mailroom\.test; publish v=spf1 include:_spf\.google\.com include:_spf\.mailroom\.test -all/],
        ["an SPF record with the include after all", "spf", (d: any) => ({ [d.hostname]: [d.dnsRecords.verification.value, "v=spf1 -all include:_spf.mailroom.test"] }),
          /comes after -all/],
        ["an SPF record with the include failing softly", "spf", (d: any) => ({ [d.hostname]: [d.dnsRecords.verification.value, "v=spf1 ~include:_spf.mailroom.test -all"] }),
          /qualifier/],
        ["an SPF record with an unknown mechanism", "spf", (d: any) => ({ [d.hostname]: [d.dnsRecords.verification.value, "v=spf1 include:_spf.mailroom.test allow -all"] }),
          /not valid: allow is not an SPF mechanism/],
        ["two SPF records", "spf", (d: any) => ({ [d.hostname]: [d.dnsRecords.verification.value, d.dnsRecords.spf.value, "v=spf1 include:_spf.google.com -all"] }),
          /has 2 SPF records/],
        ["a DKIM record with another key", "dkim", (d: any) => ({ [`default._domainkey.${d.hostname}`]: ["v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA"] }),
          /another public key/],
        ["two DKIM records at the selector", "dkim", (d: any) => ({ [`default._domainkey.${d.hostname}`]: [txtChunks(d.dnsRecords.dkim.value), "v=DKIM1; k=rsa; p=MIIBIjANBgkq"] }),
          /has 2 DKIM records/],
        ["a DMARC record without a valid policy", "dmarc", (d: any) => ({ [`_dmarc.${d.hostname}`]: ["v=DMARC1; p=maybe"] }),
          /no valid p= policy/],
        ["two DMARC records", "dmarc", (d: any) => ({ [`_dmarc.${d.hostname}`]: [d.dnsRecords.dmarc.value, "v=DMARC1; p=none"] }),
          /has 2 DMARC records/],
      ])("fails %s with DNS_RECORD_MISSING saying why; the domain stays pending", async (_, record, zone, message) => {
        const key = await account()
        const domain = await add(key, freshHostname())
        publish(domain)
        for (const [host, txt] of Object.entries(zone(domain))) dns.zone.set(host, { txt: txt as Array<string | ReadonlyArray<string>> })
        const checked = await verify(key, domain.id)
        expect(checked.status).toBe("pending")
        expect(checked.dnsRecords[record]).toMatchObject({ status: "failed", error: { code: "DNS_RECORD_MISSING" } })
        expect(checked.dnsRecords[record].error.message).toMatch(message)
        for (const other of ["verification", "spf", "dkim", "dmarc"].filter((r) => r !== record)) {
          expect(checked.dnsRecords[other].status, other).toBe("verified")
        }
      })

      it("shows the SPF value to publish from the domain's own SPF record found at verify", async () => {
        const key = await account()
        const domain = await add(key, freshHostname())
        publish(domain)
        dns.zone.set(domain.hostname, { txt: [domain.dnsRecords.verification.value, "v=spf1 mx ?all"] })
        const checked = await verify(key, domain.id)
        expect(checked.dnsRecords.spf.value).toBe("v=spf1 mx include:_spf.mailroom.test ?all")
        expect((await client.call("GET", `/v1/domains/${domain.id}`, { key })).json.data.dnsRecords.spf.value)
          .toBe("v=spf1 mx include:_spf.mailroom.test ?all")
      })

      it("finds records published at the doubled name (<host>.<domain>.<domain>) and says how to fix them", async () => {
        const key = await account()
        const domain = await add(key, freshHostname())
        publish(domain, { suffix: `.${domain.hostname}` })
        const first = await verify(key, domain.id)
        expect(first.dnsRecords.verification).toMatchObject({ status: "pending", error: { code: "DNS_VERIFICATION_FAILED" } })
        expect(first.dnsRecords.verification.error.message).toContain(`published at ${domain.hostname}.${domain.hostname}`)
        expect(first.dnsRecords.verification.error.message).toMatch(/Enter the host as @/)

        dns.zone.set(domain.hostname, { txt: [domain.dnsRecords.verification.value, domain.dnsRecords.spf.value] })
        const second = await verify(key, domain.id)
        expect(statuses(second)).toEqual({ verification: "verified", spf: "verified", dkim: "pending", dmarc: "pending" })
        expect(second.dnsRecords.dkim.error.message).toContain(`published at default._domainkey.${domain.hostname}.${domain.hostname}`)
        expect(second.dnsRecords.dkim.error.message).toMatch(/Enter the host as default\._domainkey,/)
        expect(second.dnsRecords.dmarc.error.message).toMatch(/Enter the host as _dmarc,/)
      })

      it("answers DNS_LOOKUP_ERROR when the DNS server does not answer, and changes nothing", async () => {
        const key = await account()
        const domain = await add(key, freshHostname())
        dns.zone.set(domain.hostname, { txt: [domain.dnsRecords.verification.value] })
        await verify(key, domain.id)
        const before = (await client.call("GET", `/v1/domains/${domain.id}`, { key })).json
        dns.zone.set(domain.hostname, { failure: "silent" })
        const answer = await client.call("POST", `/v1/domains/${domain.id}/verify`, { key })
        expectError(answer, 400, "DNS_LOOKUP_ERROR")
        expect(answer.json.error.message).toContain(domain.hostname)
        expect((await client.call("GET", `/v1/domains/${domain.id}`, { key })).json).toEqual(before)

        publish(domain)
        dns.zone.set(`_dmarc.${domain.hostname}`, { failure: "servfail" })
        expectError(await client.call("POST", `/v1/domains/${domain.id}/verify`, { key }), 400, "DNS_LOOKUP_ERROR")
        expect((await client.call("GET", `/v1/domains/${domain.id}`, { key })).json).toEqual(before)
      })
    })
  })
