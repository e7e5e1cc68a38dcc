/** Tells the relay of this process that events committed: `track` wraps the Store's transactions, `appended` marks
 *  the transaction in progress when events are appended to it, and the waiters wake once the outermost transaction
 *  commits (at once for an append made outside a transaction of the Store). */
import { makeWakeSignal } from "@mailroom/core"
import { Effect, Exit, FiberRef } from "effect"

export interface CommitSignal {
  /** Runs a transaction; when it is the outermost one and events were appended in it, wakes the waiters once it
   *  committed. */
  readonly track: <A, E, R>(transaction: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Called after events were appended. */
  readonly appended: Effect.Effect<void>
  /** The wait for the next commit that appended events. */
  readonly next: Effect.Effect<Effect.Effect<void>>
}

export const makeCommitSignal = (): CommitSignal => {
  const signal = makeWakeSignal()
  /** The mark of the outermost transaction running in this fiber, if any. */
  const mark = FiberRef.unsafeMake<{ appended: boolean } | undefined>(undefined)
  return {
    // The mark is set and taken off here rather than through Effect.locally (an acquire-use-release of its own, a dozen
    // steps per transaction): everything but the transaction itself runs uninterruptible, so the mark always comes
    // off. Only the outermost transaction sets it, so taking it off leaves none.
    track: (transaction) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.withFiberRuntime((fiber) => {
          if (fiber.getFiberRef(mark) !== undefined) return restore(transaction)
          const own = { appended: false }
          return Effect.zipRight(FiberRef.set(mark, own), Effect.flatMap(Effect.exit(restore(transaction)), (exit) => {
            if (own.appended && Exit.isSuccess(exit)) signal.wake()
            return Effect.zipRight(FiberRef.set(mark, undefined), exit)
          }))
        })),
    appended: Effect.withFiberRuntime((fiber) => {
      const current = fiber.getFiberRef(mark)
      if (current === undefined) signal.wake()
      else current.appended = true
      return Effect.void
    }),
    next: signal.next,
  }
}
