/** The worker loop every JobQueue engine shares: claims due jobs up to the concurrency, runs each handler with the
 *  job's timeout, settles the run (done, retry after the policy's delay, or give up), and on shutdown stops claiming
 *  and waits a bounded time for the runs in flight. Engines supply how jobs are claimed, settled and waited for. */
import { Cause, Deferred, Duration, Effect, Exit, FiberSet, Queue, Schedule, Schema, type Scope } from "effect"
import type { StoreError } from "../errors.js"
import { nextTurn } from "../internal/next-turn.js"
import type { JobDefinition, JobRun, RetryPolicy } from "../ports/job-queue.js"

/** A job an engine has marked as running for this worker. */
export interface ClaimedJob {
  readonly id: string
  /** 1 on the first run: every run started counts, including runs cut short. */
  readonly attempt: number
  /** The payload as stored (the encoded side of the definition's Schema). */
  readonly payload: unknown
}

/** How an engine hands jobs of one definition to the loop. */
export interface JobSource {
  /** Marks at most `max` due jobs as running (attempt counted) and answers them. */
  readonly claim: (max: number) => Effect.Effect<ReadonlyArray<ClaimedJob>, StoreError>
  /** The runs succeeded: the jobs are finished. The loop calls it once per run; an engine may write the completions
   *  that arrive together at once (a speed-up of its own). */
  readonly complete: (jobs: ReadonlyArray<ClaimedJob>) => Effect.Effect<void, StoreError>
  /** The run failed: run again after `retryIn`, or, when it is undefined, give up. `error` describes the failure. */
  readonly fail: (job: ClaimedJob, retryIn: Duration.Duration | undefined, error: string) => Effect.Effect<void, StoreError>
  /** Waits until claiming again may find a job (the next due time, a poll interval, or an enqueue nearby). Called after
   *  a claim that found fewer jobs than it asked for: an enqueue or a retry since that claim began must end the wait. */
  readonly idle: Effect.Effect<void>
}

export interface JobWorkerOptions {
  readonly concurrency: number
  /** How long closing the scope waits for runs in flight before interrupting them. */
  readonly shutdownGrace: Duration.DurationInput
}

/** The delay after a failure of `attempt`, or undefined when the policy gives up. */
export const retryDelay = (policy: RetryPolicy, attempt: number): Duration.Duration | undefined => {
  const delay = policy.delays[attempt - 1]
  return delay === undefined ? undefined : Duration.decode(delay)
}

const describe = (cause: Cause.Cause<unknown>): string => {
  const text = Cause.pretty(cause)
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text
}

/** How long a settlement is tried again while the database is down (about 16 seconds in all). */
const settleRetry = Schedule.exponential("250 millis").pipe(Schedule.intersect(Schedule.recurs(6)))

/** `settlement` of a job, tried again for a while when it fails (the database is down), then logged: the job stays
 *  marked running, and the engine's recovery of interrupted runs brings it back. */
const settled = (job: JobDefinition<unknown, unknown>, claimed: ClaimedJob, settlement: Effect.Effect<void, StoreError>) =>
  settlement.pipe(
    Effect.retry(settleRetry),
    Effect.catchAll((error) => Effect.logError(`job ${job.name} ${claimed.id} could not be settled`, error)),
  )

