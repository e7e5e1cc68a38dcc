import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { type Domain, type DomainId } from "../../src/index.js"
import { checkDkim, checkDmarc, checkOwnership, checkSpf, parseSpf, parseTags, withSpfInclude } from "../../src/domain/dns-records.js"
import { decideRecheck, decideVerification, failedByRecheck, parseHostname } from "../../src/domain/domain.js"
import { doubledNameProblem } from "../../src/domain/dns-records.js"

describe("parseHostname (sending spec, Domains)", () => {
  it.each([
    ["example.com", "example.com"],
    ["Mail.Example.COM.", "mail.example.com"],
    ["  news.example.co.uk ", "news.example.co.uk"],
    ["münchen.de", "xn--mnchen-3ya.de"],
    ["xn--mnchen-3ya.de", "xn--mnchen-3ya.de"],
    ["user.github.io", "user.github.io"],
    ["example.test", "example.test"],
  ])("accepts %j as %j", (input, hostname) => {
    expect(parseHostname(input)).toEqual(Either.right(hostname))
  })

  it.each([
    ["", /empty/], ["192.0.2.1", /IP address/], ["[::1]", /IP address/], ["2001:db8::1", /IP address/],
    ["com", /registrable/], ["co.uk", /public suffix/], ["github.io", /public suffix/], ["example.123", /not a valid domain name/],
    ["http://example.com", /bare domain/], ["a@example.com", /bare domain/], ["exa_mple.com", /label/],
    ["-x.example.com", /label/], [`${"a".repeat(250)}.com`, /253/], ["a..example.com", /label/],
  ])("refuses %j", (input, reason) => {
    const parsed = parseHostname(input)
    expect(Either.isLeft(parsed) && reason.test(parsed.left), JSON.stringify(parsed)).toBe(true)
  })
})

describe("SPF", () => {
  it.each([
    ["v=spf1 -all", "v=spf1 include:_spf.m.test -all"],
    ["v=spf1 include:_spf.google.com ~all", "v=spf1 include:_spf.google.com include:_spf.m.test ~all"],
    ["v=spf1 mx", "v=spf1 mx include:_spf.m.test"],
    ["v=spf1 a redirect=_spf.other.test", "v=spf1 a include:_spf.m.test redirect=_spf.other.test"],
    ["v=spf1  include:_SPF.m.test.  -all", "v=spf1 include:_SPF.m.test. -all"],
  ])("adds the include to %j where it takes effect", (record, merged) => {
    expect(withSpfInclude(record, "_spf.m.test")).toBe(merged)
  })

  it("parses terms with their qualifiers and refuses unknown mechanisms and two redirects", () => {
    expect(parseSpf("v=spf1 ip4:192.0.2.0/24 ~include:x.test exp=why.test -all")).toEqual({
      terms: [
        { text: "ip4:192.0.2.0/24", qualifier: "+", name: "ip4", value: "192.0.2.0/24" },
        { text: "~include:x.test", qualifier: "~", name: "include", value: "x.test" },
        { text: "exp=why.test", qualifier: undefined, name: "exp", value: "why.test" },
        { text: "-all", qualifier: "-", name: "all", value: "" },
      ],
    })
    expect(parseSpf("v=spf1 bogus -all")).toEqual({ invalid: "bogus is not an SPF mechanism" })
    expect(parseSpf("v=spf1 include: -all")).toEqual({ invalid: "include: names no domain" })
    expect(parseSpf("v=spf1 redirect=a.test redirect=b.test")).toEqual({ invalid: "it has two redirect= modifiers" })
    expect(parseSpf("v=spf10 -all")).toEqual({ invalid: "it does not start with v=spf1" })
  })

  it.each([
    [[], "pending"],
    [["v=spf1 include:_spf.m.test -all"], "verified"],
    [["other", "v=spf1 +include:_spf.m.test mx ~all"], "verified"],
    [["v=spf1 a redirect=x.test include:_spf.m.test"], "verified"],
    [["v=spf1 -all include:_spf.m.test"], "failed"],
    [["v=spf1 ?include:_spf.m.test -all"], "failed"],
    [["v=spf1 include:_spf.other.test -all"], "failed"],
    [["v=spf1 include:_spf.m.test -all", "v=spf1 -all"], "failed"],
  ])("checks %j as %s", (values, status) => {
    expect(checkSpf(values, "example.com", "_spf.m.test", "v=spf1 include:_spf.m.test -all").state.status).toBe(status)
  })
})

