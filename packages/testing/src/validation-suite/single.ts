/** POST /emails/validate: every check of the spec's response against the local DNS server and the probe targets. */
import { describe, expect, it } from "vitest"
import { expectError } from "../http-suite/client.js"
import { validate, type ValidationContext } from "./setup.js"

export const singleValidationTests = (ctx: () => ValidationContext) => {
  const account = async () => (await ctx().client.account({ plan: "pro" })).key
  const checksOf = async (email: string, extra: Record<string, unknown> = {}) =>
    (await validate(ctx().client, await account(), { email, ...extra })).checks as Record<string, unknown>

  describe("POST /emails/validate", () => {
    it("answers the spec's fields; without extended no SMTP session is opened", async () => {
      const sessions = ctx().targets.smtp.sink.connectionCount()
      const data = await validate(ctx().client, await account(), { email: "ok-ada@mx.example" })
      expect(data).toEqual({
        email: "ok-ada@mx.example",
        valid: true,
        checks: { syntax: true, mxRecords: true, smtpHandshake: null, disposable: false, roleAccount: false, catchAll: null },
        suggestion: null,
        reason: null,
      })
      expect(ctx().targets.smtp.sink.connectionCount()).toBe(sessions)
    })

    it("extended asks the best MX host: 250 is true, and a random address refused means not catch-all", async () => {
      const data = await validate(ctx().client, await account(), { email: "ok-bea@mx.example", extended: true })
      expect(data.checks).toEqual(expect.objectContaining({ smtpHandshake: true, catchAll: false }))
      expect(data.valid).toBe(true)
      const asked = ctx().targets.smtp.recipients
      const at = asked.lastIndexOf("ok-bea@mx.example")
      expect(at).toBeGreaterThanOrEqual(0)
      expect(asked[at + 1]).toMatch(/^mailroom-probe-[a-z0-9]+@mx\.example$/)
    })

    it("extended: a 550 is false and the address is not valid", async () => {
      const data = await validate(ctx().client, await account(), { email: "gone-cy@mx.example", extended: true })
      expect(data.checks.smtpHandshake).toBe(false)
      expect(data.valid).toBe(false)
      expect(data.reason).toMatch(/refused the mailbox/)
    })

    it("extended: a 451 is null (unknown), never false, and the address stays valid", async () => {
      const data = await validate(ctx().client, await account(), { email: "greylist-dan@mx.example", extended: true })
      expect(data.checks.smtpHandshake).toBeNull()
      expect(data.valid).toBe(true)
    })

    it("extended: a server that never answers is null once `timeout` has passed", async () => {
      const started = Date.now()
      const data = await validate(ctx().client, await account(), { email: "ok-eve@silent.example", extended: true, timeout: 1_000 })
      expect(data.checks).toEqual(expect.objectContaining({ mxRecords: true, smtpHandshake: null, catchAll: null }))
      expect(Date.now() - started).toBeLessThan(4_000)
    })

    it("extended: a refused connection is null", async () => {
      expect((await checksOf("ok-fay@refused.example", { extended: true })).smtpHandshake).toBeNull()
    })

    it("a domain that accepts a random address is reported as catch-all", async () => {
      const data = await validate(ctx().client, await account(), { email: "whoever@catchall.example", extended: true })
      expect(data.checks).toEqual(expect.objectContaining({ smtpHandshake: true, catchAll: true }))
    })

    it("without MX records the domain's own address takes mail (RFC 5321 5.1), and is the host probed", async () => {
      expect(await checksOf("ok-gus@aonly.example", { extended: true }))
        .toEqual(expect.objectContaining({ mxRecords: true, smtpHandshake: true }))
    })

    it("a null MX (RFC 7505) counts as no mail, even with an address", async () => {
      const data = await validate(ctx().client, await account(), { email: "ok-hal@nullmx.example", extended: true })
      expect(data.checks).toEqual(expect.objectContaining({ mxRecords: false, smtpHandshake: null }))
      expect(data.valid).toBe(false)
    })

    it.each([
      ["a domain with neither MX nor address records", "ada@nomail.example"],
      ["a domain that does not exist", "ada@nowhere.example"],
    ])("%s has mxRecords false", async (_, email) => {
      expect((await checksOf(email)).mxRecords).toBe(false)
    })

    it("a failing lookup answers 400 DNS_LOOKUP_ERROR", async () => {
      const answer = await ctx().client.call("POST", "/v1/emails/validate", { key: await account(), body: { email: "ada@broken.example" } })
      expectError(answer, 400, "DNS_LOOKUP_ERROR")
    })

    it("an IDN domain is checked in punycode", async () => {
      const data = await validate(ctx().client, await account(), { email: "ada@Bücher.example" })
      expect(data.email).toBe("ada@Bücher.example")
      expect(data.checks).toEqual(expect.objectContaining({ syntax: true, mxRecords: true }))
    })

    it.each([
      ["no @", "ada.mx.example", false],
      ["an empty local part", "@mx.example", false],
      ["two dots in a row", "ada..lovelace@mx.example", false],
      ["a leading dot", ".ada@mx.example", false],
      ["an unquoted space", "ada lovelace@mx.example", false],
      ["a quoted local part with a space and an @", "\"ada lovelace@home\"@mx.example", true],
      ["an unclosed quote", "\"ada@mx.example", false],
      ["a local part of 64 octets", `${"a".repeat(64)}@mx.example`, true],
      ["a local part of 65 octets", `${"a".repeat(65)}@mx.example`, false],
      ["a domain label of 64 characters", `ada@${"d".repeat(64)}.example`, false],
      ["a domain longer than 255 octets", `ada@${Array.from({ length: 5 }, () => "d".repeat(60)).join(".")}.example`, false],
      ["no top-level domain", "ada@localhost", false],
      ["an address literal", "ada@[127.0.0.1]", false],
      ["plus addressing", "ada+news@mx.example", true],
    ])("syntax: %s", async (_, email, syntax) => {
      const data = await validate(ctx().client, await account(), { email })
      expect(data.checks.syntax).toBe(syntax)
      if (!syntax) {
        expect(data.valid).toBe(false)
        expect(data.reason).toEqual(expect.any(String))
      }
    })

    it("flags disposable domains and role accounts, which stay valid", async () => {
      expect((await checksOf("ada@mailinator.com")).disposable).toBe(true)
      const role = await validate(ctx().client, await account(), { email: "Support+billing@mx.example" })
      expect(role.checks).toEqual(expect.objectContaining({ roleAccount: true, disposable: false }))
      expect(role.valid).toBe(true)
      expect((await checksOf("postmaster@mx.example")).roleAccount).toBe(true)
      expect((await checksOf("ada@mx.example")).roleAccount).toBe(false)
    })

    it("suggests the corrected address for a likely typo, and null otherwise", async () => {
      const key = await account()
      expect((await validate(ctx().client, key, { email: "ada@gmial.com" })).suggestion).toBe("ada@gmail.com")
      expect((await validate(ctx().client, key, { email: "ada@yaho.com" })).suggestion).toBe("ada@yahoo.com")
      expect((await validate(ctx().client, key, { email: "ada@mx.example" })).suggestion).toBeNull()
      expect((await validate(ctx().client, key, { email: "ada@gmail.com" })).suggestion).toBeNull()
    })

    it.each([
      ["email missing", {}, "email"],
      ["email not a string", { email: 42 }, "email"],
      ["email too long to be checked", { email: `${"a".repeat(1_001)}@mx.example` }, "email"],
      ["extended not a boolean", { email: "ada@mx.example", extended: "yes" }, "extended"],
      ["timeout below 1,000", { email: "ada@mx.example", timeout: 999 }, "timeout"],
      ["timeout above 60,000", { email: "ada@mx.example", timeout: 60_001 }, "timeout"],
      ["timeout not an integer", { email: "ada@mx.example", timeout: 1_500.5 }, "timeout"],
      ["an unknown field", { email: "ada@mx.example", deep: true }, "deep"],
    ])("refuses %s with 400 VALIDATION_ERROR, asking nothing of DNS", async (_, body, field) => {
      const asked = ctx().dns.questions.length
      const answer = await ctx().client.call("POST", "/v1/emails/validate", { key: await account(), body })
      expectError(answer, 400, "VALIDATION_ERROR", field)
      expect(ctx().dns.questions.length).toBe(asked)
    })

    it("accepts timeout at both ends of 1,000-60,000", async () => {
      const key = await account()
      for (const timeout of [1_000, 60_000]) expect((await validate(ctx().client, key, { email: "ada@mx.example", timeout })).valid).toBe(true)
    })

    it("is limited to 50 requests per second per key: past them 429 RATE_LIMIT_EXCEEDED with Retry-After", async () => {
      const key = await account()
      const answers = await Promise.all(Array.from({ length: 70 }, () =>
        ctx().client.call("POST", "/v1/emails/validate", { key, body: { email: "not an address" } })))
      const refused = answers.filter((answer) => answer.status === 429)
      expect(answers.filter((answer) => answer.status === 200).length).toBeLessThanOrEqual(60)
      expect(refused.length).toBeGreaterThanOrEqual(10)
      expectError(refused[0]!, 429, "RATE_LIMIT_EXCEEDED")
      expect(refused[0]!.headers.get("retry-after")).toMatch(/^\d+$/)
    })
  })
}
