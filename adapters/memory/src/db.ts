/** The memory backend's tables and transactions. Repositories keep their rows in tables made here; one writer at a
 *  time, and a failed transaction puts every table back as it was when the transaction began. */
import { type AccountId, withCommitHooks } from "@mailroom/core"
import { Effect, Either, Exit, FiberRef, type Scope } from "effect"

/** Undo steps of the running transaction, newest last; undefined while no transaction runs. */
export interface Journal {
  steps: Array<() => void> | undefined
  /** What runs once the running transaction commits (dropped when it rolls back). */
  committed: Array<() => void>
}

/** A keyed table. Rows are immutable values: a change replaces the row, and every replacement is journaled so that a
 *  rollback can undo it. Callers must never mutate a row they read from a table. */
export class MemoryTable<K, V> {
  readonly #rows = new Map<K, V>()
  readonly #journal: Journal

  constructor(journal: Journal) {
    this.#journal = journal
  }

  get size(): number {
    return this.#rows.size
  }

  get(key: K): V | undefined {
    return this.#rows.get(key)
  }

  has(key: K): boolean {
    return this.#rows.has(key)
  }

  values(): IterableIterator<V> {
    return this.#rows.values()
  }

  set(key: K, value: V): void {
    const rows = this.#rows
    if (rows.has(key)) {
      const previous = rows.get(key) as V
      this.#journal.steps?.push(() => rows.set(key, previous))
    } else {
      this.#journal.steps?.push(() => rows.delete(key))
    }
    rows.set(key, value)
  }

  delete(key: K): boolean {
    const rows = this.#rows
    if (!rows.has(key)) return false
    const previous = rows.get(key) as V
    this.#journal.steps?.push(() => rows.set(key, previous))
    return rows.delete(key)
  }
}

/** Drops the rows that depend on deleted rows of another table (list memberships of deleted contacts, say). */
export type DeleteHook = (accountId: AccountId, ids: ReadonlyArray<string>) => void

export interface MemoryDb {
  /** A new, empty table whose changes roll back with the transaction that made them. */
  readonly table: <K, V>() => MemoryTable<K, V>
  /** Runs `f` as one atomic step: inside a transaction it joins it; elsewhere it waits until no transaction runs, so
   *  nobody reads uncommitted rows and no rollback undoes a write made beside it. */
  readonly atomic: <A>(f: () => A) => Effect.Effect<A>
  /** Like `atomic`, for a step that can refuse: a Left fails the step and undoes what `f` wrote before refusing, even
   *  inside a transaction that goes on after catching the refusal. */
  readonly atomicEither: <A, E>(f: () => Either.Either<A, E>) => Effect.Effect<A, E>
  /** Runs `effect` alone and atomically: on failure, defect or interruption every table is put back as it was at the
   *  start. A transaction started inside another (including from fibers it forks) joins it. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Runs `f` once the transaction in progress commits, or at once outside a transaction; dropped on rollback. */
  readonly onCommit: (f: () => void) => void
  /** Registers `hook` to run whenever rows of `resource` are deleted. */
  readonly onDelete: (resource: string, hook: DeleteHook) => void
  /** Runs the hooks registered for `resource`; call it inside the atomic step that deletes the rows. */
  readonly deleted: (resource: string, accountId: AccountId, ids: ReadonlyArray<string>) => void
}

/** A fresh database with no tables. Rollback replays an undo journal rather than copying every table at the start,
 *  so a transaction costs in proportion to its writes, not to the size of the store. */
export const makeMemoryDb: Effect.Effect<MemoryDb, never, Scope.Scope> = Effect.gen(function* () {
  const journal: Journal = { steps: undefined, committed: [] }
  const writer = yield* Effect.makeSemaphore(1)
  const inside = yield* FiberRef.make(false)
  const hooks = new Map<string, Array<DeleteHook>>()

  /** Undoes the journaled changes made after the journal held `mark` steps. */
  const undoTo = (mark: number) => {
    const steps = journal.steps ?? []
    while (steps.length > mark) steps.pop()!()
  }
  const begin = Effect.sync(() => {
    journal.steps = []
  })
  const end = (exit: Exit.Exit<unknown, unknown>) => Effect.sync(() => {
    if (Exit.isFailure(exit)) undoTo(0)
    journal.steps = undefined
    const committed = journal.committed.splice(0)
    if (Exit.isSuccess(exit)) for (const f of committed) f()
  })

  // The outermost transaction runs the effects given to core's afterCommit once it committed.
  const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(FiberRef.get(inside), (joined) =>
      joined
        ? effect
        : withCommitHooks(writer.withPermits(1)(
          Effect.acquireUseRelease(begin, () => Effect.locally(effect, inside, true), (_, exit) => end(exit)),
        )))

  return {
    table: <K, V>() => new MemoryTable<K, V>(journal),
    atomic: (f) => transaction(Effect.sync(f)),
    atomicEither: (f) => transaction(Effect.suspend(() => {
      const mark = journal.steps?.length ?? 0
      const result = f()
      if (Either.isLeft(result)) undoTo(mark)
      return result
    })),
    transaction,
    onCommit: (f) => {
      if (journal.steps === undefined) f()
      else journal.committed.push(f)
    },
    onDelete: (resource, hook) => {
      hooks.set(resource, [...(hooks.get(resource) ?? []), hook])
    },
    deleted: (resource, accountId, ids) => {
      if (ids.length === 0) return
      for (const hook of hooks.get(resource) ?? []) hook(accountId, ids)
    },
  }
})
