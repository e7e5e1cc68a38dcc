/** Background work: the consumers of the event outbox and the job workers. Services register theirs while their
 *  layers are built (`consume`, `work`); the host starts everything at once (`start`, which the facade runs on
 *  `ready()` or the first request) and stops it by closing the scope it was started in (the facade's `close()`).
 *  Background work commits with relaxed durability (CommitDurability): what an operating-system crash undoes is done
 *  again, as after a crash of the process. */
import { Context, Duration, Effect, Option, Ref, Scope } from "effect"
import type { DomainEvent, EventType } from "../domain/event.js"
import type { StoreError } from "../errors.js"
import { type JobDefinition, JobQueue, type JobRun } from "../ports/job-queue.js"
import type { Mailer } from "../ports/mailer.js"
import { CommitDurability, relayPassWindow, Store } from "../ports/store.js"

/** What background handlers may use beside the services they were registered by: the ports the host provides when it
 *  starts the work (the facade's runtime provides them all; Dns and HttpTransport are references with defaults). */
export type BackgroundContext = Store | JobQueue | Mailer

/** A consumer of the outbox: it receives every committed event, in order, in batches. */
export interface EventConsumer {
  /** Stable and unique: the relay keeps the consumer's cursor under this name. A new name starts at the oldest event. */
  readonly name: string
  /** Most events handed to it in one batch, when not BackgroundConfig's `relayBatchSize`. */
  readonly batchSize?: number
  /** Handles one batch. It runs inside the relay's Store transaction: its Store writes, and the jobs it enqueues
   *  (JobQueue), commit together with the move of the cursor, or not at all. It must be idempotent: a batch whose
   *  handler fails is offered again (after a pause), and so is a batch that was handled when the process died before
   *  the commit. */
  readonly handle: (events: ReadonlyArray<DomainEvent>) => Effect.Effect<void, StoreError, BackgroundContext>
  /** The event types it handles, when not all: the others pass it by unread (its cursor moves past them), and a
   *  batch with none of its types is not handed to it. */
  readonly types?: ReadonlyArray<EventType>
}

/** Settings of the background work. */
export class BackgroundConfig extends Context.Reference<BackgroundConfig>()("@mailroom/core/BackgroundConfig", {
  defaultValue: () => ({
    /** Most events handed to a consumer in one batch. */
    relayBatchSize: 100,
    /** How long the relay waits before looking again when a consumer has caught up. */
    relayPollInterval: Duration.millis(200),
    /** Longest pause after a failed batch (pauses double from one second up to this). */
    relayMaxBackoff: Duration.seconds(30),
  }),
}) {}

type Task = Effect.Effect<void, StoreError, Scope.Scope | BackgroundContext>

/** Lets the I/O that is already waiting run before a woken relay reads its batch (under load, the requests under way
 *  then commit their events first, and one relay transaction takes them all instead of one transaction per request),
 *  and between the batches of a backlog.
 *  A turn of the event loop, not a timer, so that it costs no latency when the process is idle (and TestClock does
 *  not hold it). */
const afterWaitingIo: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/** Whether a relay call that moved a consumer's cursor past `moved` events may have left more waiting: it took a whole
 *  batch, or, for a consumer of some types, passed a whole window of other events (see EventOutbox.relay). Anything
 *  less reached the end of what was committed, and the relay waits for a wake or its poll. */
const mayHaveMore = (moved: number, batchSize: number, typed: boolean) =>
  typed ? moved === batchSize || moved >= Math.max(batchSize, relayPassWindow) : moved >= batchSize

