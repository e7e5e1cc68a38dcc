/** The analytics tables behind `Store.analytics` (migration 22): raw entries, hourly rollups and first marks. The
 *  rollup rows a batch adds are core's `rollupRowsOf` over the entries that were new, upserted with their
 *  projections (per hour without domain and country; per hour and per day by domain; per hour and per day by country)
 *  in the same transaction. A sum reads the smallest tables that answer it exactly: the hourly projection when it
 *  needs neither domain nor country; for one of them, the day's projection for the whole days of the range and the
 *  hour's for the hours at its edges; the full rollups when it needs both. */
import type { SqlClient } from "@effect/sql"
import {
  type AnalyticsEntry, type AnalyticsMetric, analyticsMetrics, type AnalyticsRepository, type FirstKey, firstKeyOf,
  type RollupDimension, type RollupQuery, type RollupRow, rollupRowsOf, type RollupSum,
} from "@mailroom/core"
import { Effect, type ParseResult, Schema } from "effect"
import { atomically, chunksOf, insertColumns, maxInList } from "./internal/batch.js"
import { IntegerColumn, LiteralColumn } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"

const dayMs = 86_400_000

const Metric = Schema.Literal(...analyticsMetrics)
const EntryRow = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  message_id: Schema.NullOr(Schema.String),
  recipient: Schema.String,
  metric: Metric,
  occurred_at: IntegerColumn,
  categories: Schema.String,
  country: Schema.NullOr(Schema.String),
})
const decodeEntries = Schema.decodeUnknown(Schema.Array(EntryRow))
const SumRow = Schema.Struct({
  metric: LiteralColumn(Metric),
  hour: Schema.optional(IntegerColumn),
  category: Schema.optional(Schema.String),
  domain: Schema.optional(Schema.String),
  country: Schema.optional(Schema.String),
  total: IntegerColumn,
})
const decodeSumsBySchema = Schema.decodeUnknown(Schema.Array(SumRow))

const metricNames: ReadonlySet<unknown> = new Set(analyticsMetrics)
/** An integer column's value as the drivers answer it: a number (SQLite) or a string of digits (Postgres's bigint and
 *  numeric); undefined for anything else. */
const integerOf = (value: unknown): number | undefined =>
  typeof value === "number" ? (Number.isSafeInteger(value) ? value : undefined)
  : typeof value === "string" && /^-?\d{1,15}$/.test(value) ? Number(value)
  : undefined
const textOf = (value: unknown): string | undefined | null =>
  value === undefined ? undefined : typeof value === "string" ? value : null

/** The sums of a statement's rows. A route reads hundreds of them (the heatmap 720 hours), so each row is checked by
 *  hand against `SumRow`; when one does not pass, the rows are decoded by `SumRow` itself, which names the problem (or
 *  accepts a form the check did not know). */
const decodeSums = (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<RollupSum>, ParseResult.ParseError> => {
  const sums: Array<RollupSum> = []
  for (const row of rows as ReadonlyArray<Record<string, unknown>>) {
    const total = integerOf(row["total"])
    const hour = row["hour"] === undefined ? undefined : integerOf(row["hour"])
    const category = textOf(row["category"])
    const domain = textOf(row["domain"])
    const country = textOf(row["country"])
    if (!metricNames.has(row["metric"]) || total === undefined || (hour === undefined && row["hour"] !== undefined)
      || category === null || domain === null || country === null) {
      return Effect.map(decodeSumsBySchema(rows), (decoded) => decoded.map(sumOf))
    }
    sums.push(sumOf({ metric: row["metric"] as AnalyticsMetric, hour, category, domain, country, total }))
  }
  return Effect.succeed(sums)
}

/** A metric as a SQL string literal; only the names of `analyticsMetrics` (letters and underscores) are written. */
const metricLiteral = (metric: AnalyticsMetric) => {
  if (!metricNames.has(metric) || !/^[a-z_]+$/.test(metric)) throw new Error(`not an analytics metric: ${JSON.stringify(metric)}`)
  return `'${metric}'`
}

/** A sum with only the dimensions it was grouped by. */
const sumOf = (row: typeof SumRow.Type): RollupSum => ({
  metric: row.metric,
  ...(row.hour === undefined ? {} : { hour: row.hour }),
  ...(row.category === undefined ? {} : { category: row.category }),
  ...(row.domain === undefined ? {} : { domain: row.domain }),
  ...(row.country === undefined ? {} : { country: row.country }),
  count: row.total,
})
const decodeIds = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String })))
const decodeFirsts = Schema.decodeUnknown(Schema.Array(Schema.Struct({
  account_id: Schema.String, message_id: Schema.String, recipient: Schema.String, kind: Schema.Literal("open", "click"),
})))
const CategoriesRow = Schema.Struct({ id: Schema.String, categories: Schema.NullOr(Schema.String) })
const decodeCategories = Schema.decodeUnknown(Schema.Array(CategoriesRow))

