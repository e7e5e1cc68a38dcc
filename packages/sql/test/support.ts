/** The SQL store over each dialect for this package's tests: SQLite in memory always, Postgres when the test database
 *  answers (see findTestPostgres). Adapters add durability settings; these layers add only what the store needs. */
import { SqlClient } from "@effect/sql"
import * as Statement from "@effect/sql/Statement"
import { PgClient } from "@effect/sql-pg"
import { SqliteClient } from "@effect/sql-sqlite-node"
import type { Store } from "@mailroom/core"
import { findTestPostgres } from "@mailroom/testing"
import { Effect, Layer, Redacted } from "effect"
import { migrationsLayer, SqlStore } from "../src/index.js"

export const sqliteClient = (filename = ":memory:"): Layer.Layer<SqlClient.SqlClient> => {
  const client = SqliteClient.layer({ filename }).pipe(Layer.orDie)
  const foreignKeys = Layer.effectDiscard(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`PRAGMA foreign_keys = ON`))
  return Layer.provideMerge(foreignKeys.pipe(Layer.orDie), client)
}

export const postgresClient = (url: string): Layer.Layer<SqlClient.SqlClient> =>
  PgClient.layer({ url: Redacted.make(url) }).pipe(Layer.orDie)

/** A fresh, empty Postgres database on the test server, dropped when the layer is released. */
export const scratchPostgres = (serverUrl: string): Layer.Layer<SqlClient.SqlClient> =>
  Layer.unwrapScoped(Effect.gen(function* () {
    const name = `mailroom_scratch_${Date.now()}_${Math.floor(Math.random() * 1e6)}`
    const admin = (statement: string) =>
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
        Effect.provide(postgresClient(serverUrl)), Effect.orDie)
    yield* Effect.acquireRelease(admin(`CREATE DATABASE ${name}`), () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    const url = new URL(serverUrl)
    url.pathname = `/${name}`
    return postgresClient(url.toString())
  }))

/** The migrated Store over `client`, with the client itself for looking at rows directly. */
export const storeOver = (client: Layer.Layer<SqlClient.SqlClient>): Layer.Layer<Store | SqlClient.SqlClient, unknown> =>
  Layer.mergeAll(SqlStore.layer, migrationsLayer).pipe(Layer.provideMerge(client))

const postgresUrl = await findTestPostgres()

export interface Backend {
  readonly name: "sqlite" | "postgres"
  readonly layer: Layer.Layer<Store | SqlClient.SqlClient, unknown>
}

/** SQLite, and Postgres when it answers. */
export const backends: ReadonlyArray<Backend> = [
  { name: "sqlite", layer: storeOver(sqliteClient()) },
  ...(postgresUrl === undefined ? [] : [{ name: "postgres" as const, layer: storeOver(postgresClient(postgresUrl)) }]),
]

export { postgresUrl }

/** Runs `effect` and answers its value with the SQL of every statement it executed (BEGIN, COMMIT and savepoints are
 *  not statements of the store and are not seen). */
export const recordStatements = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const statements: Array<string> = []
    const value = yield* Statement.withTransformer(effect, (statement) =>
      Effect.sync(() => {
        statements.push(statement.compile()[0])
        return statement
      }))
    return { value, statements }
  })

/** The statements that insert into, delete from or select from `table`. */
export const touching = (statements: ReadonlyArray<string>, verb: "INSERT INTO" | "DELETE FROM" | "FROM", table: string) =>
  statements.filter((statement) => new RegExp(`${verb} "?${table}"?[\\s(]`).test(statement))
