/** Mailroom on Postgres: a connection pool with Mailroom's schema, for one or many instances of the host service. */
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient, type SqlConnection, SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { CommitDurability, type Durability, type Store, StoreError } from "@mailroom/core"
import { makeRecentCache } from "@mailroom/core/internal"
import { migrationsLayer, SqlStore } from "@mailroom/sql"
import { Chunk, Context, Duration, Effect, Exit, FiberRef, Layer, Stream } from "effect"
import pg from "pg"
import { withDirectStatements } from "./direct.js"
import { beginTransaction, relaxedSessionOptions } from "./durability.js"
import { PgBossJobQueue, type PgBossJobQueueOptions } from "./job-queue.js"

export interface MailroomPostgresOptions {
  /** `postgres://user:password@host:port/database`. */
  readonly url: string
  /** Most connections the pool opens (default 10). */
  readonly maxConnections?: number
}

/** Most connections of the pool for background statements outside a transaction (see `connection`). */
const relaxedConnections = 4

/** How long the first connection may take before the layer fails. */
const connectTimeout = Duration.seconds(5)

/** The pg pool, opened with one round trip (so a wrong URL fails the layer, not the first request) and ended when the
 *  layer's scope closes. Mailroom owns it so that statements can run on it directly (withDirectStatements). With
 *  `relaxed`, its connections commit relaxed outside a transaction (relaxedSessionOptions), and none opens before the
 *  first statement. */
const pool = (options: MailroomPostgresOptions, relaxed = false) =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const opened = new pg.Pool({
        connectionString: options.url,
        application_name: "mailroom",
        ...(relaxed ? { options: relaxedSessionOptions, max: relaxedConnections } : options.maxConnections === undefined ? {} : { max: options.maxConnections }),
      })
      // An idle connection that breaks is dropped by the pool; the next query opens another.
      opened.on("error", () => undefined)
      // The relaxed pool opens its connections when first needed: the main pool's first one checked the URL.
      if (relaxed) return Effect.succeed(opened)
      return Effect.tryPromise({
        try: () => opened.query("SELECT 1"),
        catch: (cause) => new SqlError.SqlError({ cause, message: "PgClient: Failed to connect" }),
      }).pipe(
        Effect.timeoutFail({
          duration: connectTimeout,
          onTimeout: () => new SqlError.SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" }),
        }),
        Effect.tapError(() => Effect.promise(() => opened.end())),
        Effect.as(opened),
      )
    }),
    (opened) => Effect.promise(() => opened.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000)),
  )

/** Asks the server to stop the statement running on `client`'s connection: best effort, as @effect/sql-pg does when a
 *  statement is interrupted. */
const cancel = (opened: pg.Pool, client: pg.PoolClient): Effect.Effect<void> => {
  const processId = (client as unknown as { processID?: number }).processID
  if (processId === undefined) return Effect.void
  return Effect.async<void>((resume) => {
    if (opened.ending) return resume(Effect.void)
    opened.query(`SELECT pg_cancel_backend(${processId})`, () => resume(Effect.void))
  }).pipe(Effect.interruptible, Effect.timeoutOption(5000), Effect.asVoid)
}

type Answer = pg.QueryResult<Record<string, unknown>>

/** How many statement texts keep their prepared statement on each connection. */
const maxPrepared = 256

/** Each connection's named statements, by text (see queryOn). */
const preparedOn = new WeakMap<pg.ClientBase, ReturnType<typeof makeRecentCache<string, string>>>()
let preparedCount = 0

/** Deallocates `name` on `client` (before its next statement: a connection runs its statements in order). */
const deallocate = (client: pg.ClientBase, name: string) =>
  client.query(`DEALLOCATE ${name}`, (error: Error | null) => {
    // pg keeps the texts it parsed under each name; a name is never used again, so its entry only has to go.
    const parsed = (client as unknown as { connection?: { parsedStatements?: Record<string, string> } }).connection?.parsedStatements
    if (error === null && parsed !== undefined) delete parsed[name]
  })