/** Runs one claimed job to its settlement (see `settled`). */
const runOne = <A, I, E, R>(
  job: JobDefinition<A, I>,
  handler: (payload: A, run: JobRun) => Effect.Effect<void, E, R>,
  source: JobSource,
  claimed: ClaimedJob,
) => {
  const run: JobRun = { jobId: claimed.id, attempt: claimed.attempt, lastAttempt: retryDelay(job.retry, claimed.attempt) === undefined }
  // Interruptible even though the dispatcher forks it from an uninterruptible region.
  const attempt = Schema.decodeUnknown(job.payload)(claimed.payload).pipe(
    Effect.flatMap((payload) => Effect.interruptible(handler(payload, run))),
    Effect.timeoutFail({
      duration: job.timeout,
      onTimeout: () => new Error(`job ${job.name} ran longer than ${Duration.format(Duration.decode(job.timeout))}`),
    }),
  )
  // A run interrupted (shutdown past the grace) is still settled, as a failed attempt.
  return Effect.uninterruptible(
    Effect.flatMap(Effect.exit(Effect.interruptible(attempt)), (exit) => settled(job as JobDefinition<unknown, unknown>, claimed, Exit.isSuccess(exit)
      ? source.complete([claimed])
      : Effect.zipRight(
        // One line per failed attempt; the facade's logger masks any address or secret the cause carries.
        Effect.logWarning(`job ${job.name} attempt failed`).pipe(Effect.annotateLogs({
          job: job.name,
          jobId: claimed.id,
          attempt: claimed.attempt,
          willRetry: retryDelay(job.retry, claimed.attempt) !== undefined,
          cause: describe(exit.cause),
        })),
        source.fail(claimed, retryDelay(job.retry, claimed.attempt), describe(exit.cause)),
      ))))
}

/** Starts the worker in `Scope`: returns once it runs. Closing the scope stops claiming, waits up to `shutdownGrace`
 *  for the runs in flight, then interrupts the rest (they count as failed attempts, settled as such when the database
 *  still answers). */
export const runJobWorker = <A, I, E, R>(
  job: JobDefinition<A, I>,
  handler: (payload: A, run: JobRun) => Effect.Effect<void, E, R>,
  source: JobSource,
  options: JobWorkerOptions,
): Effect.Effect<void, never, Scope.Scope | R> =>
  Effect.gen(function* () {
    const concurrency = Math.max(1, Math.floor(options.concurrency))
    // One token per free slot: the dispatcher takes tokens before claiming and each run gives its token back.
    const slots = yield* Queue.bounded<void>(concurrency)
    yield* Queue.offerAll(slots, Array.from({ length: concurrency }, () => undefined))
    const runs = yield* FiberSet.make<void, never>()
    const stopped = yield* Deferred.make<void>()

    /** Starts runs of `jobs`, each in a slot the dispatcher took. */
    const start = (jobs: ReadonlyArray<ClaimedJob>) =>
      Effect.forEach(jobs, (one) =>
        FiberSet.run(runs, runOne(job, handler, source, one).pipe(Effect.ensuring(Queue.offer(slots, undefined)))),
      { discard: true })

    // Only the waits are interruptible: a claim that the database answered always gets its runs started.
    const dispatch = Effect.gen(function* () {
      yield* Queue.take(slots)
      // Runs that finish together free their slots together: one claim refills them all.
      yield* nextTurn
      const claim = yield* Effect.uninterruptible(Effect.gen(function* () {
        const free = 1 + (yield* Queue.takeAll(slots)).length
        const claimed = yield* source.claim(free).pipe(
          Effect.catchAll((error) => Effect.as(Effect.logError(`job ${job.name}: claiming failed`, error), [] as ReadonlyArray<ClaimedJob>)),
        )
        yield* start(claimed)
        yield* Queue.offerAll(slots, Array.from({ length: free - claimed.length }, () => undefined))
        return { found: claimed.length, free }
      }))
      // Fewer jobs than free slots: no other job was due, and the dispatcher waits for an enqueue, a retry or the next
      // poll rather than claiming again at once (an empty claim, a round trip).
      if (claim.found < claim.free) yield* source.idle
    }).pipe(Effect.forever, Effect.raceFirst(Deferred.await(stopped)))

    const dispatcher = yield* Effect.forkDaemon(dispatch)
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        yield* Deferred.succeed(stopped, undefined)
        yield* dispatcher.await
        // Finalizers run uninterruptibly: the wait must be made interruptible for the timeout to end it.
        const drained = yield* Effect.timeout(Effect.interruptible(FiberSet.awaitEmpty(runs)), options.shutdownGrace).pipe(Effect.option)
        if (drained._tag === "None") {
          yield* Effect.logWarning(`job ${job.name}: runs still in flight after the shutdown grace are interrupted`)
          yield* FiberSet.clear(runs)
        }
      }))
  })
