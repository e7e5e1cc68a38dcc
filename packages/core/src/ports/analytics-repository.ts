/** The analytics tables behind `Store.analytics`: raw entries per message and recipient, the hourly rollups kept up
 *  to date as entries are recorded, and the marks of each message and recipient's first open and click. */
import type { Effect } from "effect"
import type { AccountId } from "../domain/account.js"
import type { AnalyticsEntry, AnalyticsMetric, FirstKey, RollupRow } from "../domain/analytics.js"
import type { StoreError } from "../errors.js"

/** The rollup dimensions a read may group by (the metric always). */
export type RollupDimension = "hour" | "category" | "domain" | "country"

export interface RollupQuery {
  /** Hours from `from` (inclusive) to `to` (exclusive). */
  readonly from: Date
  readonly to: Date
  /** Only these metrics; all when absent. */
  readonly metrics?: ReadonlyArray<AnalyticsMetric> | undefined
  /** Only these categories, each counted apart; default: all mail (`allCategories`), each message once. */
  readonly categories?: ReadonlyArray<string> | undefined
  /** Only this country. */
  readonly country?: string | undefined
  /** Leaves out rows whose country is unknown. */
  readonly knownCountry?: boolean | undefined
  readonly groupBy: ReadonlyArray<RollupDimension>
}

/** A sum of rollup counts: the metric, the dimensions grouped by (the others are absent), and the count. */
export interface RollupSum {
  readonly metric: AnalyticsMetric
  readonly hour?: number | undefined
  readonly category?: string | undefined
  readonly domain?: string | undefined
  readonly country?: string | undefined
  readonly count: number
}

export interface AnalyticsRepository {
  /** The categories of each message named (messages not found are left out). */
  readonly categoriesOf: (messageIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<string>>, StoreError>
  /** Marks each key as seen, and answers those not marked before. A key given twice is answered once; atomic against
   *  concurrent calls. */
  readonly markFirsts: (keys: ReadonlyArray<FirstKey & { readonly at: Date }>) => Effect.Effect<ReadonlyArray<FirstKey>, StoreError>
  /** Keeps the entries and adds them to the rollups (rollupRowsOf), in one transaction (joining the caller's). An
   *  entry whose id is kept already is skipped: recording a batch again counts nothing twice. Answers how many entries
   *  were new. */
  readonly record: (entries: ReadonlyArray<AnalyticsEntry>) => Effect.Effect<number, StoreError>
  /** Adds rollup rows as they are (no raw entries): for loading figures from elsewhere, such as a benchmark. */
  readonly addRollups: (rows: ReadonlyArray<RollupRow>) => Effect.Effect<void, StoreError>
  /** Sums of the account's rollups over the query, grouped as it asks; never reads raw entries. */
  readonly sums: (accountId: AccountId, query: RollupQuery) => Effect.Effect<ReadonlyArray<RollupSum>, StoreError>
  /** The account's raw entries that occurred in [from, to), oldest first (ties by id). */
  readonly entries: (accountId: AccountId, from: Date, to: Date) => Effect.Effect<ReadonlyArray<AnalyticsEntry>, StoreError>
  /** Deletes raw entries and first marks older than `raw`, and rollup hours before `rollups`. Answers the rows
   *  deleted of each. */
  readonly prune: (raw: Date, rollups: Date) => Effect.Effect<{ readonly entries: number; readonly rollups: number }, StoreError>
}
