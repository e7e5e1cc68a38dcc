import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type AddressChecks, isDisposableDomain, isRoleAccount, isValidAddress, mailHostsOf, parseAddressSyntax, suggestedDomain,
} from "../../src/index.js"

describe("parseAddressSyntax: RFC 5321's practical rules", () => {
  it.each([
    ["ada@example.com", "ada@example.com"],
    ["Ada.Lovelace+news@Example.COM", "Ada.Lovelace+news@example.com"],
    ["\"ada lovelace\"@example.com", "\"ada lovelace\"@example.com"],
    ["\"a\\\"b\"@example.com", "\"a\\\"b\"@example.com"],
    ["ada@bücher.example", "ada@xn--bcher-kva.example"],
    ["josé@example.com", "josé@example.com"],
    [`${"a".repeat(64)}@example.com`, `${"a".repeat(64)}@example.com`],
  ])("accepts %s as %s", (input, address) => {
    expect(Either.getOrThrow(parseAddressSyntax(input)).address).toBe(address)
  })

  it.each([
    ["", "no @"], ["ada", "no @"], ["@example.com", "empty"], ["ada@", "empty"], ["ada..b@example.com", "dots"],
    [".ada@example.com", "dots"], ["ada.@example.com", "dots"], ["a b@example.com", "quoted"], ["\"ada@example.com", "quoted"],
    [`${"a".repeat(65)}@example.com`, "64 octets"], [`${"é".repeat(33)}@example.com`, "64 octets"],
    ["ada@example", "top-level"], ["ada@-example.com", "label"], ["ada@exa_mple.com", "label"], ["ada@example.123", "valid domain"],
    [`ada@${"d".repeat(64)}.com`, "label"], ["ada@[192.0.2.1]", "literal"], ["ada@exa mple.com", "valid domain"],
    ["ada\n@example.com", "control"],
  ])("refuses %j (%s)", (input, why) => {
    const parsed = parseAddressSyntax(input)
    expect(Either.isLeft(parsed)).toBe(true)
    expect(Either.isLeft(parsed) && parsed.left).toMatch(new RegExp(why))
  })

  it("refuses a domain past 255 octets and an address past 254", () => {
    const label = "d".repeat(63)
    expect(Either.getLeft(parseAddressSyntax(`a@${[label, label, label, label].join(".")}.com`))._tag).toBe("Some")
    expect(Either.getLeft(parseAddressSyntax(`${"a".repeat(64)}@${[label, label, label].join(".")}.com`))).toEqual(
      expect.objectContaining({ value: expect.stringMatching(/254 octets/) }))
  })

  it("never throws, and whatever it accepts has a lower-case ASCII domain", () => {
    fc.assert(fc.property(fc.string(), fc.string(), (local, domain) => {
      const parsed = parseAddressSyntax(`${local}@${domain}`)
      if (Either.isRight(parsed)) expect(parsed.right.domain).toMatch(/^[a-z0-9.-]+$/)
    }))
  })
})

describe("mailHostsOf: RFC 5321 5.1 and RFC 7505", () => {
  it("orders exchanges by preference", () => {
    expect(mailHostsOf([{ exchange: "b.example.", priority: 20 }, { exchange: "A.example", priority: 10 }]))
      .toEqual({ _tag: "exchanges", hosts: ["a.example", "b.example"] })
  })
  it("no MX record means the domain itself (implicit MX)", () => expect(mailHostsOf([])).toEqual({ _tag: "implicit" }))
  it.each([[""], ["."]])("a null MX (%j) means no mail", (exchange) =>
    expect(mailHostsOf([{ exchange, priority: 0 }])).toEqual({ _tag: "none" }))
})

describe("flags and verdict", () => {
  it.each([["admin", true], ["Support+eu", true], ["noreply", true], ["postmaster", true], ["\"abuse\"", true], ["ada", false]])(
    "role account %s: %s", (local, role) => expect(isRoleAccount(local)).toBe(role))

  it("disposable domains, and names under them, are flagged", () => {
    expect(isDisposableDomain("mailinator.com")).toBe(true)
    expect(isDisposableDomain("inbox.mailinator.com")).toBe(true)
    expect(isDisposableDomain("gmail.com")).toBe(false)
  })

  it("suggests popular domains for typos, and only real suffixes", () => {
    expect(suggestedDomain("gmial.com")).toBe("gmail.com")
    expect(suggestedDomain("gmail.com")).toBeNull()
    expect(suggestedDomain("mx.example")).toBeNull()
  })

  const checks = (overrides: Partial<AddressChecks>): AddressChecks => ({
    syntax: true, mxRecords: true, smtpHandshake: null, disposable: false, roleAccount: false, catchAll: null, ...overrides,
  })
  it.each([
    [{}, true], [{ smtpHandshake: true }, true], [{ smtpHandshake: false }, false], [{ mxRecords: false }, false],
    [{ mxRecords: null }, false], [{ syntax: false }, false], [{ disposable: true, roleAccount: true, catchAll: true }, true],
  ] as const)("valid(%j) is %s", (overrides, valid) => expect(isValidAddress(checks(overrides))).toBe(valid))
})
