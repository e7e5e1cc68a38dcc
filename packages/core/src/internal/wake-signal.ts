/** A wake-up call between fibers: waiters take the current wait, and `wake` completes every wait taken so far. A wait
 *  taken after a wake waits for the next one, so a waiter that takes its wait before looking for work never misses
 *  work that arrives while it looks. */
import { Deferred, type Duration, Effect, Exit, FiberId } from "effect"

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
    /** Wakes the waiters of `key` now, and again at each of `times` still ahead and within `horizonMs` (a timer that
     *  keeps no process alive): a job due soon is claimed when it falls due rather than at the next poll, so that a
     *  chain of paced jobs (a campaign's chunks) is not slowed to one link per poll interval. */
    wakeAt: (key: string, times: ReadonlyArray<number | undefined>, horizonMs: number): Effect.Effect<void> =>
      Effect.sync(() => {
        of(key).wake()
        const now = Date.now()
        const ahead = [...new Set(times.filter((t): t is number => t !== undefined && t > now && t - now <= horizonMs))]
        for (const time of ahead) {
          // A few milliseconds late, so that the database's clock has passed the job's time when the worker asks.
          const timer = setTimeout(() => of(key).wake(), time - now + 5)
          timer.unref?.()
        }
      }),
  }
}

/** Wake-ups by kind of work (event types): a waiter takes the wait for some kinds, or for any, and `wake` wakes the
 *  waiters of the kinds given. The relay of a consumer of some event types waits on its types', so that a commit of
 *  other events leaves it asleep. Waiters with the same kinds share one WakeSignal. */
export const makeKindWakeSignals = () => {
  const keyed = makeKeyedWakeSignals()
  /** The kinds each key stands for (none: any kind). */
  const kindsOf = new Map<string, ReadonlySet<string> | undefined>()
  return {
    /** The wait for the next wake of one of `kinds` (of any kind when none are given) after this call. */
    next: (kinds?: ReadonlyArray<string>): Effect.Effect<Effect.Effect<void>> =>
      Effect.suspend(() => {
        const key = kinds === undefined ? "*" : [...new Set(kinds)].sort().join("\n")
        if (!kindsOf.has(key)) kindsOf.set(key, kinds === undefined ? undefined : new Set(kinds))
        return keyed.of(key).next
      }),
    /** Wakes the waiters of any of `kinds`, and those of any kind. Safe to call from plain code (commit hooks). */
    wake: (kinds: Iterable<string>) => {
      const woken = [...kinds]
      for (const [key, wanted] of kindsOf) {
        if (wanted === undefined || woken.some((kind) => wanted.has(kind))) keyed.of(key).wake()
      }
    },
  }
}

/** The wake-up of a job worker that claims from a database: `arm`, run as each claim begins, takes the wait for the
 *  next wake of `signal`; `idle` waits for it or for `poll`, whichever comes first. An enqueue during the claim's round
 *  trip thus ends the idle wait that follows it. */
export const makeClaimWakeup = (signal: WakeSignal, poll: Duration.DurationInput) => {
  let armed: Effect.Effect<void> = Effect.void
  return {
    arm: Effect.map(signal.next, (woken) => { armed = woken }),
    idle: Effect.suspend(() => Effect.race(armed, Effect.sleep(poll))),
  }
}
