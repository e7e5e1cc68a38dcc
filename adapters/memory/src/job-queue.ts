/** The in-process JobQueue: jobs in a map, due times read from Effect's Clock, so that a test under TestClock walks a
 *  retry schedule of hours in milliseconds. Nothing survives the layer: for unit tests, demos and the memory backend.
 *  An enqueue inside a memory Store transaction is held until the transaction commits (core's afterCommit): it runs
 *  only then, and never when the transaction rolls back. */
import {
  afterCommit, type ClaimedJob, type EnqueueOptions, enqueueEach, Ids, type JobDefinition, JobQueue, type JobQueueService, runJobWorker, StoreError,
} from "@mailroom/core"
import { Clock, Deferred, Duration, Effect, Layer, Schema } from "effect"

export interface MemoryJobQueueOptions {
  /** How long closing a worker's scope waits for its runs in flight (default 30 seconds). */
  readonly shutdownGrace?: Duration.DurationInput
}

/** "held": enqueued in a Store transaction that has not committed yet (its dedupe key is taken). */
type JobState = "held" | "pending" | "running" | "completed" | "failed"

interface MemoryJob {
  readonly id: string
  readonly name: string
  readonly payload: unknown
  readonly dedupeKey: string | undefined
  state: JobState
  attempts: number
  runAt: number
  lastError: string | undefined
}

/** A view of one job, for tests. */
export interface MemoryJobView {
  readonly id: string
  readonly name: string
  readonly state: JobState
  readonly attempts: number
  readonly runAt: Date
  readonly lastError: string | undefined
}

const unfinished = (job: MemoryJob) => job.state === "held" || job.state === "pending" || job.state === "running"

export const makeMemoryJobQueue = (options: MemoryJobQueueOptions = {}) =>
  Effect.gen(function* () {
    const ids = yield* Ids
    const jobs = new Map<string, MemoryJob>()
    let changed = yield* Deferred.make<void>()
    const wake = Effect.flatMap(Deferred.make<void>(), (next) => {
      const previous = changed
      changed = next
      return Deferred.succeed(previous, undefined)
    })

    const enqueue = <A, I>(job: JobDefinition<A, I>, payload: A, enqueueOptions: EnqueueOptions = {}) =>
      Effect.gen(function* () {
        const encoded = yield* Schema.encode(job.payload)(payload).pipe(
          Effect.mapError((cause) => new StoreError({ operation: "jobs.enqueue", cause })),
        )
        const key = enqueueOptions.dedupeKey
        if (key !== undefined) {
          for (const existing of jobs.values()) {
            if (existing.name === job.name && existing.dedupeKey === key && unfinished(existing)) return existing.id
          }
        }
        const now = yield* Clock.currentTimeMillis
        const id = ids.make("job", new Date(now))
        const stored: MemoryJob = {
          id, name: job.name, payload: structuredClone(encoded), dedupeKey: key, state: "held", attempts: 0,
          runAt: enqueueOptions.runAt?.getTime() ?? now, lastError: undefined,
        }
        jobs.set(id, stored)
        yield* afterCommit(Effect.zipRight(Effect.sync(() => { stored.state = "pending" }), wake))
        return id
      })

    const enqueueAll = enqueueEach(enqueue)

    const due = (name: string, now: number) =>
      [...jobs.values()].filter((job) => job.name === name && job.state === "pending" && job.runAt <= now)
        .sort((a, b) => a.runAt - b.runAt)

    const work: JobQueueService["work"] = (job, handler, workOptions) =>
      runJobWorker(job, handler, {
        claim: (max) =>
          Effect.map(Clock.currentTimeMillis, (now) =>
            due(job.name, now).slice(0, max).map((claimed): ClaimedJob => {
              claimed.state = "running"
              claimed.attempts += 1
              return { id: claimed.id, attempt: claimed.attempts, payload: structuredClone(claimed.payload) }
            })),
        complete: (claimed) => Effect.sync(() => { for (const one of claimed) jobs.get(one.id)!.state = "completed" }),
        fail: (claimed, retryIn, error) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => {
            const stored = jobs.get(claimed.id)!
            stored.lastError = error
            if (retryIn === undefined) {
              stored.state = "failed"
              return Effect.void
            }
            stored.state = "pending"
            stored.runAt = now + Duration.toMillis(retryIn)
            return wake
          }),
        // Sleeps until the earliest pending job of this definition is due, or until an enqueue or a retry changes it.
        idle: Effect.gen(function* () {
          const signal = changed
          const now = yield* Clock.currentTimeMillis
          let next = Infinity
          for (const pending of jobs.values()) {
            if (pending.name === job.name && pending.state === "pending") next = Math.min(next, pending.runAt)
          }
          if (next <= now) return
          yield* next === Infinity ? Deferred.await(signal) : Effect.race(Deferred.await(signal), Effect.sleep(Duration.millis(next - now)))
        }),
      }, { concurrency: workOptions?.concurrency ?? 1, shutdownGrace: options.shutdownGrace ?? "30 seconds" })

    /** Every job this queue holds, finished ones included, oldest first. */
    const inspect = Effect.sync((): ReadonlyArray<MemoryJobView> =>
      [...jobs.values()].map((job) => ({
        id: job.id, name: job.name, state: job.state, attempts: job.attempts, runAt: new Date(job.runAt), lastError: job.lastError,
      })))

    return { queue: JobQueue.of({ enqueue, enqueueAll, work }), inspect }
  })

export const MemoryJobQueue = {
  /** The in-process JobQueue; ids come from the Ids service. */
  layer: (options: MemoryJobQueueOptions = {}): Layer.Layer<JobQueue, never, Ids> =>
    Layer.effect(JobQueue, Effect.map(makeMemoryJobQueue(options), ({ queue }) => queue)),
} as const
