/** Folded text: beside every text that case-insensitive search, sort and segment conditions read, its folding by
 *  core's foldText, written by the stores and compared bytewise (Postgres: the "C" collation), so that answers never
 *  depend on the database's locale. Existing rows are folded by the backfill, in batches of their ids. */
import type { SqlClient } from "@effect/sql"
import { foldNullable } from "@mailroom/core"
import { Effect } from "effect"
import type { Migration } from "./migration.js"

/** Rows folded per UPDATE statement. */
const batchSize = 500

interface FoldedColumns {
  readonly table: string
  /** Source column → folded column. */
  readonly columns: ReadonlyArray<readonly [string, string]>
}

const folded: ReadonlyArray<FoldedColumns> = [
  { table: "contacts", columns: [["first_name", "first_name_folded"], ["last_name", "last_name_folded"], ["phone", "phone_folded"]] },
  { table: "contact_custom_fields", columns: [["value", "value_folded"]] },
  { table: "contact_lists", columns: [["name", "name_folded"], ["description", "description_folded"]] },
]

const addColumns = (collation: string) =>
  folded.flatMap(({ table, columns }) =>
    columns.map(([, column]) => `ALTER TABLE ${table} ADD COLUMN ${column} TEXT${collation}`))

/** Folds every row of `table`, walking it by id, one UPDATE per batch (a VALUES list joined on id). */
const backfillTable = (sql: SqlClient.SqlClient, { table, columns }: FoldedColumns) =>
  Effect.gen(function* () {
    const sources = columns.map(([source]) => source)
    let after = ""
    for (;;) {
      const rows = yield* sql<Record<string, string | null>>`SELECT ${sql.literal(["id", ...sources].join(", "))}
        FROM ${sql(table)} WHERE id > ${after} ORDER BY id LIMIT ${batchSize}`
      if (rows.length === 0) return
      after = rows[rows.length - 1]!["id"]!
      const values = sql.join(", ", false)(rows.map((row) =>
        sql`(${row["id"]!}, ${sql.join(", ", false)(sources.map((source) => sql`${foldNullable(row[source] ?? null)}`))})`))
      const names = ["id", ...columns.map(([, column]) => column)].join(", ")
      const assignments = columns.map(([, column]) =>
        `${column} = (SELECT v.${column} FROM v WHERE v.id = ${table}.id)`).join(", ")
      yield* sql`WITH v (${sql.literal(names)}) AS (VALUES ${values})
        UPDATE ${sql(table)} SET ${sql.literal(assignments)} WHERE id IN (SELECT id FROM v)`
      if (rows.length < batchSize) return
    }
  })

export const foldedText: Migration = {
  id: 4,
  name: "folded_text",
  sqlite: addColumns(""),
  pg: addColumns(` COLLATE "C"`),
  backfill: (sql) => Effect.forEach(folded, (table) => backfillTable(sql, table), { discard: true }),
}