describe("ownership, DKIM and DMARC", () => {
  it("finds the ownership value among other TXT records, and tells another domain's value apart", () => {
    expect(checkOwnership(["x", " mailroom-verify=dom_1 "], "e.test", "mailroom-verify=dom_1").status).toBe("verified")
    expect(checkOwnership(["mailroom-verify=dom_2"], "e.test", "mailroom-verify=dom_1")).toMatchObject({
      status: "failed", problem: { code: "DNS_VERIFICATION_FAILED" },
    })
    expect(checkOwnership([], "e.test", "mailroom-verify=dom_1")).toMatchObject({ status: "pending", problem: { code: "DNS_VERIFICATION_FAILED" } })
  })

  it("reads tags, refusing what is not a tag list", () => {
    expect(parseTags("v=DKIM1; k=rsa; p=AB CD")).toEqual(new Map([["v", "DKIM1"], ["k", "rsa"], ["p", "AB CD"]]))
    expect(parseTags("not tags")).toBeUndefined()
    expect(parseTags("p=a; p=b")).toBeUndefined()
  })

  it.each([
    [["v=DKIM1; k=rsa; p=KEY"], "verified"],
    [["p=K E Y"], "verified"],
    [["v=DKIM1; k=ed25519; p=KEY"], "failed"],
    [["v=DKIM1; k=rsa; p="], "failed"],
    [["v=DKIM1; k=rsa; p=OTHER"], "failed"],
    [["v=DKIM1; p=KEY", "v=DKIM1; p=KEY"], "failed"],
    [["unrelated"], "pending"],
  ])("checks the DKIM record %j as %s", (values, status) => {
    expect(checkDkim(values, "default._domainkey.e.test", "KEY", "v=DKIM1; k=rsa; p=KEY").status).toBe(status)
  })

  it.each([
    [["v=DMARC1; p=quarantine; rua=mailto:d@m.test"], "verified"],
    [["v=DMARC1;p=none"], "verified"],
    [["v=DMARC1; rua=mailto:d@m.test"], "failed"],
    [["v=DMARC1; p=maybe"], "failed"],
    [["v=DMARC1; p=none", "v=DMARC1; p=reject"], "failed"],
    [["p=reject; v=DMARC1"], "pending"],
  ])("checks the DMARC record %j as %s", (values, status) => {
    expect(checkDmarc(values, "_dmarc.e.test", "v=DMARC1; p=quarantine").status).toBe(status)
  })

  it("explains a record found at the doubled name with the host to enter", () => {
    const problem = { code: "DNS_RECORD_MISSING", message: "" } as const
    expect(doubledNameProblem(problem, "_dmarc.e.test", "e.test").message).toMatch(/at _dmarc\.e\.test\.e\.test .*Enter the host as _dmarc,/)
    expect(doubledNameProblem(problem, "e.test", "e.test").message).toMatch(/Enter the host as @/)
  })
})

const at = (day: number) => new Date(Date.UTC(2026, 0, 1 + day))
const domain = (overrides: Partial<Domain> = {}): Domain => ({
  id: "dom_1" as DomainId, accountId: "acc_1" as Domain["accountId"], hostname: "e.test", status: "pending",
  isInboxHosted: false, spfValue: "v=spf1 include:_spf.m.test -all",
  records: {
    verification: { status: "pending", problem: null }, spf: { status: "pending", problem: null },
    dkim: { status: "pending", problem: null }, dmarc: { status: "pending", problem: null },
  },
  dkim: { selector: "default", publicKey: "KEY", sealedPrivateKey: "v1.x" },
  createdAt: at(0), verifiedAt: null, lastCheckedAt: null, failingSince: null, ...overrides,
})
const ok = { status: "verified", problem: null } as const
const gone = { status: "pending", problem: { code: "DNS_RECORD_MISSING", message: "gone" } } as const

