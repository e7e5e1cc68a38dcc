/** Address validation: POST /emails/validate answers at once; POST /emails/validate/bulk stores a job and answers its
 *  id, and a durable job (JobQueue: a crash or a failed run runs it again, from the last stored chunk) checks the
 *  addresses a chunk at a time, storing each chunk's results with the job's progress. Spec: sending "Endpoints"
 *  (Validate), "Limits"; the bulk answer is Mailroom's design (docs/validation.md). */
import { Duration, Effect, Option, Schema } from "effect"
import type { Account, AccountId } from "../domain/account.js"
import {
  type AddressVerdict, BulkValidateInput, type ValidateInput as ValidateInputType, ValidateInput, type ValidationJob,
  type ValidationJobId, validationLimits,
} from "../domain/address-validation.js"
import { type DnsLookupFailed, ValidationJobNotFound } from "../errors.js"
import { orFailWith } from "../internal/found.js"
import { currentDate } from "../internal/time.js"
import { Ids } from "../ports/ids.js"
import { defineJob, JobQueue } from "../ports/job-queue.js"
import { Store } from "../ports/store.js"
import { decodeInput } from "../validation.js"
import { makeAddressChecker } from "./address-checks.js"
import { Background } from "./background.js"
import { serviceMethod } from "./tracing.js"

/** One bulk validation to run. A run resumes after the chunks already stored. */
export const bulkValidationJob = defineJob(
  "validation.bulk",
  Schema.Struct({ accountId: Schema.String, jobId: Schema.String }),
  // 10,000 addresses with `extended`, two sessions at a time per MX host, each step bounded by the timeout: a run may
  // be long. One cut short is run again from its last stored chunk.
  { retry: { delays: [Duration.seconds(5), Duration.seconds(30), Duration.minutes(2)] }, timeout: "1 hour" },
)

/** A bulk job, with its results once it finished (completed, or failed with the results before its failure); null
 *  while it runs, whose progress tells how far it is. */
export interface BulkValidation {
  readonly job: ValidationJob
  readonly results: ReadonlyArray<AddressVerdict> | null
}

const now = currentDate

/** The bulk verdict of an address whose lookup failed: not valid, with the error that says why. */
const failedVerdict = (email: string, error: DnsLookupFailed): AddressVerdict => ({
  email,
  valid: false,
  checks: { syntax: true, mxRecords: null, smtpHandshake: null, disposable: false, roleAccount: false, catchAll: null },
  suggestion: null,
  reason: "the domain's mail servers could not be looked up",
  error: { code: error.code, message: error.message },
})

export class AddressValidation extends Effect.Service<AddressValidation>()("@mailroom/core/AddressValidation", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const background = yield* Background
    const method = yield* serviceMethod

    /** Runs a bulk job from where it stands: each chunk's results stored with the progress, in its own transaction.
     *  With `continueOnError` false, the first failing lookup stores the results before it and fails the job. */
    const runBulk = (accountId: AccountId, jobId: string) =>
      Effect.gen(function* () {
        const found = yield* store.validationJobs.findById(accountId, jobId)
        if (Option.isNone(found)) return
        const job = found.value
        if (job.status === "completed" || job.status === "failed") return
        const startedAt = job.startedAt ?? (yield* now)
        yield* store.validationJobs.setState({ ...job, status: "running", startedAt })
        const checker = yield* makeAddressChecker({ extended: job.extended, timeoutMs: job.timeoutMs })
        const size = validationLimits.bulkChunkSize
        for (let index = Math.floor(job.processed / size); index * size < job.emails.length; index++) {
          const emails = job.emails.slice(index * size, (index + 1) * size)
          const verdicts = yield* Effect.forEach(emails, (email) => Effect.either(checker.check(email)), {
            concurrency: validationLimits.bulkConcurrency,
          })
          const failedAt = job.continueOnError ? -1 : verdicts.findIndex((verdict) => verdict._tag === "Left")
          const kept = failedAt < 0 ? verdicts : verdicts.slice(0, failedAt)
          const results = kept.map((verdict, at) => verdict._tag === "Right" ? verdict.right : failedVerdict(emails[at]!, verdict.left))
          yield* store.transaction(store.validationJobs.saveChunk(accountId, job.id, index, results))
          const failure = verdicts[failedAt]
          if (failure !== undefined && failure._tag === "Left") {
            yield* store.validationJobs.setState({
              ...job,
              status: "failed",
              startedAt,
              completedAt: yield* now,
              error: { code: failure.left.code, message: failure.left.message, email: emails[failedAt]! },
            })
            return
          }
        }
        yield* store.validationJobs.setState({ ...job, status: "completed", startedAt, completedAt: yield* now, error: null })
      })

    yield* background.work(bulkValidationJob, (payload) => runBulk(payload.accountId as AccountId, payload.jobId), { concurrency: 2 })

    /** POST /emails/validate: the checks of one address. A failed lookup of its domain answers DNS_LOOKUP_ERROR. */
    const validate = method("AddressValidation.validate")(function* (_account: Account, body: unknown) {
      const input: ValidateInputType = yield* decodeInput(ValidateInput, body)
      const checker = yield* makeAddressChecker({ extended: input.extended, timeoutMs: input.timeout })
      return yield* checker.check(input.email)
    })

    /** POST /emails/validate/bulk: the job, stored and queued together, before any address is checked. */
    const startBulk = method("AddressValidation.startBulk")(function* (account: Account, body: unknown) {
      const input = yield* decodeInput(BulkValidateInput, body)
      const createdAt = yield* now
      const job: ValidationJob = {
        id: ids.make("validationJob", createdAt) as ValidationJobId,
        accountId: account.id,
        status: "queued",
        emails: input.emails,
        extended: input.extended,
        timeoutMs: input.timeout,
        continueOnError: input.continueOnError,
        processed: 0,
        error: null,
        createdAt,
        startedAt: null,
        completedAt: null,
      }
      yield* store.transaction(Effect.gen(function* () {
        yield* store.validationJobs.insert(job)
        // The queue is the backend's, provided beside the services (the facade's runtime has it).
        const queue = yield* Effect.serviceOption(JobQueue)
        if (Option.isNone(queue)) return yield* Effect.dieMessage("bulk validation needs a JobQueue beside the services")
        yield* queue.value.enqueue(bulkValidationJob, { accountId: account.id, jobId: job.id })
      }))
      return job
    })

    /** GET /emails/validate/bulk/{id}: the job and its progress, with its results once it finished. Results are not read
     *  while it runs: a client polling a job of 10,000 addresses would otherwise read them all on every poll. */
    const getBulk = method("AddressValidation.getBulk")(function* (account: Account, id: string) {
      const job = yield* store.validationJobs.findById(account.id, id).pipe(orFailWith(() => new ValidationJobNotFound({ id })))
      const finished = job.status === "completed" || job.status === "failed"
      return { job, results: finished ? yield* store.validationJobs.results(account.id, job.id) : null } satisfies BulkValidation
    })

    return { validate, startBulk, getBulk } as const
  }),
}) {}

