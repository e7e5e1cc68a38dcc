/** The worker loop every JobQueue engine shares: claims due jobs up to the concurrency, runs each handler with the
 *  job's timeout, settles the run (done, retry after the policy's delay, or give up), and on shutdown stops claiming
 *  and waits a bounded time for the runs in flight. Engines supply how jobs are claimed, settled and waited for. */
import { Cause, Clock, Deferred, Duration, Effect, Exit, FiberSet, Option, type ParseResult, Queue, Schedule, Schema, type Scope } from "effect"
import type { StoreError } from "../errors.js"
import { makeGroupCommit, nextTurn } from "../internal/group-commit.js"
import { makeWakeSignal } from "../internal/wake-signal.js"
import type { ClaimedHere, JobDefinition, JobRun, RetryPolicy } from "../ports/job-queue.js"

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
  /** The runs succeeded: the jobs are finished. The loop groups the runs that finish together into one call. */
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
  /** While jobs handed over (WorkerHandoff) fill its claims, the worker still claims from the engine at least this
   *  often (its poll interval), so that the engine's jobs never wait behind a stream of handed jobs. Default: at every
   *  claim. */
  readonly claimEvery?: Duration.DurationInput
}

/** How an engine's `enqueueClaimed` hands jobs to its running worker (the worker answers it when it starts). */
export interface WorkerHandoff {
  /** Whether the worker still runs and has `count` slots free that no job handed to it waits for: a job handed over
   *  then starts at once, or after at most one run in flight (one the worker claimed meanwhile). */
  readonly hasRoomFor: (count: number) => boolean
  /** Hands jobs to the worker (claimed by this process, their transaction committed), which runs them before it claims
   *  again. Once the worker stopped, they are settled as runs cut short: failed, and retried on the policy. */
  readonly give: (jobs: ReadonlyArray<ClaimedJob>) => Effect.Effect<void>
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
  complete: (claimed: ClaimedJob) => Effect.Effect<void, StoreError>,
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
      ? complete(claimed)
      : Effect.zipRight(
        Effect.logWarning(`job ${job.name} ${claimed.id} attempt ${claimed.attempt} failed`).pipe(
          Effect.annotateLogs("cause", describe(exit.cause))),
        source.fail(claimed, retryDelay(job.retry, claimed.attempt), describe(exit.cause)),
      ))))
}

/** Starts the worker in `Scope`: returns once it runs, with the handoff of jobs claimed at creation. Closing the scope
 *  stops claiming, waits up to `shutdownGrace` for the runs in flight, then interrupts the rest (they count as failed
 *  attempts, settled as such when the database still answers). */
