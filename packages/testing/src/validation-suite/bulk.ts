/** POST /emails/validate/bulk and GET /emails/validate/bulk/{id}: a job answered at once (202), its progress and
 *  results read when ready, `continueOnError`, lookups cached per domain, probes capped per MX host, limits, scopes
 *  and foreign ids. */
import { describe, expect, it } from "vitest"
import { expectError } from "../http-suite/client.js"
import { runBulk, type ValidationContext } from "./setup.js"

export const bulkValidationTests = (ctx: () => ValidationContext) => {
  const account = async () => (await ctx().client.account({ plan: "pro" })).key
  const mxQuestions = (domain: string) => ctx().dns.questions.filter((question) => question === `MX ${domain}`).length

  describe("POST /emails/validate/bulk", () => {
    it("answers 202 with the job at once, then GET shows it completed with every result in order", async () => {
      const key = await account()
      const emails = ["ok-ada@mx.example", "not an address", "ada@nullmx.example", "admin@mx.example"]
      const { started, job } = await runBulk(ctx().client, key, { emails })
      expect(started).toEqual({
        id: expect.stringMatching(/^vjob_/), status: "queued", total: 4, processed: 0, progress: 0, extended: false,
        timeout: 30_000, continueOnError: true, error: null, createdAt: expect.any(String), startedAt: null, completedAt: null,
      })
      expect(job).toEqual(expect.objectContaining({
        id: started.id, status: "completed", total: 4, processed: 4, progress: 100, error: null,
        startedAt: expect.any(String), completedAt: expect.any(String),
      }))
      expect(job.results.map((result: any) => [result.email, result.valid])).toEqual([
        ["ok-ada@mx.example", true], ["not an address", false], ["ada@nullmx.example", false], ["admin@mx.example", true],
      ])
      expect(job.results[3]).toEqual({
        email: "admin@mx.example", valid: true, suggestion: null, reason: null, error: null,
        checks: { syntax: true, mxRecords: true, smtpHandshake: null, disposable: false, roleAccount: true, catchAll: null },
      })
    })

    it("with continueOnError (the default) a failing lookup is that address's error and the job goes on", async () => {
      const { job } = await runBulk(ctx().client, await account(), { emails: ["ada@broken.example", "ok-bea@mx.example"] })
      expect(job.status).toBe("completed")
      expect(job.results[0]).toEqual(expect.objectContaining({
        email: "ada@broken.example", valid: false, error: { code: "DNS_LOOKUP_ERROR", message: expect.any(String) },
      }))
      expect(job.results[0].checks.mxRecords).toBeNull()
      expect(job.results[1].valid).toBe(true)
    })

    it("with continueOnError false the first failing lookup stops the job: failed, naming the address", async () => {
      const emails = ["ok-ada@mx.example", "ok-bea@mx.example", "cy@broken.example", "ok-dan@mx.example"]
      const { job } = await runBulk(ctx().client, await account(), { emails, continueOnError: false })
      expect(job.status).toBe("failed")
      expect(job.error).toEqual({ code: "DNS_LOOKUP_ERROR", message: expect.any(String), email: "cy@broken.example" })
      expect(job.results.map((result: any) => result.email)).toEqual(["ok-ada@mx.example", "ok-bea@mx.example"])
      expect(job.processed).toBe(2)
      expect(job.completedAt).toEqual(expect.any(String))
    })

    it("checks more addresses than one chunk, asking DNS once per domain", async () => {
      const domains = ["mx.example", "catchall.example", "aonly.example"]
      const before = domains.map(mxQuestions)
      const emails = Array.from({ length: 1_200 }, (_, at) => `user${at}@${domains[at % 3]}`)
      const { job } = await runBulk(ctx().client, await account(), { emails })
      expect(job).toEqual(expect.objectContaining({ status: "completed", total: 1_200, processed: 1_200, progress: 100 }))
      expect(job.results.map((result: any) => result.email)).toEqual(emails)
      expect(job.results.every((result: any) => result.valid)).toBe(true)
      expect(domains.map((domain, at) => mxQuestions(domain) - before[at]!)).toEqual([1, 1, 1])
    })

    it("extended probes each address, at most two sessions at a time to one MX host", async () => {
      const sink = ctx().targets.smtp.sink
      ctx().targets.resetCounts()
      const emails = Array.from({ length: 12 }, (_, at) => at % 2 === 0 ? `ok-${at}@mx.example` : `gone-${at}@mx.example`)
      const { job } = await runBulk(ctx().client, await account(), { emails, extended: true, timeout: 5_000 })
      expect(job.results.map((result: any) => result.checks.smtpHandshake)).toEqual(emails.map((_, at) => at % 2 === 0))
      expect(sink.connectionCount()).toBe(12)
      expect(sink.peakConnections()).toBe(2)
    })

    it.each([
      ["emails missing", {}, "emails"],
      ["emails empty", { emails: [] }, "emails"],
      ["more than 10,000 emails", { emails: Array.from({ length: 10_001 }, (_, at) => `a${at}@refusals.example`) }, "emails"],
      ["an address that is not a string", { emails: ["a@refusals.example", 7] }, "emails.1"],
      ["an address too long to be checked", { emails: ["a@refusals.example", `${"a".repeat(1_001)}@refusals.example`] }, "emails.1"],
      ["timeout below 1,000", { emails: ["a@refusals.example"], timeout: 500 }, "timeout"],
      ["timeout above 60,000", { emails: ["a@refusals.example"], timeout: 60_001 }, "timeout"],
      ["timeout not an integer", { emails: ["a@refusals.example"], timeout: 1_500.5 }, "timeout"],
      ["extended not a boolean", { emails: ["a@refusals.example"], extended: "yes" }, "extended"],
      ["continueOnError not a boolean", { emails: ["a@refusals.example"], continueOnError: "no" }, "continueOnError"],
      ["an unknown field", { emails: ["a@refusals.example"], deep: true }, "deep"],
    ])("refuses %s with 400 VALIDATION_ERROR and starts nothing", async (_, body, field) => {
      const answer = await ctx().client.call("POST", "/v1/emails/validate/bulk", { key: await account(), body })
      expectError(answer, 400, "VALIDATION_ERROR", field)
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(mxQuestions("refusals.example")).toBe(0)
    })

    it("accepts timeout at both ends of 1,000-60,000, and shows it on the job", async () => {
      const key = await account()
      for (const timeout of [1_000, 60_000]) {
        const { started, job } = await runBulk(ctx().client, key, { emails: ["ada@mx.example"], timeout })
        expect([started.timeout, job.timeout, job.status, job.results[0].valid]).toEqual([timeout, timeout, "completed", true])
      }
    })

    it("timeout bounds each lookup: a DNS server that never answers is that address's DNS_LOOKUP_ERROR once it passed", async () => {
      const { job } = await runBulk(ctx().client, await account(), { emails: ["ada@silent-dns.example", "ok-bea@mx.example"], timeout: 1_000 })
      expect(job.status).toBe("completed")
      expect(job.results[0]).toEqual(expect.objectContaining({
        email: "ada@silent-dns.example", valid: false, error: { code: "DNS_LOOKUP_ERROR", message: expect.stringMatching(/1000 ms/) },
      }))
      expect(job.results[1].valid).toBe(true)
    })

    it("is not held to POST /emails/validate's 50 requests per second", async () => {
      const key = await account()
      const answers = await Promise.all(Array.from({ length: 60 }, () =>
        ctx().client.call("POST", "/v1/emails/validate/bulk", { key, body: { emails: ["not an address"] } })))
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 202))
    })

    it("accepts exactly 10,000 addresses and answers for each", async () => {
      const emails = Array.from({ length: 10_000 }, (_, at) => `user${at}@${at % 2 === 0 ? "mx" : "nomail"}.example`)
      const { started, job } = await runBulk(ctx().client, await account(), { emails })
      expect(started).not.toHaveProperty("results")
      expect(job).toEqual(expect.objectContaining({ status: "completed", total: 10_000, processed: 10_000 }))
      expect(job.results.map((result: any) => result.valid)).toEqual(emails.map((_, at) => at % 2 === 0))
    }, 60_000)

    it("another account's job id, and an unknown one, answer 404 NOT_FOUND", async () => {
      const { started } = await runBulk(ctx().client, await account(), { emails: ["ada@mx.example"] })
      const other = await account()
      expectError(await ctx().client.call("GET", `/v1/emails/validate/bulk/${started.id}`, { key: other }), 404, "NOT_FOUND")
      expectError(await ctx().client.call("GET", "/v1/emails/validate/bulk/vjob_unknown", { key: other }), 404, "NOT_FOUND")
    })
  })

  describe("scopes", () => {
    it("every validation route needs emails:send", async () => {
      const { id } = await ctx().client.account({ plan: "pro" })
      const { key } = await ctx().client.key(id, ["contacts:read"])
      const { key: sender } = await ctx().client.key(id, ["emails:send"])
      expectError(await ctx().client.call("POST", "/v1/emails/validate", { key, body: { email: "ada@mx.example" } }), 403, "SCOPE_INSUFFICIENT")
      expectError(await ctx().client.call("POST", "/v1/emails/validate/bulk", { key, body: { emails: ["ada@mx.example"] } }), 403, "SCOPE_INSUFFICIENT")
      const { started } = await runBulk(ctx().client, sender, { emails: ["ada@mx.example"] })
      expectError(await ctx().client.call("GET", `/v1/emails/validate/bulk/${started.id}`, { key }), 403, "SCOPE_INSUFFICIENT")
    })
  })
}
