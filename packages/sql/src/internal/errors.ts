/** Translation of driver errors into Mailroom's errors. The only place in Mailroom that inspects what a SQL driver
 *  threw: repositories call these helpers and never look at driver errors themselves. */
import { SqlError } from "@effect/sql/SqlError"
import { StoreError } from "@mailroom/core"
import { Effect } from "effect"

/** A unique constraint as both dialects name it: Postgres by constraint name, SQLite by "table.column" list. */
export interface UniqueConstraint {
  readonly name: string
  readonly table: string
  readonly columns: ReadonlyArray<string>
}

/** The driver error under an @effect/sql SqlError (or the value itself when it is not one). */
const driverError = (error: unknown): unknown => error instanceof SqlError ? error.cause : error

const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null && key in value ? (value as Record<string, unknown>)[key] : undefined

/** True when `error` is a violation of `constraint`: SQLSTATE 23505 on that constraint in Postgres,
 *  SQLITE_CONSTRAINT_UNIQUE (or _PRIMARYKEY) naming its columns in SQLite. */
export const isUniqueViolation = (error: unknown, constraint: UniqueConstraint): boolean => {
  const cause = driverError(error)
  if (field(cause, "code") === "23505") return field(cause, "constraint") === constraint.name
  const code = field(cause, "code")
  if (code !== "SQLITE_CONSTRAINT_UNIQUE" && code !== "SQLITE_CONSTRAINT_PRIMARYKEY") return false
  const message = field(cause, "message")
  if (typeof message !== "string") return false
  const columns = constraint.columns.map((column) => `${constraint.table}.${column}`).join(", ")
  return message.endsWith(`constraint failed: ${columns}`)
}

/** Wraps any failure of `operation` in a StoreError. */
export const storeError = (operation: string) => (cause: unknown): StoreError => new StoreError({ operation, cause })

/** Maps every failure of `effect` (driver errors, undecodable rows) to a StoreError naming `operation`. */
export const orStoreError = (operation: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, StoreError, R> =>
  Effect.mapError(effect, storeError(operation))

export const isSqlError = (error: unknown): error is SqlError => error instanceof SqlError
