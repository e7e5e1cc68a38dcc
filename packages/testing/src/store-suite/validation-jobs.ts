/** Store contract: bulk validation jobs (insert, read by account, chunks stored once each, results in order, state). */
import { describe, expect } from "@effect/vitest"
import { type AddressVerdict, Store, type ValidationJob, type ValidationJobId } from "@mailroom/core"
import { Effect, Option } from "effect"
import { uniqueText } from "../fixtures.js"
import { at, insertAccount, type StoreTester } from "./support.js"

const verdict = (email: string): AddressVerdict => ({
  email,
  valid: true,
  checks: { syntax: true, mxRecords: true, smtpHandshake: null, disposable: false, roleAccount: false, catchAll: null },
  suggestion: null,
  reason: null,
  error: null,
})

const makeJob = (accountId: ValidationJob["accountId"], emails: ReadonlyArray<string>): ValidationJob => ({
  id: uniqueText("vjob") as ValidationJobId,
  accountId,
  status: "queued",
  emails,
  extended: true,
  timeoutMs: 5_000,
  continueOnError: false,
  processed: 0,
  error: null,
  createdAt: at(1),
  startedAt: null,
  completedAt: null,
})

export const validationJobTests = (it: StoreTester) => {
  describe("validationJobs", () => {
    it.effect("a job reads back as inserted, only in its own account", () =>
      Effect.gen(function* () {
        const { validationJobs } = yield* Store
        const account = { id: yield* insertAccount }
        const other = { id: yield* insertAccount }
        const job = makeJob(account.id, ["a@example.com", "\"b c\"@bücher.example"])
        yield* validationJobs.insert(job)
        expect(Option.getOrThrow(yield* validationJobs.findById(account.id, job.id))).toEqual(job)
        expect(Option.isNone(yield* validationJobs.findById(other.id, job.id))).toBe(true)
        expect(yield* validationJobs.results(other.id, job.id)).toEqual([])
      }))

    it.effect("a job's progress reads as the job without its addresses, their count instead, only in its own account", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const account = { id: yield* insertAccount }
        const other = { id: yield* insertAccount }
        const job = makeJob(account.id, ["a@x.example", "b@x.example", "c@x.example"])
        yield* store.validationJobs.insert(job)
        yield* store.transaction(store.validationJobs.saveChunk(account.id, job.id, 0, [verdict("a@x.example")]))
        const { emails: _, ...rest } = job
        expect(Option.getOrThrow(yield* store.validationJobs.findProgress(account.id, job.id))).toEqual({ ...rest, processed: 1, total: 3 })
        expect(Option.isNone(yield* store.validationJobs.findProgress(other.id, job.id))).toBe(true)
        expect(Option.isNone(yield* store.validationJobs.findProgress(account.id, "vjob_unknown"))).toBe(true)
      }))

    it.effect("chunks count once each, whatever order they come in, and results follow the chunks' order", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const account = { id: yield* insertAccount }
        const job = makeJob(account.id, ["a@x.example", "b@x.example", "c@x.example"])
        yield* store.validationJobs.insert(job)
        yield* store.transaction(store.validationJobs.saveChunk(account.id, job.id, 1, [verdict("c@x.example")]))
        yield* store.transaction(store.validationJobs.saveChunk(account.id, job.id, 0, [verdict("a@x.example"), verdict("b@x.example")]))
        // A retried run stores chunk 0 again: nothing changes.
        yield* store.transaction(store.validationJobs.saveChunk(account.id, job.id, 0, [verdict("z@x.example")]))
        expect(Option.getOrThrow(yield* store.validationJobs.findById(account.id, job.id)).processed).toBe(3)
        expect((yield* store.validationJobs.results(account.id, job.id)).map((result) => result.email))
          .toEqual(["a@x.example", "b@x.example", "c@x.example"])
      }))

    it.effect("results read back every field of each verdict as stored", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const account = { id: yield* insertAccount }
        const job = makeJob(account.id, ["a@x.example", "b@gmial.com", "\"c d\"@bücher.example", "e"])
        yield* store.validationJobs.insert(job)
        const verdicts: Array<AddressVerdict> = [
          verdict("a@x.example"),
          {
            email: "b@gmial.com", valid: false, suggestion: "b@gmail.com", reason: "the domain's mail server refused the mailbox", error: null,
            checks: { syntax: true, mxRecords: true, smtpHandshake: false, disposable: true, roleAccount: true, catchAll: false },
          },
          {
            email: "\"c d\"@bücher.example", valid: false, suggestion: null, reason: "the domain's mail servers could not be looked up",
            error: { code: "DNS_LOOKUP_ERROR", message: "SERVFAIL ✓" },
            checks: { syntax: true, mxRecords: null, smtpHandshake: null, disposable: false, roleAccount: false, catchAll: null },
          },
          {
            email: "e", valid: false, suggestion: null, reason: "the address has no @", error: null,
            checks: { syntax: false, mxRecords: false, smtpHandshake: null, disposable: false, roleAccount: false, catchAll: true },
          },
        ]
        yield* store.transaction(store.validationJobs.saveChunk(account.id, job.id, 0, verdicts))
        expect(yield* store.validationJobs.results(account.id, job.id)).toEqual(verdicts)
      }))

    it.effect("setState replaces status, times and error; another account's job is left alone", () =>
      Effect.gen(function* () {
        const { validationJobs } = yield* Store
        const account = { id: yield* insertAccount }
        const other = { id: yield* insertAccount }
        const job = makeJob(account.id, ["a@x.example"])
        yield* validationJobs.insert(job)
        const failed = { ...job, status: "failed" as const, startedAt: at(2), completedAt: at(3), error: { code: "DNS_LOOKUP_ERROR", message: "no", email: "a@x.example" } }
        expect(yield* validationJobs.setState({ ...failed, accountId: other.id })).toBe(false)
        expect(yield* validationJobs.setState(failed)).toBe(true)
        expect(Option.getOrThrow(yield* validationJobs.findById(account.id, job.id))).toEqual(failed)
      }))
  })
}