describe("decideVerification (States and transitions, Domain rows)", () => {
  it("verifies a pending domain when all four records pass, and keeps it pending otherwise", () => {
    const all = { records: { verification: ok, spf: ok, dkim: ok, dmarc: ok }, spfValue: "v" }
    expect(decideVerification(domain(), all, at(1))).toMatchObject({ status: "verified", verifiedAt: at(1), lastCheckedAt: at(1), spfValue: "v" })
    const some = { records: { verification: ok, spf: ok, dkim: gone, dmarc: ok }, spfValue: "v" }
    expect(decideVerification(domain(), some, at(1))).toMatchObject({ status: "pending", verifiedAt: null, failingSince: null })
  })

  it("keeps the records it did not check", () => {
    const before = domain({ records: { ...domain().records, dkim: ok } })
    const next = decideVerification(before, { records: { verification: gone }, spfValue: "v" }, at(1))
    expect(next.records.dkim).toEqual(ok)
    expect(next.records.verification).toEqual(gone)
  })

  it("keeps a verified domain verified when a record goes, counting since when it fails; the re-check fails it after 3 days", () => {
    const verified = domain({ status: "verified", verifiedAt: at(1), records: { verification: ok, spf: ok, dkim: ok, dmarc: ok } })
    const failing = decideVerification(verified, { records: { verification: ok, spf: ok, dkim: gone, dmarc: ok }, spfValue: "v" }, at(2))
    expect(failing).toMatchObject({ status: "verified", verifiedAt: at(1), failingSince: at(2) })
    expect(decideVerification(failing, { records: { verification: gone }, spfValue: "v" }, at(3)).failingSince).toEqual(at(2))
    expect([failedByRecheck(failing, at(4)), failedByRecheck(failing, at(5))]).toEqual([false, true])
    const healed = decideVerification(failing, { records: { verification: ok, spf: ok, dkim: ok, dmarc: ok }, spfValue: "v" }, at(4))
    expect([healed.failingSince, healed.verifiedAt]).toEqual([null, at(1)])
  })

  it("fails a pending domain not verified within 7 days; a failed domain may be verified again", () => {
    expect([failedByRecheck(domain(), at(6)), failedByRecheck(domain(), at(7))]).toEqual([false, true])
    const all = { records: { verification: ok, spf: ok, dkim: ok, dmarc: ok }, spfValue: "v" }
    expect(decideVerification(domain({ status: "failed" }), all, at(9))).toMatchObject({ status: "verified", verifiedAt: at(9) })
  })
})

describe("decideRecheck (docs/domains.md, \"When a domain fails\")", () => {
  const all = { records: { verification: ok, spf: ok, dkim: ok, dmarc: ok }, spfValue: "v" }
  const dkimGone = { records: { verification: ok, spf: ok, dkim: gone, dmarc: ok }, spfValue: "v" }
  const verified = domain({ status: "verified", verifiedAt: at(1), records: all.records })

  it("applies the records read, then fails a verified domain failing for 3 days", () => {
    const first = decideRecheck(verified, dkimGone, at(2))
    expect(first).toMatchObject({ status: "verified", failingSince: at(2), lastCheckedAt: at(2) })
    expect(decideRecheck(first, dkimGone, at(4)).status).toBe("verified")
    expect(decideRecheck(first, dkimGone, at(5))).toMatchObject({ status: "failed", failingSince: at(2) })
    expect(decideRecheck(first, all, at(5))).toMatchObject({ status: "verified", failingSince: null })
  })

  it("without records read (a failed lookup, a pending domain) only the time rule applies, and nothing else changes", () => {
    expect(decideRecheck(verified, null, at(30))).toBe(verified)
    expect(decideRecheck(domain(), null, at(6))).toEqual(domain())
    expect(decideRecheck(domain(), null, at(7))).toEqual({ ...domain(), status: "failed" })
  })

  it("leaves a failed domain alone", () => {
    const failed = domain({ status: "failed" })
    expect(decideRecheck(failed, all, at(9))).toBe(failed)
  })
})
