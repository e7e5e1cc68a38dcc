/** Mailroom's SqlClient over one better-sqlite3 connection: @effect/sql's client (statements, transactions,
 *  savepoints) over a connection that Mailroom opens itself. It behaves as @effect/sql-sqlite-node's client does: one connection in WAL mode, a
 *  transaction holds the connection until it ends, other statements wait for it, and prepared statements are kept
 *  for reuse. */
import type * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient, type SqlConnection, SqlError, Statement } from "@effect/sql"
import { CommitDurability, type Durability, makeRecentCache } from "@mailroom/core"
import Database from "better-sqlite3"
import { Context, Effect, Exit, FiberRef, Scope } from "effect"
import { startCheckpointer } from "./checkpointer.js"

/** How many prepared statements stay cached; beyond that the least recently used one is dropped. Mailroom's own
 *  statement texts number in the low hundreds; texts that depend on input (IN lists of any length) come and go. */
const preparedCacheSize = 500

/** How long after commits the checkpoint thread takes them in, and the WAL size (in pages) past which a commit
 *  checkpoints itself (SQLite's default is 1,000 pages). */
const checkpointIntervalMillis = 200
const fallbackCheckpointPages = 10_000
const defaultCheckpointPages = 1_000

/** Whether `filename` names a file on disk (not an in-memory database). */
export const isFile = (filename: string) => filename !== "" && filename !== ":memory:" && !filename.startsWith("file::memory:")

const failure = (message: string) => (cause: unknown) => new SqlError.SqlError({ cause, message })

