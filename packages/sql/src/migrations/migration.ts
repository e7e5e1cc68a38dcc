/** The shape of one schema migration. Each migration lives in its own module and is registered in ./index.ts. */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { Effect } from "effect"

/** One step of the schema, written for both dialects (a step that only one of them needs, such as an index, has no
 *  statements for the other). Statements run in order, one per string (SQLite prepares one statement at a time). A
 *  migration is never edited once released: later changes come as a new migration. */
export interface Migration {
  /** Position in the list, starting at 1; recorded in `mailroom_migrations.id`. */
  readonly id: number
  readonly name: string
  readonly sqlite: ReadonlyArray<string>
  readonly pg: ReadonlyArray<string>
  /** Runs after the statements, in the same transaction: for data changes that need code, such as filling a new
   *  column with values computed by core. */
  readonly backfill?: (sql: SqlClient.SqlClient) => Effect.Effect<void, SqlError>
}
