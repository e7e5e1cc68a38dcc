/** The JobQueue port: an at-least-once dispatcher of typed background jobs (webhook delivery, message delivery,
 *  scheduled sends, confirmation mail, failure notices, purges). Engines: in-process for memory (driven by Effect's
 *  Clock), a jobs table for SQLite, pg-boss for Postgres.
 *
 *  An enqueue made inside a Store transaction joins it when the engine keeps its jobs in the Store's database (the
 *  jobs table on SQLite; pg-boss on the Store's Postgres database): the jobs commit with the transaction's changes, or
 *  not at all, and this process's workers are woken once it committed. The memory engine has nothing to commit: its
 *  jobs are queued at once. A host that puts pg-boss on another database than the Store loses that: its jobs commit
 *  on their own. */
import { Context, type Duration, Effect, type Schema, type Scope } from "effect"
import type { StoreError } from "../errors.js"

/** When a failed job runs again, and when the queue gives up on it. Attempt 1 is the first run; after a failure of
 *  attempt n the job runs again after `delays[n - 1]`; a failure of attempt `delays.length + 1` gives up. */
export interface RetryPolicy {
  readonly delays: ReadonlyArray<Duration.DurationInput>
}

/** A kind of job: its queue name, the Schema of its payload (stored encoded), its retry policy and the longest a run
 *  may take. */
export interface JobDefinition<A, I = A> {
  readonly name: string
  readonly payload: Schema.Schema<A, I>
  readonly retry: RetryPolicy
  /** A run still going after this long is interrupted and counts as a failed attempt. Engines shared by several
   *  processes also use it to tell a run whose process died from a slow one: such a run is retried once this much
   *  time, plus the engine's margin, has passed since it started. */
  readonly timeout: Duration.DurationInput
}

/** Declares a kind of job. `name` is unique across Mailroom, such as "webhook.deliver". No retry by default; runs
 *  time out after 5 minutes unless told otherwise. */
export const defineJob = <A, I>(
  name: string,
  payload: Schema.Schema<A, I>,
  options: { readonly retry?: RetryPolicy; readonly timeout?: Duration.DurationInput } = {},
): JobDefinition<A, I> => ({
  name,
  payload,
  retry: options.retry ?? { delays: [] },
  timeout: options.timeout ?? "5 minutes",
})

/** What a handler learns about the run it serves. A run cut short (its process died, or it outlived the queue's
 *  shutdown grace or the job's timeout) counts as a failed attempt. */
export interface JobRun {
  /** The job's id, the same on every attempt. */
  readonly jobId: string
  /** 1 on the first run, 2 on the first retry, … */
  readonly attempt: number
  /** True when a failure of this run makes the queue give up (no retry left). */
  readonly lastAttempt: boolean
}

export interface EnqueueOptions {
  /** Earliest time to run; now when omitted. */
  readonly runAt?: Date
  /** While a job of the same definition with this key is pending, another enqueue with the key is dropped (and
   *  answers the pending job's id). */
  readonly dedupeKey?: string
}

export interface JobQueueService {
  /** Stores a job durably (as far as the engine is durable) and answers its id; inside a Store transaction, in it
   *  where the engine can (see above). */
  readonly enqueue: <A, I>(job: JobDefinition<A, I>, payload: A, options?: EnqueueOptions) => Effect.Effect<string, StoreError>
  /** Enqueues several jobs of one definition at once (one write where the engine can), as `enqueue` does each, and
   *  answers their ids in order. */
  readonly enqueueAll: <A, I>(
    job: JobDefinition<A, I>,
    jobs: ReadonlyArray<{ readonly payload: A; readonly options?: EnqueueOptions }>,
  ) => Effect.Effect<ReadonlyArray<string>, StoreError>
  /** Runs `handler` for jobs of `job` until the scope closes, at most `concurrency` at a time (default 1). A handler
   *  that fails or dies leaves the job to the retry policy; a run interrupted by a crash is retried too (delivery is at
   *  least once). Closing the scope stops taking jobs and waits a bounded time for the runs in flight. */
  readonly work: <A, I, E, R>(
    job: JobDefinition<A, I>,
    handler: (payload: A, run: JobRun) => Effect.Effect<void, E, R>,
    options?: { readonly concurrency?: number },
  ) => Effect.Effect<void, StoreError, Scope.Scope | R>
}

/** `enqueueAll` for an engine without a batch write (or a stand-in queue of a test): each job through `enqueue`. */
export const enqueueEach = (enqueue: JobQueueService["enqueue"]): JobQueueService["enqueueAll"] => (job, jobs) =>
  Effect.forEach(jobs, (one) => enqueue(job, one.payload, one.options))

export class JobQueue extends Context.Tag("@mailroom/core/JobQueue")<JobQueue, JobQueueService>() {}