export const makeSqliteClient = (filename: string): Effect.Effect<SqlClient.SqlClient, SqlError.SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const db = yield* Effect.acquireRelease(
      Effect.try({ try: () => new Database(filename), catch: failure("Failed to open the database") }),
      (opened) => Effect.sync(() => opened.close()),
    )
    db.pragma("journal_mode = WAL")
    // Checkpoints of a database file run on a thread of their own (see checkpointer.ts); the connection's own
    // automatic checkpoint only catches up if that thread falls far behind.
    // Where no thread can start (a runtime without worker threads, say), the connection checkpoints itself as SQLite
    // does by default; so it does again if the thread ends early.
    const ownCheckpoints = () => {
      try {
        if (db.open) db.pragma(`wal_autocheckpoint = ${defaultCheckpointPages}`)
      } catch {
        // Closed meanwhile: nothing left to checkpoint.
      }
    }
    const checkpointer = isFile(filename)
      ? yield* Effect.acquireRelease(
        Effect.sync(() => {
          try {
            return startCheckpointer(filename, { intervalMs: checkpointIntervalMillis, onLost: ownCheckpoints })
          } catch {
            return undefined
          }
        }),
        (started) => started === undefined ? Effect.void : Effect.promise(() => started.close()),
      )
      : undefined
    if (checkpointer !== undefined) db.pragma(`wal_autocheckpoint = ${fallbackCheckpointPages}`)

    const prepared = makeRecentCache<string, Database.Statement>(preparedCacheSize)
    const prepare = (sql: string): Database.Statement => prepared.get(sql, () => db.prepare(sql))
    const run = (statement: Database.Statement, params: ReadonlyArray<unknown>): ReadonlyArray<object> => {
      if (statement.reader) return statement.all(...params) as Array<object>
      statement.run(...params)
      // A write outside a transaction, or the COMMIT of one, added to the WAL.
      if (checkpointer !== undefined && !db.inTransaction) checkpointer.wrote()
      return []
    }
    const execute = (sql: string, params: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<object>, SqlError.SqlError> => {
      let statement: Database.Statement
      try {
        statement = prepare(sql)
      } catch (cause) {
        return Effect.fail(failure("Failed to prepare statement")(cause))
      }
      try {
        return Effect.succeed(run(statement, params))
      } catch (cause) {
        return Effect.fail(failure("Failed to execute statement")(cause))
      }
    }

    const connection: SqlConnection.Connection = {
      execute: (sql, params, transformRows) =>
        Effect.suspend(() => transformRows ? Effect.map(execute(sql, params), transformRows) : execute(sql, params)),
      executeRaw: (sql, params) =>
        Effect.try({
          try: () => {
            const statement = prepare(sql)
            return statement.reader ? statement.all(...params) : statement.run(...params)
          },
          catch: failure("Failed to execute statement"),
        }),
      executeValues: (sql, params) =>
        Effect.try({
          try: () => {
            const statement = prepare(sql)
            if (!statement.reader) {
              statement.run(...params)
              return []
            }
            statement.raw(true)
            try {
              return statement.all(...params) as Array<ReadonlyArray<unknown>>
            } finally {
              statement.raw(false)
            }
          },
          catch: failure("Failed to execute statement"),
        }),
      executeUnprepared: (sql, params, transformRows) =>
        Effect.try({ try: () => run(prepare(sql), params), catch: failure("Failed to execute statement") }).pipe(
          Effect.map((rows) => transformRows ? transformRows(rows) : rows),
        ),
      executeStream: () => Effect.dieMessage("executeStream not implemented") as never,
    }

    // One connection: a transaction takes the only permit for its whole length; a statement outside one waits for it.
    const semaphore = yield* Effect.makeSemaphore(1)
    const client = yield* SqlClient.make({
      acquirer: semaphore.withPermits(1)(Effect.succeed(connection)),
      transactionAcquirer: Effect.uninterruptibleMask((restore) =>
        Effect.as(
          Effect.zipRight(
            restore(semaphore.take(1)),
            Effect.tap(Effect.scope, (scope) => Scope.addFinalizer(scope, semaphore.release(1))),
          ),
          connection,
        )),
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]],
    })

    // A transaction as @effect/sql runs one (the connection held from BEGIN to COMMIT or ROLLBACK, the body
    // interruptible and the end not, a failed COMMIT or ROLLBACK a defect), without its span and scope when spans are
    // off. A nested transaction (a savepoint), or any transaction with spans on, is @effect/sql's own.
    // A relaxed transaction (CommitDurability) runs with synchronous=NORMAL: in WAL mode its commit is not synced, and
    // the WAL is synced at the next full commit or checkpoint, so commits are never undone out of order. SQLite changes
    // the level only outside a transaction: it is set just before BEGIN and set back just after COMMIT or ROLLBACK.
    // better-sqlite3 runs synchronously and the transaction holds the only connection, so no other commit runs at that
    // level. Answers the level to set back, if it changed (NORMAL and OFF do not sync a commit in WAL mode anyway).
    const begin = (durability: Durability): Effect.Effect<number | undefined, SqlError.SqlError> =>
      Effect.suspend(() => {
        let previous: number | undefined
        if (durability === "relaxed") {
          const level = db.pragma("synchronous", { simple: true }) as number
          if (level >= 2) {
            db.pragma("synchronous = NORMAL")
            previous = level
          }
        }
        return Effect.as(execute("BEGIN", []), previous).pipe(Effect.tapError(() => setBack(previous)))
      })
    const setBack = (level: number | undefined) => Effect.sync(() => { if (level !== undefined) db.pragma(`synchronous = ${level}`) })
    const end = (sql: "COMMIT" | "ROLLBACK", level: number | undefined) =>
      Effect.suspend(() => execute(sql, [])).pipe(Effect.ensuring(setBack(level)), Effect.orDie, Effect.ensuring(semaphore.release(1)))
    const libraryTransaction = client.withTransaction
    const withTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
      Effect.withFiberRuntime((fiber) => {
        const context = fiber.currentContext
        if (fiber.getFiberRef(FiberRef.currentTracerEnabled) || Context.getOption(context, SqlClient.TransactionConnection)._tag === "Some") {
          return libraryTransaction(effect)
        }
        const inTransaction = Context.add(context, SqlClient.TransactionConnection, [connection, 0] as const)
        const durability = Context.get(context, CommitDurability)
        return Effect.uninterruptibleMask((restore) =>
          Effect.zipRight(
            restore(semaphore.take(1)),
            begin(durability).pipe(
              Effect.tapError(() => semaphore.release(1)),
              Effect.flatMap((level) => Effect.flatMap(
                Effect.exit(Effect.locally(restore(effect), FiberRef.currentContext, inTransaction)),
                (exit) => Effect.zipRight(end(Exit.isSuccess(exit) ? "COMMIT" : "ROLLBACK", level), exit),
              )),
            ),
          ))
      })
    return Object.assign(client, { withTransaction })
  })