/** The query to send for `text` on `client`: a statement with parameters runs as a named prepared statement, which
 *  Postgres parses and analyses once per connection (and, after a few runs, may plan once), where an unnamed one is
 *  parsed and planned on every run: Mailroom's multi-row statements take longer to plan than to run. The last
 *  `maxPrepared` texts of a connection keep their statement; the one that falls out is deallocated. A statement
 *  without parameters goes as a simple query, as before (it may hold several statements). */
const queryOn = (client: pg.ClientBase, text: string, params: ReadonlyArray<unknown>, rowMode?: "array"): pg.QueryConfig => {
  const base = { text, values: params as Array<unknown>, ...(rowMode === undefined ? {} : { rowMode }) }
  if (params.length === 0) return base
  let names = preparedOn.get(client)
  if (names === undefined) {
    names = makeRecentCache<string, string>(maxPrepared, (dropped) => deallocate(client, dropped))
    preparedOn.set(client, names)
  }
  return { ...base, name: names.get(text, () => `mailroom_${(preparedCount++).toString(36)}`) }
}

/** One statement on a connection of the pool, outside any transaction: what @effect/sql-pg's own connection does for
 *  such a statement (check a connection out, run, put it back; an interrupted statement is cancelled on the server),
 *  without the span, scope and acquisition wrapped around it. The rows come back as @effect/sql-pg answers them: a
 *  statement text holding several statements answers one array of rows per statement. */
