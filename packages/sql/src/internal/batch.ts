/** Set-based statements over many rows or ids, split only where a statement would exceed the bound-parameter limit. */
import { type SqlClient, TransactionConnection } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Row } from "@effect/sql/SqlConnection"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option } from "effect"

/** Most parameters bound to one statement: under SQLite's limit (32,766) and Postgres's (65,535). */
export const maxParameters = 32_000

/** Ids or addresses in one `IN (…)` list, leaving room for the statement's other parameters. */
export const maxInList = 10_000

export const chunksOf = <A>(items: ReadonlyArray<A>, size: number): ReadonlyArray<ReadonlyArray<A>> => {
  const chunks: Array<ReadonlyArray<A>> = []
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size))
  return chunks
}

/** Runs `effect` in a transaction of its own, or as part of the caller's when one is running: there a savepoint would
 *  cost a round trip and change nothing, since a caller that fails rolls the whole transaction back. */
export const atomically = <A, E, R>(sql: SqlClient, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
  Effect.flatMap(Effect.serviceOption(TransactionConnection), (transaction) =>
    Option.isSome(transaction) ? effect : sql.withTransaction(effect))

/** Runs `statement` once per chunk of `items` and concatenates the answers. Several chunks run in one transaction
 *  (joining the caller's), so that the whole operation stays atomic. */
export const forEachChunk = <A, B, E, R>(
  sql: SqlClient,
  items: ReadonlyArray<A>,
  size: number,
  statement: (chunk: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>, E, R>,
): Effect.Effect<ReadonlyArray<B>, E | SqlError, R> => {
  if (items.length === 0) return Effect.succeed([])
  if (items.length <= size) return statement(items)
  return sql.withTransaction(
    Effect.map(Effect.forEach(chunksOf(items, size), statement), (answers) => answers.flat()),
  )
}

/** Multi-row `INSERT INTO table (…) VALUES (…), (…) <suffix>`, as few statements as the parameter limit allows.
 *  Every row must have the same keys in the same order. Answers the rows returned by a `RETURNING` suffix. */
export const insertRows = (
  sql: SqlClient,
  table: string,
  rows: ReadonlyArray<Record<string, unknown>>,
  suffix: Fragment = sql.literal(""),
): Effect.Effect<ReadonlyArray<Row>, SqlError> => {
  const columns = rows.length === 0 ? 1 : Object.keys(rows[0]!).length
  return forEachChunk(sql, rows, Math.floor(maxParameters / columns), (chunk) =>
    sql`INSERT INTO ${sql(table)} ${sql.insert(chunk)} ${suffix}`)
}

/** The Postgres type of a column's array parameter (see `rowsStatement`). */
export type PgArrayType = "text" | "bigint" | "integer" | "boolean" | "json"

/** The values of `rows`, row after row: the parameters of a `VALUES (?, …), …` text. A loop, since Array.prototype.flat
 *  takes about fifteen times as long for a batch (measured on 300 rows of 5 values). */
const rowValues = (rows: ReadonlyArray<ReadonlyArray<unknown>>): Array<unknown> => {
  const values: Array<unknown> = []
  for (const row of rows) for (const value of row) values.push(value)
  return values
}

/** `SELECT * FROM unnest($n::type[], …)` of `columns`, their parameters numbered after the first `offset`. */
const unnestSource = (columns: ReadonlyArray<readonly [name: string, type: PgArrayType]>, offset: number) =>
  `SELECT * FROM unnest(${columns.map(([, type], i) => `$${offset + i + 1}::${type}[]`).join(", ")})`

/** The values of `rows` column by column: one array parameter per column. */
const columnArrays = (columns: ReadonlyArray<unknown>, rows: ReadonlyArray<ReadonlyArray<unknown>>) =>
  columns.map((_, i) => rows.map((values) => values[i]))

/** A set-based statement over rows given column by column, whose text depends only on its columns. `write` puts the
 *  rows' source where it belongs (as an INSERT's source, or as the body of a CTE that names the columns): on Postgres
 *  `SELECT * FROM unnest($1::type[], …)`, one array parameter per column (parsed and planned in a fraction of the time
 *  a VALUES list of one parameter per cell takes, the same text for any number of rows, so that it stays prepared, and
 *  never split); elsewhere `VALUES (?, …), …`, split under the parameter limit (its texts, one per number of rows, are
 *  kept). Answers the rows of a RETURNING clause, in chunk order. */
export const rowsStatement = (
  sql: SqlClient,
  columns: ReadonlyArray<readonly [name: string, type: PgArrayType]>,
  write: (source: string) => string,
) => {
  const pgText = write(unnestSource(columns, 0))
  const row = `(${columns.map(() => "?").join(", ")})`
  const texts = new Map<number, string>()
  const valuesText = (count: number) => {
    let text = texts.get(count)
    if (text === undefined) {
      if (texts.size >= 64) texts.clear()
      text = write(`VALUES ${Array.from({ length: count }, () => row).join(", ")}`)
      texts.set(count, text)
    }
    return text
  }
  return (rows: ReadonlyArray<ReadonlyArray<unknown>>): Effect.Effect<ReadonlyArray<Row>, SqlError> =>
    rows.length === 0 ? Effect.succeed([]) : sql.onDialectOrElse({
      pg: () => sql.unsafe<Row>(pgText, columnArrays(columns, rows)),
      orElse: () => forEachChunk(sql, rows, Math.floor(maxParameters / columns.length), (chunk) =>
        sql.unsafe<Row>(valuesText(chunk.length), rowValues(chunk))),
    })
}

/** Postgres only: a statement over two sets of rows, each given column by column as `rowsStatement` gives one (its
 *  `unnest` source; the first set's parameters first), so that one statement can write both (a data-modifying CTE
 *  per set). Its text depends only on the columns. */
export const pgRowsStatementOfTwo = (
  sql: SqlClient,
  first: ReadonlyArray<readonly [name: string, type: PgArrayType]>,
  second: ReadonlyArray<readonly [name: string, type: PgArrayType]>,
  write: (firstSource: string, secondSource: string) => string,
) => {
  const text = write(unnestSource(first, 0), unnestSource(second, first.length))
  return (firstRows: ReadonlyArray<ReadonlyArray<unknown>>, secondRows: ReadonlyArray<ReadonlyArray<unknown>>): Effect.Effect<ReadonlyArray<Row>, SqlError> =>
    sql.unsafe<Row>(text, [...columnArrays(first, firstRows), ...columnArrays(second, secondRows)])
}

/** `INSERT INTO table (columns) <rows> <suffix>` through `rowsStatement`: each row gives its values in the order of
 *  `columns`. */
export const insertColumns = (
  sql: SqlClient,
  table: string,
  columns: ReadonlyArray<readonly [name: string, type: PgArrayType]>,
  suffix = "",
) =>
  rowsStatement(sql, columns, (source) =>
    `INSERT INTO ${table} (${columns.map(([name]) => `"${name}"`).join(", ")}) ${source} ${suffix}`)
