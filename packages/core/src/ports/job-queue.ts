/** The JobQueue port: an at-least-once dispatcher of typed background jobs (webhook delivery, message delivery,
 *  scheduled sends, confirmation mail, failure notices, purges). Engines: in-process for memory (driven by Effect's
 *  Clock), a jobs table for SQLite, pg-boss for Postgres.
 *
 *  Enqueue does not promise to join the caller's SQL transaction (pg-boss cannot join @effect/sql's): anything that
 *  must commit with a change goes through the event outbox, and a relay turns committed events into jobs. Only
 *  `enqueueClaimed` writes in the caller's Store transaction, for jobs this process runs itself. */
import { Context, type Duration, Effect, Option, type Schema, type Scope } from "effect"
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

/** Jobs that `enqueueClaimed` wrote in a transaction, claimed by this process. */
export interface ClaimedHere {
  /** The jobs' ids, in the order of their payloads. */
  readonly ids: ReadonlyArray<string>
  /** Hands the jobs to this process's worker of their kind, which runs them (attempt 1) before it claims again. Run it
   *  once the transaction that wrote them committed, and only then. */
  readonly start: Effect.Effect<void>
}

export interface JobQueueService {
  /** Stores a job durably (as far as the engine is durable) and answers its id. */
  readonly enqueue: <A, I>(job: JobDefinition<A, I>, payload: A, options?: EnqueueOptions) => Effect.Effect<string, StoreError>
  /** Enqueues several jobs of one definition at once (one write where the engine can), as `enqueue` does each, and
   *  answers their ids in order. */
  readonly enqueueAll: <A, I>(
    job: JobDefinition<A, I>,
    jobs: ReadonlyArray<{ readonly payload: A; readonly options?: EnqueueOptions }>,
  ) => Effect.Effect<ReadonlyArray<string>, StoreError>
  /** Writes jobs of `job` in the caller's Store transaction (the statement joins it), already claimed by this
   *  process's worker of `job`: they commit with the transaction's change or not at all, and no other worker claims
   *  them. Once the transaction committed, `start` hands them to the worker, which runs them without a claim of its
   *  own. A run of them that fails follows the retry policy as any run does; when this process dies first (or never
   *  calls `start`), they are retried as runs cut short are (pg-boss once they expire, the jobs table when the queue
   *  next starts). Answers None, having written nothing, when no worker of `job` runs in this process or it has no
   *  slot free for them (so that they start at once, or after at most one run in flight), and when the engine cannot write in the Store's
   *  transaction (pg-boss on another database): the caller then enqueues them once its transaction committed. */
  readonly enqueueClaimed: <A, I>(job: JobDefinition<A, I>, payloads: ReadonlyArray<A>) => Effect.Effect<Option.Option<ClaimedHere>, StoreError>
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

/** `enqueueClaimed` of an engine that never claims at creation (a stand-in queue of a test): always None. */
export const neverClaimed: JobQueueService["enqueueClaimed"] = () => Effect.succeed(Option.none())

export class JobQueue extends Context.Tag("@mailroom/core/JobQueue")<JobQueue, JobQueueService>() {}
