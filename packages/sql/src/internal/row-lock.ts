/** The row lock a read takes for the writer that reads it first (`forUpdate`). */
import type { SqlClient } from "@effect/sql"

/** Postgres: FOR NO KEY UPDATE, which keeps a second locker of the row waiting until this transaction ends (and lets it
 *  read the row as committed then), without holding back the key-share locks that foreign-key checks of other
 *  transactions take. SQLite runs one write transaction at a time already: nothing. */
export const rowLock = (sql: SqlClient.SqlClient, options: { readonly forUpdate?: boolean } | undefined) =>
  options?.forUpdate === true
    ? sql.onDialectOrElse({ pg: () => sql.literal(" FOR NO KEY UPDATE"), orElse: () => sql.literal("") })
    : sql.literal("")
