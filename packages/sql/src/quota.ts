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
    // One statement: the row is made holding `count`, or its count goes up, only while the sum stays within the limit
    // (a first reservation above the limit selects no row to insert). Postgres re-checks the conflict clause's WHERE on
    // the latest row version after waiting for a concurrent updater's lock, and SQLite runs one writer at a time, so two
    // reservations can never both pass the check. The row stays locked until commit, so this is one round trip under
    // the lock rather than an insert and an update that each wait for it. No row answered: refused.
    reserve: (accountId, period, count, limit) =>
      Effect.gen(function* () {
        const rows = yield* decodeUsed(yield* (limit === null
          ? sql`INSERT INTO send_quota (account_id, period, used) VALUES (${accountId}, ${period}, ${count})
              ON CONFLICT (account_id, period) DO UPDATE SET used = send_quota.used + excluded.used
              RETURNING used`
          : sql`INSERT INTO send_quota (account_id, period, used)
              SELECT ${accountId}, ${period}, CAST(${count} AS INTEGER) WHERE CAST(${count} AS INTEGER) <= CAST(${limit} AS INTEGER)
              ON CONFLICT (account_id, period) DO UPDATE SET used = send_quota.used + excluded.used
              WHERE send_quota.used + excluded.used <= CAST(${limit} AS INTEGER)
              RETURNING used`))
        const after = rows[0]
        return after === undefined ? { reserved: false, used: yield* used(accountId, period) } : { reserved: true, used: after.used }
      }).pipe(orStoreError("quota.reserve")),

    used: (accountId, period) => used(accountId, period).pipe(orStoreError("quota.used")),
  }
}
