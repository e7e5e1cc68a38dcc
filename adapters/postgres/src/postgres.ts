/** Mailroom on Postgres: a connection pool with Mailroom's schema, for one or many instances of the host service. */
import type { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { type Store, StoreError } from "@mailroom/core"
import { migrationsLayer, SqlStore } from "@mailroom/sql"
import { Layer, Redacted } from "effect"

export interface MailroomPostgresOptions {
  /** `postgres://user:password@host:port/database`. */
  readonly url: string
  /** Most connections the pool opens (default 10). */
  readonly maxConnections?: number
}

const connection = (options: MailroomPostgresOptions): Layer.Layer<SqlClient.SqlClient, StoreError> =>
  PgClient.layer({
    url: Redacted.make(options.url),
    applicationName: "mailroom",
    ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
  }).pipe(Layer.mapError((cause) => new StoreError({ operation: "postgres.connect", cause })))

export const MailroomPostgres = {
  /** The Store over the database, migrated to the current schema when the layer is built (instances booting at once
   *  take turns on an advisory lock); also provides the SqlClient for the other Postgres engines. */
  layer: (options: MailroomPostgresOptions): Layer.Layer<Store | SqlClient.SqlClient, StoreError> =>
    Layer.mergeAll(SqlStore.layer, migrationsLayer).pipe(Layer.provideMerge(connection(options))),
  /** The connection pool alone, neither migrated nor wrapped in a Store: for a `migrate` script that runs
   *  @mailroom/sql's `migrate` and reports what it applied. */
  clientLayer: connection,
} as const
