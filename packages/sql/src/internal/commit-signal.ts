/** Tells the relay of this process that events committed: `track` wraps the Store's transactions, `appended` marks
 *  the transaction in progress when events are appended to it, and the waiters wake once the outermost transaction
 *  commits (at once for an append made outside a transaction of the Store). */
import { makeWakeSignal } from "@mailroom/core"
import { Effect, FiberRef } from "effect"

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
    track: (transaction) =>
      Effect.flatMap(FiberRef.get(mark), (outer) => {
        if (outer !== undefined) return transaction
        const own = { appended: false }
        return Effect.locally(transaction, mark, own).pipe(Effect.tap(() => { if (own.appended) signal.wake() }))
      }),
    appended: Effect.flatMap(FiberRef.get(mark), (current) => Effect.sync(() => {
      if (current === undefined) signal.wake()
      else current.appended = true
    })),
    next: signal.next,
  }
}
