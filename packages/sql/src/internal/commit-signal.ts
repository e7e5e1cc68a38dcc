/** Tells the relay of this process that events committed: `track` wraps the Store's transactions, `appended` marks
 *  the transaction in progress with the types of the events appended to it, and the waiters of those types wake once
 *  the outermost transaction commits (at once for an append made outside a transaction of the Store). */
import { type EventType, withCommitHooks } from "@mailroom/core"
import { makeKindWakeSignals } from "@mailroom/core/internal"
import { Effect, Exit, FiberRef } from "effect"

export interface CommitSignal {
  /** Runs a transaction; when it is the outermost one, wakes the waiters of the types of the events appended in it, and
   *  runs the effects given to core's `afterCommit` in it (withCommitHooks), once it committed. */
  readonly track: <A, E, R>(transaction: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Called after events of `types` were appended. */
  readonly appended: (types: ReadonlyArray<EventType>) => Effect.Effect<void>
  /** The wait for the next commit that appended events (of `types`, when given). */
  readonly next: (types?: ReadonlyArray<EventType>) => Effect.Effect<Effect.Effect<void>>
}

export const makeCommitSignal = (): CommitSignal => {
  const signals = makeKindWakeSignals()
  /** The types appended by the outermost transaction running in this fiber, if any. */
  const mark = FiberRef.unsafeMake<Set<EventType> | undefined>(undefined)
  return {
    // The mark is set and taken off here rather than through Effect.locally (an acquire-use-release of its own, a dozen
    // steps per transaction): everything but the transaction itself runs uninterruptible, so the mark always comes
    // off. Only the outermost transaction sets it, so taking it off leaves none.
    track: (transaction) =>
      withCommitHooks(Effect.uninterruptibleMask((restore) =>
        Effect.withFiberRuntime((fiber) => {
          if (fiber.getFiberRef(mark) !== undefined) return restore(transaction)
          const own = new Set<EventType>()
          return Effect.zipRight(FiberRef.set(mark, own), Effect.flatMap(Effect.exit(restore(transaction)), (exit) => {
            if (own.size > 0 && Exit.isSuccess(exit)) signals.wake(own)
            return Effect.zipRight(FiberRef.set(mark, undefined), exit)
          }))
        }))),
    appended: (types) =>
      Effect.withFiberRuntime((fiber) => {
        const current = fiber.getFiberRef(mark)
        if (current === undefined) signals.wake(types)
        else for (const type of types) current.add(type)
        return Effect.void
      }),
    next: signals.next,
  }
}
