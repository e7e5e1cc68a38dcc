/** Mailroom on Postgres: a connection pool with Mailroom's schema, for one or many instances of the host service. */
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient, SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { type Store, StoreError } from "@mailroom/core"
import { DirectStatements, migrationsLayer, SqlStore } from "@mailroom/sql"
import { Context, Duration, Effect, Layer } from "effect"
import pg from "pg"
import { PgBossJobQueue, type PgBossJobQueueOptions } from "./job-queue.js"

export interface MailroomPostgresOptions {
  /** `postgres://user:password@host:port/database`. */
  readonly url: string
  /** Most connections the pool opens (default 10). */
  readonly maxConnections?: number
}

/** How long the first connection may take before the layer fails. */
const connectTimeout = Duration.seconds(5)

/** The pg pool, opened with one round trip (so a wrong URL fails the layer, not the first request) and ended when the
 *  layer's scope closes. Mailroom owns it so that the hot statements can run on it directly (DirectStatements). */
const pool = (options: MailroomPostgresOptions) =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const opened = new pg.Pool({
        connectionString: options.url,
        application_name: "mailroom",
        ...(options.maxConnections === undefined ? {} : { max: options.maxConnections }),
      })
      // An idle connection that breaks is dropped by the pool; the next query opens another.
      opened.on("error", () => undefined)
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

/** One statement on a pooled connection, answered like @effect/sql-pg answers it. */
const directStatements = (opened: pg.Pool): Context.Tag.Service<DirectStatements> => ({
  run: (sql, params) =>
    Effect.async((resume) => {
      opened.query(sql, params as Array<unknown>, (error, result) => {
        resume(error
          ? Effect.fail(new SqlError.SqlError({ cause: error, message: "Failed to execute statement" }))
          : Effect.succeed(result.rows))
      })
    }),
})

const connection = (options: MailroomPostgresOptions): Layer.Layer<SqlClient.SqlClient | DirectStatements, StoreError> =>
  Layer.scopedContext(Effect.gen(function* () {
    const opened = yield* pool(options)
    const client = yield* PgClient.fromPool({ acquire: Effect.succeed(opened), applicationName: "mailroom" })
    return Context.make(SqlClient.SqlClient, client).pipe(
      Context.add(PgClient.PgClient, client),
      Context.add(DirectStatements, directStatements(opened)),
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
  /** The JobQueue of a Postgres deployment: pg-boss on the same database, shared by every instance. */
  jobQueue: (options: PgBossJobQueueOptions) => PgBossJobQueue.layer(options),
} as const
