/** Applies the schema migrations the database has not seen yet, recording each in `mailroom_migrations`. */
import { SqlClient } from "@effect/sql"
import type { StoreError } from "@mailroom/core"
import { Clock, Effect, Layer } from "effect"
import { orStoreError } from "./internal/errors.js"
import { type Migration, migrations } from "./migrations/index.js"

/** Serialises concurrent boots against one Postgres database: the second waits for the first to commit, then finds
 *  nothing left to do. SQLite has no such lock; one process owns the file, and a second process migrating the same
 *  file at the same moment fails with SQLITE_BUSY rather than applying anything twice. */
const lockMigrations = (sql: SqlClient.SqlClient) =>
  sql.onDialectOrElse({
    pg: () => sql`SELECT pg_advisory_xact_lock(hashtext('mailroom_migrations'))`,
    orElse: () => Effect.void,
  })

const applyMigration = (sql: SqlClient.SqlClient, migration: Migration) =>
  Effect.gen(function* () {
    const statements = sql.onDialectOrElse({ pg: () => migration.pg, orElse: () => migration.sqlite })
    for (const statement of statements) yield* sql.unsafe(statement)
    if (migration.backfill !== undefined) yield* migration.backfill(sql)
    const appliedAt = yield* Clock.currentTimeMillis
    yield* sql`INSERT INTO mailroom_migrations ${sql.insert({ id: migration.id, name: migration.name, applied_at: appliedAt })}`
  })

/** Applies the migrations of `list` that the database has not recorded, in order, in one transaction. */
export const applyMigrations = (list: ReadonlyArray<Migration>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(Effect.gen(function* () {
      yield* lockMigrations(sql)
      yield* sql`CREATE TABLE IF NOT EXISTS mailroom_migrations (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at BIGINT NOT NULL
      )`
      const applied = yield* sql<{ readonly id: number | string }>`SELECT id FROM mailroom_migrations`
      const done = new Set(applied.map((row) => Number(row.id)))
      const pending = list.filter((migration) => !done.has(migration.id))
      for (const migration of pending) yield* applyMigration(sql, migration)
      return pending
    }))
  }).pipe(orStoreError("migrate"))

/** Applies every pending migration, in order, in one transaction: either all of them commit or none does. Running it
 *  again is a no-op. Answers the migrations applied by this run. */
export const migrate: Effect.Effect<ReadonlyArray<Migration>, StoreError, SqlClient.SqlClient> = applyMigrations(migrations)

/** Runs `migrate` when the layer is built. */
export const migrationsLayer: Layer.Layer<never, StoreError, SqlClient.SqlClient> = Layer.effectDiscard(migrate)
