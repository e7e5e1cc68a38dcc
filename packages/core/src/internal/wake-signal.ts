/** A wake-up call between fibers: waiters take the current wait, and `wake` completes every wait taken so far. A wait
 *  taken after a wake waits for the next one, so a waiter that takes its wait before looking for work never misses
 *  work that arrives while it looks. */
import { Deferred, Effect, Exit, FiberId } from "effect"

export interface WakeSignal {
  /** The wait for the next wake after this call. */
  readonly next: Effect.Effect<Effect.Effect<void>>
  /** Completes every wait taken so far. Safe to call from plain code (commit hooks). */
  readonly wake: () => void
}

export const makeWakeSignal = (): WakeSignal => {
  let current = Deferred.unsafeMake<void>(FiberId.none)
  /** Whether a wait was taken since the last wake: a wake that nobody can be waiting for changes nothing. */
  let taken = false
  return {
    next: Effect.sync(() => {
      taken = true
      return Deferred.await(current)
    }),
    wake: () => {
      if (!taken) return
      taken = false
      const previous = current
      current = Deferred.unsafeMake<void>(FiberId.none)
      Deferred.unsafeDone(previous, Exit.void)
    },
  }
}

/** One WakeSignal per key, made on first use: the idle workers of a job queue wait on their job name's, so that work
 *  of one kind wakes only the workers of that kind. */
export const makeKeyedWakeSignals = () => {
  const signals = new Map<string, WakeSignal>()
  const of = (key: string): WakeSignal => {
    let signal = signals.get(key)
    if (signal === undefined) {
      signal = makeWakeSignal()
      signals.set(key, signal)
    }
    return signal
  }
  return {
    of,
    /** Wakes the waiters of `key`. */
    wake: (key: string): Effect.Effect<void> => Effect.sync(() => of(key).wake()),
  }
}
