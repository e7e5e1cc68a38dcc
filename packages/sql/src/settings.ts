/** The settings table behind `Store.settings`: process-wide values such as the generated MAILROOM_SECRET. */
import type { SqlClient } from "@effect/sql"
import type { SettingRepository } from "@mailroom/core"
import { Effect, Option } from "effect"
import { orStoreError } from "./internal/errors.js"

export const makeSettingRepository = (sql: SqlClient.SqlClient): SettingRepository => ({
  // Two instances booting at once may both try to insert; the loser's insert does nothing and both read the winner's.
  getOrInsert: (name, value) =>
    Effect.gen(function* () {
      yield* sql`INSERT INTO settings ${sql.insert({ name, value })} ON CONFLICT (name) DO NOTHING`
      const rows = yield* sql<{ readonly value: string }>`SELECT value FROM settings WHERE name = ${name}`
      return yield* Effect.fromNullable(rows[0]?.value)
    }).pipe(orStoreError("settings.getOrInsert")),

  get: (name) =>
    sql<{ readonly value: string }>`SELECT value FROM settings WHERE name = ${name}`.pipe(
      Effect.map((rows) => Option.fromNullable(rows[0]?.value)),
      orStoreError("settings.get"),
    ),

  set: (name, value) =>
    sql`INSERT INTO settings ${sql.insert({ name, value })} ON CONFLICT (name) DO UPDATE SET value = excluded.value`.pipe(
      Effect.asVoid,
      orStoreError("settings.set"),
    ),
})