export const runJobWorker = <A, I, E, R>(
  job: JobDefinition<A, I>,
  handler: (payload: A, run: JobRun) => Effect.Effect<void, E, R>,
  source: JobSource,
  options: JobWorkerOptions,
): Effect.Effect<WorkerHandoff, never, Scope.Scope | R> =>
  Effect.gen(function* () {
    const concurrency = Math.max(1, Math.floor(options.concurrency))
    // One token per free slot: the dispatcher takes tokens before claiming and each run gives its token back.
    const slots = yield* Queue.bounded<void>(concurrency)
    yield* Queue.offerAll(slots, Array.from({ length: concurrency }, () => undefined))
    const runs = yield* FiberSet.make<void, never>()
    const stopped = yield* Deferred.make<void>()
    // Runs that finish while a completion is being written are completed together, in the next write.
    const complete = makeGroupCommit((jobs: ReadonlyArray<ClaimedJob>) => Effect.as(source.complete(jobs), jobs.map(() => undefined)))

    // Jobs handed over (claimed at creation), waiting for a slot; runs under way; whether the worker stopped.
    const handed: Array<ClaimedJob> = []
    const handedSignal = makeWakeSignal()
    let running = 0
    let closed = false
    /** Settles jobs handed over that the worker will not run: failed, as runs cut short. */
    const cutShort = (jobs: ReadonlyArray<ClaimedJob>) =>
      Effect.forEach(jobs, (one) =>
        settled(job as JobDefinition<unknown, unknown>, one, source.fail(one, retryDelay(job.retry, one.attempt), "the worker stopped before running it")),
      { discard: true })
    const handoff: WorkerHandoff = {
      hasRoomFor: (count) => !closed && running + handed.length + count <= concurrency,
      give: (jobs) => Effect.suspend(() => {
        if (closed) return cutShort(jobs)
        handed.push(...jobs)
        handedSignal.wake()
        return Effect.void
      }),
    }
    const claimEvery = Duration.toMillis(Duration.decode(options.claimEvery ?? 0))
    let claimedAt = -Infinity
    // Whether the engine's last claim found fewer due jobs than it asked for (JobSource.idle: the wait after such a one).
    let engineShort = false
    // The wait for the next handoff, taken before the handed jobs are looked at.
    let handedWait: Effect.Effect<void> = Effect.void

    /** Starts runs of `jobs`, each in a slot the dispatcher took. */
    const start = (jobs: ReadonlyArray<ClaimedJob>) =>
      Effect.forEach(jobs, (one) => {
        running += 1
        return FiberSet.run(runs, runOne(job, handler, source, complete, one).pipe(
          Effect.ensuring(Effect.zipRight(Effect.sync(() => { running -= 1 }), Queue.offer(slots, undefined)))))
      }, { discard: true })

    // Only the waits are interruptible: a claim that the database answered always gets its runs started.
    const dispatch = Effect.gen(function* () {
      yield* Queue.take(slots)
      // Runs that finish together free their slots together: one claim refills them all. Jobs handed over do not wait
      // for that turn: on SQLite, whose driver blocks the loop, it would come only after the relay's next batch.
      if (handed.length === 0) yield* nextTurn
      const claim = yield* Effect.uninterruptible(Effect.gen(function* () {
        const free = 1 + (yield* Queue.takeAll(slots)).length
        // Jobs handed over first, with no claim of the engine's while they come; at least every `claimEvery` the
        // engine is asked all the same, for one slot they would have taken at least, so that its jobs never wait
        // behind them for longer than that. Without handed jobs, every slot goes to the engine's claim. The jobs
        // handed over start before the engine is asked: its claim is a round trip (on SQLite, a wait for the
        // connection, which the relay's next batch may hold).
        handedWait = yield* handedSignal.next
        const now = yield* Clock.currentTimeMillis
        const askEngine = handed.length === 0 || now - claimedAt >= claimEvery
        const first = handed.splice(0, askEngine ? free - 1 : free)
        yield* start(first)
        let found = first.length
        if (askEngine) {
          claimedAt = now
          const asked = free - found
          const fromEngine = yield* source.claim(asked).pipe(
            Effect.catchAll((error) => Effect.as(Effect.logError(`job ${job.name}: claiming failed`, error), [] as ReadonlyArray<ClaimedJob>)),
          )
          engineShort = fromEngine.length < asked
          // A slot the engine had no job for goes to a job handed over.
          const more = fromEngine.concat(handed.splice(0, free - found - fromEngine.length))
          yield* start(more)
          found += more.length
        }
        yield* Queue.offerAll(slots, Array.from({ length: free - found }, () => undefined))
        return { found, free }
      }))
      // Fewer jobs than free slots, none handed over left, and the engine's last claim found fewer due jobs than it
      // asked for: the dispatcher waits for an enqueue, a retry, a handoff or the next poll rather than claiming again
      // at once (an empty claim, a round trip). After a claim the engine answered in full, it may hold more due jobs,
      // whose enqueue no longer wakes the wait: the next claim asks it at once.
      if (claim.found < claim.free && handed.length === 0 && engineShort) yield* Effect.race(source.idle, handedWait)
    }).pipe(Effect.forever, Effect.raceFirst(Deferred.await(stopped)))

    const dispatcher = yield* Effect.forkDaemon(dispatch)
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        closed = true
        yield* Deferred.succeed(stopped, undefined)
        yield* dispatcher.await
        yield* cutShort(handed.splice(0))
        // Finalizers run uninterruptibly: the wait must be made interruptible for the timeout to end it.
        const drained = yield* Effect.timeout(Effect.interruptible(FiberSet.awaitEmpty(runs)), options.shutdownGrace).pipe(Effect.option)
        if (drained._tag === "None") {
          yield* Effect.logWarning(`job ${job.name}: runs still in flight after the shutdown grace are interrupted`)
          yield* FiberSet.clear(runs)
        }
      }))
    return handoff
  })

/** The handoffs of the workers an engine runs in this process, by job name: where its `enqueueClaimed` looks. */
export const makeWorkerHandoffs = () => {
  const byName = new Map<string, WorkerHandoff>()
  return {
    /** Keeps the handoff of the worker that `started` starts under `name` while the worker runs. */
    keep: <R>(name: string, started: Effect.Effect<WorkerHandoff, never, Scope.Scope | R>): Effect.Effect<void, never, Scope.Scope | R> =>
      Effect.flatMap(started, (handoff) => Effect.acquireRelease(
        Effect.sync(() => { byName.set(name, handoff) }),
        // Added after the worker's own finalizer, so run before it: no job is handed to a worker that is stopping.
        () => Effect.sync(() => { if (byName.get(name) === handoff) byName.delete(name) }),
      )),
    /** An engine's `enqueueClaimed`: when a worker of `job` runs here with room for them, the payloads encoded, `write`
     *  stores them as running (attempt 1) and answers their ids, and what runs before the worker gets them, if
     *  anything; None otherwise, with nothing written. */
    claim: <A, I, E, R>(
      job: JobDefinition<A, I>,
      payloads: ReadonlyArray<A>,
      write: (encoded: ReadonlyArray<I>) => Effect.Effect<{ readonly ids: ReadonlyArray<string>; readonly beforeStart?: Effect.Effect<void> }, E, R>,
    ): Effect.Effect<Option.Option<ClaimedHere>, E | ParseResult.ParseError, R> =>
      Effect.gen(function* () {
        const handoff = byName.get(job.name)
        if (handoff === undefined || !handoff.hasRoomFor(payloads.length)) return Option.none()
        const encoded = yield* Effect.forEach(payloads, (payload) => Schema.encode(job.payload)(payload))
        const { ids, beforeStart = Effect.void } = yield* write(encoded)
        const claimed = ids.map((id, i): ClaimedJob => ({ id, attempt: 1, payload: encoded[i] }))
        return Option.some({ ids, start: Effect.zipRight(beforeStart, handoff.give(claimed)) })
      }),
  }
}
