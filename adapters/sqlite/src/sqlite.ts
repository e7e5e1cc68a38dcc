/** Mailroom on SQLite: one connection to a database file, with Mailroom's durability settings and schema. The embedded
 *  default backend, for a single machine. */
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient } from "@effect/sql"
import { type Store, StoreError } from "@mailroom/core"
import { migrationsLayer, SqlJobQueue, type SqlJobQueueOptions, SqlStore } from "@mailroom/sql"
import { Effect, Layer } from "effect"
import { isFile, makeSqliteClient } from "./client.js"

export interface MailroomSqliteOptions {
  /** Path of the database file. Its parent directory is created when missing. */
  readonly filename: string
  /** When a commit is synced to disk. FULL (the default): a write that was acknowledged survives a power loss.
   *  NORMAL: commits are faster; after a power loss (not a process crash) the last transactions may be lost, and the
   *  database stays consistent. */
  readonly synchronous?: "FULL" | "NORMAL"
}

/** How long a statement waits for another process's lock on the file before failing with SQLITE_BUSY. */
const busyTimeoutMillis = 5_000

const createParentDirectory = (filename: string) =>
  Effect.try({
    try: () => { if (isFile(filename)) mkdirSync(dirname(filename), { recursive: true }) },
    catch: (cause) => new StoreError({ operation: "sqlite.open", cause }),
  })

/** Settings of the connection, applied before anything else runs on it. The client is a single connection, so they
 *  hold for every statement. The client itself already switched the journal to WAL. */
const configureConnection = (synchronous: "FULL" | "NORMAL") =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`PRAGMA busy_timeout = ${busyTimeoutMillis}`)
    yield* sql.unsafe(`PRAGMA synchronous = ${synchronous}`)
    // Deleting a contact relies on ON DELETE CASCADE; SQLite enforces foreign keys only when asked, per connection.
    yield* sql.unsafe("PRAGMA foreign_keys = ON")
  }).pipe(Effect.mapError((cause) => new StoreError({ operation: "sqlite.configure", cause })))

const connection = (options: MailroomSqliteOptions): Layer.Layer<SqlClient.SqlClient, StoreError> => {
  const client = Layer.unwrapEffect(Effect.as(
    createParentDirectory(options.filename),
    Layer.scoped(SqlClient.SqlClient, makeSqliteClient(options.filename)).pipe(
      Layer.provide(Reactivity.layer),
      Layer.mapError((cause) => new StoreError({ operation: "sqlite.open", cause })),
    ),
  ))
  return Layer.provideMerge(Layer.effectDiscard(configureConnection(options.synchronous ?? "FULL")), client)
}

export const MailroomSqlite = {
  /** The Store over the SQLite file, migrated to the current schema when the layer is built; also provides the
   *  SqlClient for the other SQLite engines (the job queue). */
  layer: (options: MailroomSqliteOptions): Layer.Layer<Store | SqlClient.SqlClient, StoreError> =>
    Layer.mergeAll(SqlStore.layer, migrationsLayer).pipe(Layer.provideMerge(connection(options))),
  /** The configured connection alone, neither migrated nor wrapped in a Store: for a `migrate` script that runs
   *  @mailroom/sql's `migrate` and reports what it applied. */
  clientLayer: connection,
  /** The JobQueue of a SQLite deployment: the `jobs` table, over the SqlClient that `layer` provides. One process. */
  jobQueue: (options: SqlJobQueueOptions = {}) => SqlJobQueue.layer(options),
} as const
