/** Translation of driver errors into Mailroom's errors. The only place in Mailroom that inspects what a SQL driver
 *  threw: repositories call these helpers and never look at driver errors themselves. */
import { SqlError } from "@effect/sql/SqlError"
import { StoreError } from "@mailroom/core"
import { Effect, ParseResult } from "effect"

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

/** Fields of a driver error that name schema objects, never data: kept, and their names left readable in the message. */
const identifierFields = ["constraint", "table", "column", "schema", "dataType", "routine"] as const

/**
 * What a log may show of a driver error: the driver's error class, its code (SQLSTATE, SQLITE_…), the schema objects it
 * names and its message with every quoted value masked (`"…"`) except those names. Never the row values a driver adds
 * beside them (Postgres's `detail`: `Key (account_id, email)=(acc_…, ada@example.com) already exists.`, `where`, a
 * failing statement's parameters), nor, for a row that could not be decoded, the values the decoder saw.
 */
export class RedactedDriverError extends Error {
  readonly code: string | undefined
  readonly constraint: string | undefined
  readonly table: string | undefined
  readonly column: string | undefined

  constructor(name: string, message: string, fields: Partial<Record<"code" | (typeof identifierFields)[number], string>>, frames: string) {
    super(message)
    this.name = name
    this.code = fields.code
    this.constraint = fields.constraint
    this.table = fields.table
    this.column = fields.column
    // The driver's own frames, under the masked message: its first line repeated the unmasked one.
    this.stack = `${name}: ${message}${frames}`
  }
}

const stringField = (value: unknown, key: string): string | undefined => {
  const found = field(value, key)
  return typeof found === "string" ? found : undefined
}

/** The "    at …" lines of a stack, without the message above them. */
const framesOf = (error: unknown): string => {
  const stack = stringField(error, "stack")
  if (stack === undefined) return ""
  const frames = stack.split("\n").filter((line) => /^\s+at /.test(line))
  return frames.length === 0 ? "" : `\n${frames.join("\n")}`
}

/** The log-safe form of whatever a statement failed with (see RedactedDriverError). */
export const redactDriverError = (error: unknown): RedactedDriverError => {
  const wrapper = error instanceof SqlError ? `${error.message}: ` : ""
  const cause = driverError(error)
  if (ParseResult.isParseError(cause)) {
    const paths = ParseResult.ArrayFormatter.formatErrorSync(cause).map((issue) => `${issue._tag} at ${issue.path.join(".") || "(row)"}`)
    return new RedactedDriverError("ParseError", `${wrapper}a row could not be decoded: ${paths.join("; ")}`, {}, framesOf(cause))
  }
  if (typeof cause !== "object" || cause === null) {
    return new RedactedDriverError("Error", `${wrapper}a value of type ${typeof cause} was thrown`, {}, "")
  }
  const fields: Partial<Record<"code" | (typeof identifierFields)[number], string>> = {}
  const code = field(cause, "code")
  if (typeof code === "string" || typeof code === "number") fields.code = String(code)
  for (const name of identifierFields) {
    const value = stringField(cause, name)
    if (value !== undefined) fields[name] = value
  }
  const names = new Set(identifierFields.map((name) => fields[name]).filter((value) => value !== undefined))
  // SQLSTATE class 42 (undefined column or table, syntax, privileges) quotes the statement's names, never data.
  const namesOnly = fields.code?.startsWith("42") === true && fields.code.length === 5
  const message = (stringField(cause, "message") ?? "")
    .replace(/"([^"]*)"/g, (quoted, inner: string) => namesOnly || names.has(inner) ? quoted : `"…"`)
  return new RedactedDriverError(stringField(cause, "name") ?? "Error", `${wrapper}${message}`, fields, framesOf(cause))
}

/** Wraps any failure of `operation` in a StoreError, whose cause keeps what an operator needs of the driver's error
 *  and none of the row values (see RedactedDriverError): StoreErrors are logged. */
export const storeError = (operation: string) => (cause: unknown): StoreError =>
  new StoreError({ operation, cause: redactDriverError(cause) })

/** Maps every failure of `effect` (driver errors, undecodable rows) to a StoreError naming `operation`. */
export const orStoreError = (operation: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, StoreError, R> =>
  Effect.mapError(effect, storeError(operation))

export const isSqlError = (error: unknown): error is SqlError => error instanceof SqlError
