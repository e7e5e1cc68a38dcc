/** The monthly quota counters behind `Store.quota`: one row per account and period, counted up by one conditional
 *  UPDATE, so that concurrent reservations never take a counter past its limit. */
import type { SqlClient } from "@effect/sql"
import type { QuotaRepository } from "@mailroom/core"
import { Effect, Schema } from "effect"
import { IntegerColumn } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"

const decodeUsed = Schema.decodeUnknown(Schema.Array(Schema.Struct({ used: IntegerColumn })))

export const makeQuotaRepository = (sql: SqlClient.SqlClient): QuotaRepository => {
  const used = (accountId: string, period: string) =>
    sql`SELECT used FROM send_quota WHERE account_id = ${accountId} AND period = ${period}`.pipe(
      Effect.flatMap(decodeUsed),
      Effect.map((rows) => rows[0]?.used ?? 0),
    )
  return {
    // The row is made first (a no-op when it exists); then one UPDATE adds the count only while the sum stays within
    // the limit. Postgres re-checks the WHERE clause on the latest row version after waiting for a concurrent
    // updater's lock, and SQLite runs one writer at a time, so two reservations can never both pass the check.
    reserve: (accountId, period, count, limit) =>
      Effect.gen(function* () {
        yield* sql`INSERT INTO send_quota (account_id, period, used) VALUES (${accountId}, ${period}, 0)
          ON CONFLICT (account_id, period) DO NOTHING`
        const rows = yield* decodeUsed(yield* (limit === null
          ? sql`UPDATE send_quota SET used = used + ${count}
              WHERE account_id = ${accountId} AND period = ${period} RETURNING used`
          : sql`UPDATE send_quota SET used = used + ${count}
              WHERE account_id = ${accountId} AND period = ${period} AND used + ${count} <= ${limit} RETURNING used`))
        const after = rows[0]
        return after === undefined ? { reserved: false, used: yield* used(accountId, period) } : { reserved: true, used: after.used }
      }).pipe(orStoreError("quota.reserve")),

    used: (accountId, period) => used(accountId, period).pipe(orStoreError("quota.used")),
  }
}