/** Relays committed events to one consumer until interrupted. A batch in progress finishes before the relay stops. */
const relayTo = (consumer: EventConsumer) =>
  Effect.gen(function* () {
    const store = yield* Store
    const config = yield* BackgroundConfig
    const maxBackoff = Duration.toMillis(config.relayMaxBackoff)
    let backoff = 1000
    const batchSize = consumer.batchSize ?? config.relayBatchSize
    const types = consumer.types
    const batch = Effect.uninterruptible(store.events.relay(consumer.name, batchSize, consumer.handle, types))
    while (true) {
      // Taken before the batch reads, so that events committed while it runs wake the relay at once: events of the
      // consumer's types, when it has some (a commit of other events leaves it to its poll).
      const appended = yield* store.events.appended(types)
      const handled = yield* Effect.either(batch)
      if (handled._tag === "Left") {
        yield* Effect.logError(`event relay: consumer ${consumer.name} failed; its batch is offered again`, handled.left)
        yield* Effect.sleep(Duration.millis(backoff))
        backoff = Math.min(backoff * 2, maxBackoff)
        continue
      }
      backoff = 1000
      // Caught up: wait for this process's next commit of events, or the poll (events of other processes).
      if (!mayHaveMore(handled.right, batchSize, types !== undefined)) {
        const woken = yield* Effect.race(Effect.as(appended, true), Effect.as(Effect.sleep(config.relayPollInterval), false))
        if (!woken) continue
      }
      // Woken, or in a backlog, whose batches run one after another, each in a transaction that holds the connection
      // (the only one, on SQLite): a turn of the event loop first lets the rest of the process go on (the jobs the
      // last batch queued start, answers that arrived are read, requests get the connection).
      yield* afterWaitingIo
    }
  })

export class Background extends Effect.Service<Background>()("@mailroom/core/Background", {
  effect: Effect.gen(function* () {
    const tasks: Array<Task> = []
    /** Where tasks registered after `start` go, once it ran. */
    const running = yield* Ref.make(Option.none<{ readonly scope: Scope.Scope; readonly context: Context.Context<BackgroundContext> }>())

    // Every task's commits are relaxed (see CommitDurability): relays and job runs are done again when a commit of
    // theirs is undone, as when their process dies.
    const add = (registered: Task) => {
      const task = Effect.provideService(registered, CommitDurability, "relaxed")
      return Effect.flatMap(Ref.get(running), Option.match({
        onNone: () => Effect.sync(() => { tasks.push(task) }),
        onSome: ({ scope, context }) => Effect.orDie(Scope.extend(Effect.provide(task, context), scope)),
      }))
    }

    /** Registers an outbox consumer (see EventConsumer). */
    const consume = (consumer: EventConsumer): Effect.Effect<void> =>
      add(Effect.asVoid(Effect.forkScoped(Effect.interruptible(relayTo(consumer)))))

    /** Registers a worker for `job` (JobQueue.work: at least once, the job's retry policy, at most `concurrency` runs at
     *  a time in this process). */
    const work = <A, I, E>(
      job: JobDefinition<A, I>,
      handler: (payload: A, run: JobRun) => Effect.Effect<void, E, BackgroundContext>,
      options?: { readonly concurrency?: number },
    ): Effect.Effect<void> => add(Effect.flatMap(JobQueue, (queue) => queue.work(job, handler, options)))

    /** Registers a task run once each time the work starts, beside the consumers and workers (re-queueing work that
     *  a previous process left behind, say). A failure is logged; it does not stop the rest. */
    const atStart = (name: string, task: Effect.Effect<void, StoreError, BackgroundContext>): Effect.Effect<void> =>
      add(Effect.asVoid(Effect.forkScoped(task.pipe(
        Effect.catchAllCause((cause) => Effect.logError(`background: ${name} failed at start`, cause)),
      ))))

    /** Registers a periodic task: `task` runs, then the worker sleeps `interval` (Effect's Clock, so TestClock drives it
     *  in tests), and again, until the scope closes. A failed run is logged and the next one comes after the interval;
     *  a run in progress finishes before the task stops. */
    const every = (name: string, interval: Duration.DurationInput, task: Effect.Effect<void, StoreError>): Effect.Effect<void> =>
      add(Effect.asVoid(Effect.forkScoped(Effect.interruptible(Effect.forever(Effect.gen(function* () {
        const ran = yield* Effect.either(Effect.uninterruptible(task))
        if (ran._tag === "Left") yield* Effect.logError(`background task ${name} failed; it runs again later`, ran.left)
        yield* Effect.sleep(interval)
    }))))))

    /** Starts every registered consumer and worker in the current scope (and those registered later, in the same
     *  scope). Closing the scope stops them: relays after their batch in progress, workers as JobQueue.work says. */
    const start: Effect.Effect<void, StoreError, Scope.Scope | BackgroundContext> = Effect.gen(function* () {
      const scope = yield* Effect.scope
      const context = yield* Effect.context<BackgroundContext>()
      yield* Ref.set(running, Option.some({ scope, context }))
      for (const task of tasks.splice(0)) yield* task
    })

    return { consume, work, atStart, every, start } as const
  }),
}) {}
