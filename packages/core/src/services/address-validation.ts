/** Address validation: POST /emails/validate answers at once; POST /emails/validate/bulk stores a job and answers its
 *  id, and a durable job (JobQueue: a crash or a failed run runs it again, from the last stored chunk) checks the
 *  addresses a chunk at a time, storing each chunk's results with the job's progress. Spec: sending "Endpoints"
 *  (Validate), "Limits"; the bulk answer is Mailroom's design (docs/validation.md). */
import { Clock, Duration, Effect, Either, Option, Schema } from "effect"
import type { Account, AccountId } from "../domain/account.js"
import {
  type AddressVerdict, BulkValidateInput, type ValidateInput as ValidateInputType, ValidateInput, type ValidationJob,
  type ValidationJobId, type ValidationJobProgress, validationLimits,
} from "../domain/address-validation.js"
import { type DnsLookupFailed, type StoreError, ValidationJobNotFound } from "../errors.js"
import { orFailWith } from "../internal/found.js"
import { currentDate } from "../internal/time.js"
import { Ids } from "../ports/ids.js"
import { defineJob, JobQueue } from "../ports/job-queue.js"
import { Store } from "../ports/store.js"
import { decodeInput } from "../validation.js"
import { makeAddressChecker } from "./address-checks.js"
import { Background } from "./background.js"
import { serviceMethod } from "./tracing.js"

/** One slice of a bulk validation. `from` is the job's progress when the slice was queued: a run resumes there, and a
 *  run that finds the job past it is a stale copy (its successor was queued already) and does nothing. Absent on jobs
 *  queued before slices existed: they run from their stored progress. */
export const bulkValidationJob = defineJob(
  "validation.bulk",
  Schema.Struct({ accountId: Schema.String, jobId: Schema.String, from: Schema.optional(Schema.Number) }),
  // A run is one slice (a few chunks, or about a second of them), so its timeout, and with it the time a crashed run
  // waits before a queue hands it out again (pg-boss's expiry), stays short: a crash costs at most one slice's work.
  { retry: { delays: [Duration.seconds(5), Duration.seconds(30), Duration.minutes(2)] }, timeout: "1 minute" },
)

/** A bulk job, with its results once it finished (completed, or failed with the results before its failure); null
 *  while it runs, whose progress tells how far it is. */
export interface BulkValidation {
  readonly job: ValidationJobProgress
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

    /** Runs one slice of a bulk job from where it stands. The addresses are checked a chunk at a time, until
     *  `bulkProgressIntervalMs` passed or `bulkSliceChunks` chunks were checked; then the chunks are stored with the
     *  job's progress and the next slice is queued, in one transaction, and the run ends. The last slice stores the
     *  job completed. A chunk is stored whole or not at all: a slice cut short (a crash) is run again from the progress
     *  it started at. With `continueOnError` false, the first failing lookup stores the results before it and fails
     *  the job. */
    const runBulk = (accountId: AccountId, jobId: string, from: number | undefined) =>
      Effect.gen(function* () {
        const found = yield* store.validationJobs.findById(accountId, jobId)
        if (Option.isNone(found)) return
        const job = found.value
        if (job.status === "completed" || job.status === "failed") return
        if (from !== undefined && job.processed !== from) return
        const startedAt = job.startedAt ?? (yield* now)
        if (job.status !== "running") yield* store.validationJobs.setState({ ...job, status: "running", startedAt })
        const checker = yield* makeAddressChecker({ extended: job.extended, timeoutMs: job.timeoutMs })
        const size = validationLimits.bulkChunkSize
        const pending: Array<{ readonly index: number; readonly results: ReadonlyArray<AddressVerdict> }> = []
        const sliceStart = yield* Clock.currentTimeMillis
        const storePending = (finish: Effect.Effect<unknown, StoreError>) =>
          store.transaction(Effect.gen(function* () {
            for (const chunk of pending) yield* store.validationJobs.saveChunk(accountId, job.id, chunk.index, chunk.results)
            yield* finish
          }))
        const first = Math.floor(job.processed / size)
        for (let index = first; index * size < job.emails.length; index++) {
          const emails = job.emails.slice(index * size, (index + 1) * size)
          const verdicts = yield* checker.checkAll(emails)
          const failedAt = job.continueOnError ? -1 : verdicts.findIndex(Either.isLeft)
          const kept = failedAt < 0 ? verdicts : verdicts.slice(0, failedAt)
          pending.push({
            index,
            results: kept.map((verdict, at) => Either.isRight(verdict) ? verdict.right : failedVerdict(emails[at]!, verdict.left)),
          })
          const failure = verdicts[failedAt]
          if (failure !== undefined && Either.isLeft(failure)) {
            const completedAt = yield* now
            yield* storePending(store.validationJobs.setState({
              ...job,
              status: "failed",
              startedAt,
              completedAt,
              error: { code: failure.left.code, message: failure.left.message, email: emails[failedAt]! },
            }))
            return
          }
          const more = (index + 1) * size < job.emails.length
          const sliceOver = index + 1 - first >= validationLimits.bulkSliceChunks ||
            (yield* Clock.currentTimeMillis) - sliceStart >= validationLimits.bulkProgressIntervalMs
          if (more && sliceOver) {
            // saveChunk moves the progress to the end of the chunks stored: the next slice starts there.
            yield* storePending(enqueueSlice(accountId, job.id, (index + 1) * size))
            return
          }
        }
        const completedAt = yield* now
        yield* storePending(store.validationJobs.setState({ ...job, status: "completed", startedAt, completedAt, error: null }))
      })

    /** Queues a slice of the job (in the caller's transaction). The queue is the backend's, provided beside the services
     *  (the facade's runtime has it). */
    const enqueueSlice = (accountId: AccountId, jobId: string, from: number) =>
      Effect.gen(function* () {
        const queue = yield* Effect.serviceOption(JobQueue)
        if (Option.isNone(queue)) return yield* Effect.dieMessage("bulk validation needs a JobQueue beside the services")
        yield* queue.value.enqueue(bulkValidationJob, { accountId, jobId, from })
      })

    yield* background.work(
      bulkValidationJob,
      (payload) => runBulk(payload.accountId as AccountId, payload.jobId, payload.from),
      { concurrency: 2 },
    )

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
        yield* enqueueSlice(account.id, job.id, 0)
      }))
      return job
    })

    /** GET /emails/validate/bulk/{id}: the job and its progress, with its results once it finished. Results are not read
     *  while it runs: a client polling a job of 10,000 addresses would otherwise read them all on every poll. */
    const getBulk = method("AddressValidation.getBulk")(function* (account: Account, id: string) {
      const job = yield* store.validationJobs.findProgress(account.id, id).pipe(orFailWith(() => new ValidationJobNotFound({ id })))
      const finished = job.status === "completed" || job.status === "failed"
      return { job, results: finished ? yield* store.validationJobs.results(account.id, job.id) : null } satisfies BulkValidation
    })

    return { validate, startBulk, getBulk } as const
  }),
}) {}