const runOnPool = (opened: pg.Pool) => (sql: string, params: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<Record<string, unknown>>, SqlError.SqlError> =>
  Effect.async<ReadonlyArray<Record<string, unknown>>, SqlError.SqlError>((resume) => {
    let done = false
    let client: pg.PoolClient | undefined
    const cleanup = (cause?: Error) => {
      if (!done) client?.release(cause)
      done = true
      client?.off("error", onError)
    }
    function onError(cause: Error) {
      cleanup(cause)
      resume(Effect.fail(new SqlError.SqlError({ cause, message: "Connection error" })))
    }
    opened.connect((cause, checkedOut) => {
      if (cause) return resume(Effect.fail(new SqlError.SqlError({ cause, message: "Failed to acquire connection" })))
      if (!checkedOut) {
        return resume(Effect.fail(new SqlError.SqlError({ cause: new Error("No client returned"), message: "Failed to acquire connection" })))
      }
      if (done) return checkedOut.release()
      client = checkedOut
      client.once("error", onError)
      client.query(queryOn(client, sql, params), (error: Error | null, result: Answer | Array<Answer>) => {
        cleanup()
        if (error) return resume(Effect.fail(new SqlError.SqlError({ cause: error, message: "Failed to execute statement" })))
        const rows: ReadonlyArray<unknown> = Array.isArray(result) ? result.map((each) => each.rows ?? []) : result.rows ?? []
        resume(Effect.succeed(rows as ReadonlyArray<Record<string, unknown>>))
      })
    })
    return Effect.suspend(() => {
      if (client === undefined || done) {
        cleanup()
        return Effect.void
      }
      return Effect.ensuring(cancel(opened, client), Effect.sync(() => cleanup()))
    })
  })

/** Runs `sql` on `client`, a connection checked out of the pool (a transaction's), as @effect/sql-pg's connection
 *  does: an interrupted statement is cancelled on the server (`onInterrupt`). Without `onInterrupt`, for statements
 *  that run where nothing can interrupt them (BEGIN, COMMIT and ROLLBACK of directTransaction), Effect.async adds no
 *  interruption handler around the statement. */
const runOnClient = <A>(
  client: pg.PoolClient,
  onInterrupt: Effect.Effect<void> | undefined,
  query: string,
  params: ReadonlyArray<unknown>,
  answer: (result: Answer | Array<Answer>) => A,
  rowMode?: "array",
) =>
  Effect.async<A, SqlError.SqlError>((resume) => {
    client.query(queryOn(client, query, params, rowMode), (error: Error | null, result: Answer | Array<Answer>) => {
      if (error) resume(Effect.fail(new SqlError.SqlError({ cause: error, message: "Failed to execute statement" })))
      else resume(Effect.succeed(answer(result)))
    })
    return onInterrupt
  })

const rowsOf = (result: Answer | Array<Answer>): ReadonlyArray<Record<string, unknown>> =>
  Array.isArray(result) ? result.map((each) => each.rows ?? []) as never : result.rows ?? []

/** The connection of a transaction that Mailroom began itself on `client`: what @effect/sql-pg's connection answers
 *  for each call, except that a stream reads its rows in one query rather than through a cursor. */
const transactionConnection = (opened: pg.Pool, client: pg.PoolClient): SqlConnection.Connection => {
  const onInterrupt = cancel(opened, client)
  /** A statement of the transaction: cancelled when interrupted. */
  const run = <A>(sql: string, params: ReadonlyArray<unknown>, answer: (result: Answer | Array<Answer>) => A, rowMode?: "array") =>
    runOnClient(client, onInterrupt, sql, params, answer, rowMode)
  const execute = (sql: string, params: ReadonlyArray<unknown>, transformRows?: (rows: ReadonlyArray<object>) => ReadonlyArray<object>) => {
    const rows = run(sql, params, rowsOf)
    return transformRows ? Effect.map(rows, transformRows) : rows
  }
  return {
    execute,
    executeRaw: (sql, params) => run(sql, params, (result) => result),
    executeValues: (sql, params) =>
      run(sql, params, (result) => (result as Answer).rows as unknown as ReadonlyArray<ReadonlyArray<unknown>>, "array"),
    executeUnprepared: execute,
    executeStream: (sql, params, transformRows) =>
      Stream.flatMap(Stream.fromEffect(execute(sql, params, transformRows)), (rows) => Stream.fromChunk(Chunk.unsafeFromArray(rows as Array<object>))),
  }
}

/** Checks a connection out of the pool for a transaction; `release` puts it back, or drops it when it broke meanwhile
 *  (`broken`). */
const checkOut = (opened: pg.Pool) =>
  Effect.async<{ readonly client: pg.PoolClient; readonly broken: () => boolean; readonly release: () => void }, SqlError.SqlError>((resume) => {
    opened.connect((cause, client, done) => {
      if (cause) {
        return resume(Effect.fail(new SqlError.SqlError({ cause, message: "Failed to acquire connection for transaction" })))
      }
      if (!client) {
        return resume(Effect.fail(new SqlError.SqlError({ cause: new Error("No client returned"), message: "Failed to acquire connection for transaction" })))
      }
      let broken: Error | undefined
      const onError = (error: Error) => {
        broken = error
      }
      client.on("error", onError)
      resume(Effect.succeed({
        client,
        broken: () => broken !== undefined,
        release: () => {
          client.off("error", onError)
          done(broken)
        },
      }))
    })
  })

/** A top-level transaction as @effect/sql runs one (a connection checked out from BEGIN to COMMIT or ROLLBACK, the body
 *  interruptible and the rest not, a failed COMMIT or ROLLBACK a defect), without its span and scope. */
const directTransaction = (opened: pg.Pool) =>
<A, E, R>(effect: Effect.Effect<A, E, R>, context: Context.Context<R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(checkOut(opened), ({ client, broken, release }) => {
      const connection = transactionConnection(opened, client)
      const inTransaction = Context.add(context, SqlClient.TransactionConnection, [connection, 0] as const)
      // A relaxed transaction (CommitDurability) begins as beginTransaction says. BEGIN, COMMIT and ROLLBACK run
      // outside `restore`, uninterruptible: a canceller could never be called. Nothing to end when the connection broke
      // (it is dropped, and its transaction with it).
      const begin = runOnClient(client, undefined, beginTransaction(Context.get(context, CommitDurability)), [], rowsOf)
      const end = (sql: "COMMIT" | "ROLLBACK") => Effect.suspend(() =>
        broken() ? Effect.void : Effect.orDie(runOnClient(client, undefined, sql, [], rowsOf)))
      // The body sees the transaction's connection in its context. It is set and put back here rather than through
      // Effect.locally (an acquire-use-release of its own, a dozen steps per transaction): this region is
      // uninterruptible outside `restore`, so the put-back cannot be skipped.
      const transaction = Effect.zipRight(begin, FiberRef.set(FiberRef.currentContext, inTransaction)).pipe(
        Effect.zipRight(Effect.exit(restore(effect))),
        Effect.zipLeft(FiberRef.set(FiberRef.currentContext, context)),
        Effect.flatMap((exit) => Effect.zipRight(end(Exit.isSuccess(exit) ? "COMMIT" : "ROLLBACK"), exit)),
      )
      // The connection goes back however the transaction ends (the body's exit after COMMIT or ROLLBACK, a BEGIN that
      // failed, a COMMIT that died). Only the body can be interrupted, and its exit is taken above, so taking the whole
      // exit here does what Effect.ensuring would, without a region and a finalizer of its own.
      return Effect.flatMap(Effect.exit(transaction), (exit) => {
        release()
        return exit
      })
    }))

const connection = (options: MailroomPostgresOptions): Layer.Layer<SqlClient.SqlClient, StoreError> =>
  Layer.scopedContext(Effect.gen(function* () {
    const opened = yield* pool(options)
    // Background work's statements outside a transaction (CommitDurability "relaxed": a run's record of its attempts,
    // say) run on a small pool of their own whose connections commit without waiting for the disk, as a relaxed
    // transaction does; others, on the main pool, commit as the server is configured. Its connections open when
    // first needed.
    const relaxedPool = yield* pool(options, true)
    const onMain = runOnPool(opened)
    const onRelaxed = runOnPool(relaxedPool)
    const run = (sql: string, params: ReadonlyArray<unknown>, durability: Durability) => durability === "relaxed" ? onRelaxed(sql, params) : onMain(sql, params)
    const pgClient = yield* PgClient.fromPool({ acquire: Effect.succeed(opened), applicationName: "mailroom" })
    // The client's statements run straight on the pool when spans are off (withDirectStatements), and so does a
    // top-level transaction: BEGIN, the body and COMMIT or ROLLBACK on one checked-out connection. A nested transaction
    // (a savepoint), or any transaction with spans on, is @effect/sql's own.
    const transaction = directTransaction(opened)
    const withTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
      Effect.withFiberRuntime((fiber) => {
        const context = fiber.currentContext as Context.Context<R>
        if (fiber.getFiberRef(FiberRef.currentTracerEnabled) || Context.getOption(context, SqlClient.TransactionConnection)._tag === "Some") {
          return pgClient.withTransaction(effect)
        }
        return transaction(effect, context)
      })
    const client = Object.assign(withDirectStatements(pgClient, run), { withTransaction })
    return Context.make(SqlClient.SqlClient, client).pipe(
      Context.add(PgClient.PgClient, client),
    )
  })).pipe(
    Layer.provide(Reactivity.layer),
    Layer.mapError((cause) => new StoreError({ operation: "postgres.connect", cause })),
  )

export const MailroomPostgres = {
  /** The Store over the database, migrated to the current schema when the layer is built (instances booting at once
   *  take turns on an advisory lock); also provides the SqlClient for the other Postgres engines. */
  layer: (options: MailroomPostgresOptions): Layer.Layer<Store | SqlClient.SqlClient, StoreError> =>
    Layer.mergeAll(SqlStore.layer, migrationsLayer).pipe(Layer.provideMerge(connection(options))),
  /** The connection pool alone, neither migrated nor wrapped in a Store: for a `migrate` script that runs
   *  @mailroom/sql's `migrate` and reports what it applied. */
  clientLayer: connection,
  /** The JobQueue of a Postgres deployment: pg-boss on the same database, shared by every instance; given the SqlClient
   *  that `layer` provides, it writes jobs claimed at creation in the Store's transactions. */
  jobQueue: (options: PgBossJobQueueOptions) => PgBossJobQueue.layerWithStore(options),
} as const
