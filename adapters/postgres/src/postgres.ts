/** Mailroom on Postgres: a connection pool with Mailroom's schema, for one or many instances of the host service. */
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient, type SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { CommitDurability, type Store, StoreError } from "@mailroom/core"
import { migrationsLayer, SqlStore } from "@mailroom/sql"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { relaxedCommit } from "./durability.js"
import { PgBossJobQueue, type PgBossJobQueueOptions } from "./job-queue.js"

export interface MailroomPostgresOptions {
  /** `postgres://user:password@host:port/database`. */
  readonly url: string
  /** Most connections the pool opens (default 10). */
  readonly maxConnections?: number
}

const connection = (options: MailroomPostgresOptions): Layer.Layer<SqlClient.SqlClient, StoreError> =>
  Layer.scopedContext(Effect.gen(function* () {
    // The pool is opened with one round trip (within 5 seconds), so a wrong URL fails the layer, not the first request.
    const client = yield* PgClient.make({
      url: Redacted.make(options.url),
      applicationName: "mailroom",
      ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
    })
    // A relaxed transaction (CommitDurability) commits without waiting for its WAL to reach the disk: its first
    // statement turns synchronous_commit off for that transaction alone. A nested one (a savepoint) is its outer
    // transaction's.
    const libraryTransaction = client.withTransaction
    const relaxed = client.unsafe(relaxedCommit)
    const withTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
      Effect.withFiberRuntime((fiber) => {
        const context = fiber.currentContext
        const outermost = Option.isNone(Context.getOption(context, SqlClient.TransactionConnection))
        return libraryTransaction(outermost && Context.get(context, CommitDurability) === "relaxed" ? Effect.zipRight(relaxed, effect) : effect)
      })
    Object.assign(client, { withTransaction })
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