/** A table a sum reads (`time`: its hour or day column) and the time range read from it. */
interface SumPart {
  readonly table: string
  readonly time: "hour" | "day"
  readonly from: number
  readonly to: number
}

/** Columns a sum may group by, as SQL names them (a fixed list: never user text). */
const dimensionColumns: Record<RollupDimension, string> = { hour: "hour", category: "category", domain: "domain", country: "country" }

export const makeAnalyticsRepository = (sql: SqlClient.SqlClient): AnalyticsRepository => {
  const insertEntries = insertColumns(sql, "analytics_entries", [
    ["id", "text"], ["account_id", "text"], ["message_id", "text"], ["recipient", "text"], ["metric", "text"],
    ["occurred_at", "bigint"], ["categories", "text"], ["country", "text"],
  ], "ON CONFLICT (id) DO NOTHING RETURNING id")
  const upsertRollups = insertColumns(sql, "analytics_rollups", [
    ["account_id", "text"], ["category", "text"], ["hour", "bigint"], ["metric", "text"], ["domain", "text"],
    ["country", "text"], ["count", "bigint"],
  ], "ON CONFLICT (account_id, category, hour, metric, domain, country) DO UPDATE SET count = analytics_rollups.count + excluded.count")
  const insertFirsts = insertColumns(sql, "analytics_firsts", [
    ["account_id", "text"], ["message_id", "text"], ["recipient", "text"], ["kind", "text"], ["at", "bigint"],
  ], "ON CONFLICT (account_id, message_id, recipient, kind) DO NOTHING RETURNING account_id, message_id, recipient, kind")

  const upsertHourly = insertColumns(sql, "analytics_hourly", [
    ["account_id", "text"], ["category", "text"], ["hour", "bigint"], ["metric", "text"], ["count", "bigint"],
  ], "ON CONFLICT (account_id, category, hour, metric) DO UPDATE SET count = analytics_hourly.count + excluded.count")
  const upsertDomains = insertColumns(sql, "analytics_daily_domains", [
    ["account_id", "text"], ["category", "text"], ["day", "bigint"], ["metric", "text"], ["domain", "text"], ["count", "bigint"],
  ], "ON CONFLICT (account_id, category, day, metric, domain) DO UPDATE SET count = analytics_daily_domains.count + excluded.count")
  const upsertCountries = insertColumns(sql, "analytics_daily_countries", [
    ["account_id", "text"], ["category", "text"], ["day", "bigint"], ["metric", "text"], ["country", "text"], ["count", "bigint"],
  ], "ON CONFLICT (account_id, category, day, metric, country) DO UPDATE SET count = analytics_daily_countries.count + excluded.count")

  const upsertHourlyDomains = insertColumns(sql, "analytics_hourly_domains", [
    ["account_id", "text"], ["category", "text"], ["hour", "bigint"], ["metric", "text"], ["domain", "text"], ["count", "bigint"],
  ], "ON CONFLICT (account_id, category, hour, metric, domain) DO UPDATE SET count = analytics_hourly_domains.count + excluded.count")
  const upsertHourlyCountries = insertColumns(sql, "analytics_hourly_countries", [
    ["account_id", "text"], ["category", "text"], ["hour", "bigint"], ["metric", "text"], ["country", "text"], ["count", "bigint"],
  ], "ON CONFLICT (account_id, category, hour, metric, country) DO UPDATE SET count = analytics_hourly_countries.count + excluded.count")

  /** The rows, and their projections: per hour without domain and country, per hour and per day by domain, per hour
   *  and per day by country. */
  const addRollups = (rows: ReadonlyArray<RollupRow>) => {
    const hourly = new Map<string, Array<string | number>>()
    const domains = new Map<string, Array<string | number>>()
    const countries = new Map<string, Array<string | number>>()
    const hourlyDomains = new Map<string, Array<string | number>>()
    const hourlyCountries = new Map<string, Array<string | number>>()
    const add = (into: Map<string, Array<string | number>>, key: ReadonlyArray<string | number>, count: number) => {
      const id = key.join("\u0000")
      const found = into.get(id)
      if (found === undefined) into.set(id, [...key, count])
      else found[key.length] = (found[key.length] as number) + count
    }
    for (const r of rows) {
      const day = Math.floor(r.hour / dayMs) * dayMs
      add(hourly, [r.accountId, r.category, r.hour, r.metric], r.count)
      add(domains, [r.accountId, r.category, day, r.metric, r.domain], r.count)
      add(countries, [r.accountId, r.category, day, r.metric, r.country], r.count)
      add(hourlyDomains, [r.accountId, r.category, r.hour, r.metric, r.domain], r.count)
      add(hourlyCountries, [r.accountId, r.category, r.hour, r.metric, r.country], r.count)
    }
    return Effect.all([
      upsertRollups(rows.map((r) => [r.accountId, r.category, r.hour, r.metric, r.domain, r.country, r.count])),
      upsertHourly([...hourly.values()]),
      upsertDomains([...domains.values()]),
      upsertCountries([...countries.values()]),
      upsertHourlyDomains([...hourlyDomains.values()]),
      upsertHourlyCountries([...hourlyCountries.values()]),
    ], { discard: true })
  }

  /** The sums of a query as one statement over `parts`, each a table (`time` its hour or day column) and the time
   *  range read from it. Several parts (whole days and each edge's hours) are read as one UNION ALL, grouped once: one
   *  round trip, and each group answered once. Each range is a branch of its own: SQLite reads two ranges joined by
   *  OR as every hour of the account (34 ms for providers' edge hours over 30 days, against 3.4 ms as two ranges). */
  const sumsOf = (accountId: string, query: RollupQuery, parts: ReadonlyArray<SumPart>) => {
    // The metrics (a fixed list) and the category of all mail are written into the statement, never bound: Postgres
    // plans a prepared statement generically after five runs, and with them bound it guessed the rows of the day
    // projections far too low (an index scan of 37 ms where the bitmap scan it picks with them written takes 15 ms).
    // Categories a caller names stay bound (they are user text).
    const categories = query.categories === undefined ? sql.literal("('')") : sql.in(query.categories)
    const metrics = query.metrics === undefined ? undefined : sql.literal(`(${query.metrics.map(metricLiteral).join(", ")})`)
    const grouped = query.groupBy.map((d) => dimensionColumns[d])
    const from = (part: SumPart, columns: string) => {
      const time = sql.literal(part.time)
      return sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(part.table)}
        WHERE account_id = ${accountId} AND category IN ${categories} AND ${time} >= ${part.from} AND ${time} < ${part.to}
          ${metrics === undefined ? sql.literal("") : sql`AND metric IN ${metrics}`}
          ${query.country === undefined ? sql.literal("") : sql`AND country = ${query.country}`}
          ${query.knownCountry === true ? sql.literal("AND country <> ''") : sql.literal("")}`
    }
    const groupList = ["metric", ...grouped].join(", ")
    const single = parts.length === 1 ? parts[0]! : undefined
    const statement = single !== undefined
      ? sql`${from(single, [...["metric", ...query.groupBy.map((d) => d === "hour" ? `${single.time} AS hour` : dimensionColumns[d])], "SUM(count) AS total"].join(", "))}
          GROUP BY ${sql.literal(["metric", ...query.groupBy.map((d) => d === "hour" ? single.time : dimensionColumns[d])].join(", "))}`
      : sql`SELECT ${sql.literal(groupList)}, SUM(count) AS total FROM (${sql.join(" UNION ALL ", false)(parts.map((part) => from(part, `${groupList}, count`)))}) parts
          GROUP BY ${sql.literal(groupList)}`
    return statement.pipe(Effect.flatMap(decodeSums))
  }

  return {
    categoriesOf: (messageIds) =>
      Effect.gen(function* () {
        const found = new Map<string, ReadonlyArray<string>>()
        for (const chunk of chunksOf(messageIds, maxInList)) {
          const column = sql.onDialectOrElse({
            pg: () => "(content -> 'categories')::text",
            orElse: () => "json_extract(content, '$.categories')",
          })
          const rows = yield* decodeCategories(yield* sql`SELECT id, ${sql.literal(column)} AS categories FROM messages WHERE id IN ${sql.in(chunk)}`)
          for (const row of rows) {
            const parsed: unknown = row.categories === null ? [] : JSON.parse(row.categories)
            found.set(row.id, Array.isArray(parsed) ? parsed.filter((c): c is string => typeof c === "string") : [])
          }
        }
        return found
      }).pipe(orStoreError("analytics.categoriesOf")),

    markFirsts: (keys) =>
      Effect.gen(function* () {
        const distinct = [...new Map(keys.map((key) => [firstKeyOf(key), key])).values()]
        if (distinct.length === 0) return []
        const rows = yield* decodeFirsts(yield* insertFirsts(distinct.map((k) => [k.accountId, k.messageId, k.recipient, k.kind, k.at.getTime()])))
        const inserted = new Set(rows.map((r) => firstKeyOf({ accountId: r.account_id, messageId: r.message_id, recipient: r.recipient, kind: r.kind })))
        return distinct.filter((key) => inserted.has(firstKeyOf(key))).map((k): FirstKey => ({
          accountId: k.accountId, messageId: k.messageId, recipient: k.recipient, kind: k.kind,
        }))
      }).pipe(orStoreError("analytics.markFirsts")),

    record: (entries) =>
      atomically(sql, Effect.gen(function* () {
        if (entries.length === 0) return 0
        const inserted = new Set((yield* decodeIds(yield* insertEntries(entries.map((e) => [
          e.id, e.accountId, e.messageId, e.recipient, e.metric, e.occurredAt.getTime(), JSON.stringify(e.categories), e.country,
        ])))).map((row) => row.id))
        const fresh = entries.filter((e) => inserted.has(e.id))
        if (fresh.length > 0) yield* addRollups(rollupRowsOf(fresh))
        return fresh.length
      })).pipe(orStoreError("analytics.record")),

    addRollups: (rows) => atomically(sql, addRollups(rows)).pipe(orStoreError("analytics.addRollups")),

    sums: (accountId, query) =>
      Effect.gen(function* () {
        const from = query.from.getTime()
        const to = query.to.getTime()
        const byDomain = query.groupBy.includes("domain")
        const byCountry = query.groupBy.includes("country") || query.country !== undefined || query.knownCountry === true
        const firstDay = Math.ceil(from / dayMs) * dayMs
        const lastDay = Math.floor(to / dayMs) * dayMs
        const hourly = byDomain ? "analytics_hourly_domains" : "analytics_hourly_countries"
        // Whole days from the day's projection, the hours at either edge from the hour's.
        const edges = ([[from, firstDay], [lastDay, to]] as const).filter(([a, b]) => a < b)
        const parts: ReadonlyArray<SumPart> = !byDomain && !byCountry
          ? [{ table: "analytics_hourly", time: "hour", from, to }]
          : byDomain && byCountry
          ? [{ table: "analytics_rollups", time: "hour", from, to }]
          : query.groupBy.includes("hour") || firstDay >= lastDay
          ? [{ table: hourly, time: "hour", from, to }]
          : [
            { table: byDomain ? "analytics_daily_domains" : "analytics_daily_countries", time: "day", from: firstDay, to: lastDay },
            ...edges.map(([a, b]): SumPart => ({ table: hourly, time: "hour", from: a, to: b })),
          ]
        // Each group is one row: the statement groups once, over every part.
        return yield* sumsOf(accountId, query, parts)
      }).pipe(orStoreError("analytics.sums")),

    entries: (accountId, from, to) =>
      sql`SELECT * FROM analytics_entries WHERE account_id = ${accountId} AND occurred_at >= ${from.getTime()}
        AND occurred_at < ${to.getTime()} ORDER BY occurred_at, id`.pipe(
        Effect.flatMap(decodeEntries),
        Effect.map((rows) => rows.map((row): AnalyticsEntry => ({
          id: row.id, accountId: row.account_id, messageId: row.message_id, recipient: row.recipient, metric: row.metric,
          occurredAt: new Date(row.occurred_at), categories: JSON.parse(row.categories) as Array<string>, country: row.country,
        }))),
        orStoreError("analytics.entries"),
      ),

    prune: (raw, rollups) =>
      atomically(sql, Effect.gen(function* () {
        const entries = yield* sql`DELETE FROM analytics_entries WHERE occurred_at < ${raw.getTime()} RETURNING id`
        yield* sql`DELETE FROM analytics_firsts WHERE at < ${raw.getTime()}`
        yield* sql`DELETE FROM tracking_hits WHERE occurred_at < ${raw.getTime()}`
        const hours = yield* sql`DELETE FROM analytics_rollups WHERE hour < ${rollups.getTime()} RETURNING hour`
        yield* sql`DELETE FROM analytics_hourly WHERE hour < ${rollups.getTime()}`
        yield* sql`DELETE FROM analytics_daily_domains WHERE day < ${rollups.getTime()}`
        yield* sql`DELETE FROM analytics_daily_countries WHERE day < ${rollups.getTime()}`
        yield* sql`DELETE FROM analytics_hourly_domains WHERE hour < ${rollups.getTime()}`
        yield* sql`DELETE FROM analytics_hourly_countries WHERE hour < ${rollups.getTime()}`
        return { entries: entries.length, rollups: hours.length }
      })).pipe(orStoreError("analytics.prune")),
  }
}
