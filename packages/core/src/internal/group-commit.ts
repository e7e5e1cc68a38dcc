/** Group commit: callers that arrive while a batch is being written wait for the next one, which writes them all at
 *  once (one transaction, one sync to disk, instead of one each). Each caller still returns only once its own item is
 *  written, so nothing is acknowledged early. A batch that fails is written again one item at a time, so that one bad
 *  item fails alone. */
import { Deferred, Effect, Exit } from "effect"

/** Resumes at the event loop's next turn (after the I/O callbacks that are ready). */
export const nextTurn = Effect.async<void>((resume) => {
  const timer = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(timer))
})

interface Waiting<A, B, E> {
  readonly item: A
  readonly done: Deferred.Deferred<B, E>
}

/** Makes `(item) => Effect` that writes items with `write`, grouped: at most `max` per call of `write`, which answers
 *  one result per item, in order. Batches are written one after another, by a fiber of their own (a caller that is
 *  interrupted leaves its item to be written). A batch starts at the event loop's next turn. */
export const makeGroupCommit = <A, B, E, R>(
  write: (items: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>, E, R>,
  max = 64,
) => {
  let waiting: Array<Waiting<A, B, E>> = []
  let writing = false

  const settle = (batch: ReadonlyArray<Waiting<A, B, E>>, exit: Exit.Exit<ReadonlyArray<B>, E>) =>
    Effect.forEach(batch, (one, i) => Deferred.done(one.done, Exit.map(exit, (results) => results[i]!)), { discard: true })

  const writeBatch = (batch: ReadonlyArray<Waiting<A, B, E>>): Effect.Effect<void, never, R> =>
    Effect.flatMap(Effect.exit(write(batch.map((one) => one.item))), (exit) =>
      Exit.isFailure(exit) && batch.length > 1
        ? Effect.forEach(batch, (one) => writeBatch([one]), { discard: true })
        : settle(batch, exit))

  // Each batch waits for the event loop's next turn first: callers whose I/O completed meanwhile join it (a write on
  // a synchronous driver such as SQLite's blocks the loop, and would otherwise always find a batch of one).
  const drain: Effect.Effect<void, never, R> = Effect.zipRight(nextTurn, Effect.suspend(() => {
    if (waiting.length === 0) {
      writing = false
      return Effect.void
    }
    const batch = waiting.slice(0, max)
    waiting = waiting.slice(max)
    return Effect.zipRight(writeBatch(batch), drain)
  }))

  return (item: A): Effect.Effect<B, E, R> =>
    Effect.gen(function* () {
      const done = yield* Deferred.make<B, E>()
      waiting.push({ item, done })
      if (!writing) {
        writing = true
        yield* Effect.forkDaemon(Effect.uninterruptible(drain))
      }
      return yield* Deferred.await(done)
    })
}
