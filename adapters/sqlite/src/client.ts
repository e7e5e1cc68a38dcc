/** Mailroom's SqlClient over one better-sqlite3 connection: @effect/sql-sqlite-node's client (one connection in WAL
 *  mode; a transaction holds the connection until it ends, other statements wait for it; prepared statements are kept
 *  for reuse), with Mailroom's commit durability added to its transactions. */
import type * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient, type SqlConnection, type SqlError } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { CommitDurability } from "@mailroom/core"
import { Context, Effect, Option, Scope } from "effect"

/** How many prepared statements stay cached. Mailroom's own statement texts number in the low hundreds; texts that
 *  depend on input (IN lists of any length) come and go. */
const prepareCacheSize = 500

/** Whether `filename` names a file on disk (not an in-memory database). */
export const isFile = (filename: string) => filename !== "" && filename !== ":memory:" && !filename.startsWith("file::memory:")

export const makeSqliteClient = (filename: string): Effect.Effect<SqlClient.SqlClient, SqlError.SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const client = yield* SqliteClient.make({ filename, prepareCacheSize })
    const spanAttributes = [["db.system.name", "sqlite"]] as const

    // A relaxed transaction (CommitDurability) runs with synchronous=NORMAL: in WAL mode its commit is not synced, and
    // the WAL is synced at the next full commit or checkpoint, so commits are never undone out of order. SQLite changes
    // the level only outside a transaction, so it is set on the reserved connection (the only one, held until the
    // transaction ends) before BEGIN, and set back after COMMIT or ROLLBACK (the scope's finalizers run in reverse:
    // the level first, then the connection given back). No other commit runs at that level meanwhile. NORMAL and OFF
    // do not sync a commit in WAL mode anyway, so they are left as they are.
    const reserveRelaxed = Effect.flatMap(client.reserve, (connection) =>
      Effect.gen(function* () {
        const rows = (yield* connection.execute("PRAGMA synchronous", [], undefined)) as ReadonlyArray<{ readonly synchronous?: number }>
        const level = rows[0]?.synchronous ?? 0
        if (level >= 2) {
          yield* connection.execute("PRAGMA synchronous = NORMAL", [], undefined)
          yield* Effect.addFinalizer(() => Effect.orDie(connection.execute(`PRAGMA synchronous = ${level}`, [], undefined)))
        }
        return connection
      }))
    const run = (sql: string) => (connection: SqlConnection.Connection) => Effect.asVoid(connection.executeUnprepared(sql, [], undefined))
    const relaxedTransaction = SqlClient.makeWithTransaction({
      transactionTag: SqlClient.TransactionConnection,
      spanAttributes,
      acquireConnection: Effect.flatMap(Scope.make(), (scope) =>
        Effect.map(Scope.extend(reserveRelaxed, scope), (connection) => [scope, connection] as const)),
      begin: run("BEGIN"),
      savepoint: (connection, id) => run(`SAVEPOINT effect_sql_${id}`)(connection),
      commit: run("COMMIT"),
      rollback: run("ROLLBACK"),
      rollbackSavepoint: (connection, id) => run(`ROLLBACK TO SAVEPOINT effect_sql_${id}`)(connection),
    })

    // A nested transaction (a savepoint) is its outer transaction's, whatever its durability.
    const libraryTransaction = client.withTransaction
    const withTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
      Effect.withFiberRuntime((fiber) => {
        const context = fiber.currentContext
        const outermost = Option.isNone(Context.getOption(context, SqlClient.TransactionConnection))
        return outermost && Context.get(context, CommitDurability) === "relaxed" ? relaxedTransaction(effect) : libraryTransaction(effect)
      })
    return Object.assign(client, { withTransaction })
  })
