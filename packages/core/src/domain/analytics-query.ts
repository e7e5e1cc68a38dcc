/** Reading the analytics: the date range of a query, the spec's rates, the heatmap's days and hours in a timezone, the
 *  buckets of an export, the countries of the geographic figures. Spec: sending "Analytics"; docs/analytics.md. Pure
 *  rules over the hourly counts a store answers. */
import { Either } from "effect"
import { ValidationFailed } from "../errors.js"
import { type AnalyticsMetric, hourMs, hourOf } from "./analytics.js"

const dayMs = 86_400_000
/** Longest range a query may cover: 13 months of rollups are kept, so a year and a month of days (docs/analytics.md). */
export const maxRangeDays = 397
/** Days a query covers when `from` is not given. */
export const defaultRangeDays = 30

export interface AnalyticsRange {
  /** Inclusive, at the start of its UTC hour. */
  readonly from: Date
  /** Exclusive, at the end of the hour (or day, for a date without time) that `to` named. */
  readonly to: Date
}

const dateOnly = /^\d{4}-\d{2}-\d{2}$/
const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i

const parseInstant = (field: "from" | "to", value: string): Either.Either<{ readonly at: Date; readonly dateOnly: boolean }, ValidationFailed> => {
  const trimmed = value.trim()
  const isDate = dateOnly.test(trimmed)
  const at = new Date(isDate ? `${trimmed}T00:00:00Z` : trimmed)
  if ((!isDate && !isoDateTime.test(trimmed)) || Number.isNaN(at.getTime()) || (isDate && at.toISOString().slice(0, 10) !== trimmed)) {
    return Either.left(new ValidationFailed({ field, detail: `must be an ISO 8601 date (2026-03-01) or date and time (2026-03-01T12:00:00Z), got ${JSON.stringify(value)}` }))
  }
  return Either.right({ at, dateOnly: isDate })
}

/** The range of a query. `to` defaults to now, `from` to 30 days before `to`. A date without a time covers its whole
 *  UTC day. The range is widened to whole hours (the rollups' grain). Refused: a malformed date, `from` after `to`,
 *  and a range longer than `maxRangeDays`. */
export const resolveRange = (input: { readonly from?: string | undefined; readonly to?: string | undefined }, now: Date): Either.Either<AnalyticsRange, ValidationFailed> =>
  Either.gen(function* () {
    const to = input.to === undefined ? { at: now, dateOnly: false } : yield* parseInstant("to", input.to)
    const toEnd = to.dateOnly ? to.at.getTime() + dayMs : to.at.getTime() + 1
    const from = input.from === undefined
      ? { at: new Date(toEnd - defaultRangeDays * dayMs), dateOnly: false }
      : yield* parseInstant("from", input.from)
    if (from.at.getTime() >= toEnd) {
      return yield* Either.left(new ValidationFailed({ field: "from", detail: `must be before to (${from.at.toISOString()} is after ${new Date(toEnd - 1).toISOString()})` }))
    }
    if (toEnd - from.at.getTime() > maxRangeDays * dayMs) {
      return yield* Either.left(new ValidationFailed({ field: "to", detail: `the range may cover at most ${maxRangeDays} days` }))
    }
    return { from: new Date(hourOf(from.at.getTime())), to: new Date(Math.ceil(toEnd / hourMs) * hourMs) }
  })

export type Totals = Readonly<Record<AnalyticsMetric, number>>

/** A percentage with two decimals; 0 when nothing was counted below it. */
export const percentage = (part: number, whole: number) => whole <= 0 ? 0 : Math.round((part / whole) * 10_000) / 100

/** The spec's rates, each a percentage. */
export const ratesOf = (t: Totals) => ({
  deliveryRate: percentage(t.delivered, t.sent),
  bounceRate: percentage(t.bounced, t.sent),
  openRate: percentage(t.unique_opened, t.delivered),
  clickRate: percentage(t.unique_clicked, t.delivered),
  clickToOpenRate: percentage(t.unique_clicked, t.unique_opened),
  complaintRate: percentage(t.complained, t.delivered),
  unsubscribeRate: percentage(t.unsubscribed, t.delivered),
})

export const heatmapMetrics = { opens: "opened", clicks: "clicked", deliveries: "delivered" } as const satisfies Record<string, AnalyticsMetric>
export type HeatmapMetric = keyof typeof heatmapMetrics

/** Formatters by timezone: making one costs far more than using it (a timezone unknown to Intl is never kept). */
const formatters = new Map<string, Intl.DateTimeFormat>()
const formatterOf = (timezone: string) => {
  let format = formatters.get(timezone)
  if (format === undefined) {
    // The date with the zone's offset from UTC written out ("11/29/2026, GMT+01:00"): one string to read per instant,
    // where the offset computed from formatToParts's date and time costs an array of parts and a Date.UTC.
    format = new Intl.DateTimeFormat("en-US", { timeZone: timezone, timeZoneName: "longOffset" })
    if (formatters.size >= 512) formatters.clear()
    formatters.set(timezone, format)
  }
  return format
}

/** Whether Intl knows the IANA timezone (its formatter is then kept for the heatmap). */
export const isTimezone = (timezone: string) => {
  try {
    formatterOf(timezone)
    return true
  } catch {
    return false
  }
}

/** The offset at the end of a longOffset date: `GMT` alone for UTC itself, else sign, hours, minutes and, for the local
 *  mean times of old dates, seconds. */
const longOffset = /GMT(?:([+-])(\d\d):(\d\d)(?::(\d\d))?)?$/

/** The timezone's offset from UTC at `ms`, in milliseconds. */
const offsetAt = (format: Intl.DateTimeFormat, ms: number) => {
  const written = format.format(new Date(ms))
  const match = longOffset.exec(written)
  if (match === null) throw new Error(`Intl wrote no offset: ${written}`)
  if (match[1] === undefined) return 0
  const seconds = (Number(match[2]) * 60 + Number(match[3])) * 60 + Number(match[4] ?? 0)
  return (match[1] === "-" ? -seconds : seconds) * 1000
}

/** The spans of one offset between the UTC hours `from` and `to` (exclusive): each `[start, offset]`, a span running
 *  to the next one's start. Intl is read at both ends of each UTC day; a day whose ends differ (a change of offset)
 *  is split by halving it to the hour where the change happens. A zone whose offset changes and changes back within
 *  one UTC day is not told apart (no IANA zone does so). */
export const offsetSpans = (timezone: string, from: number, to: number): ReadonlyArray<readonly [number, number]> => {
  const format = formatterOf(timezone)
  const spans: Array<readonly [number, number]> = []
  let offset = offsetAt(format, from)
  spans.push([from, offset])
  for (let day = Math.floor(from / dayMs) * dayMs; day < to; day += dayMs) {
    const end = Math.min(day + dayMs, to)
    let next = offsetAt(format, end)
    if (next === offset) continue
    // The first hour of (start, end] at `next`'s offset, by halving.
    let low = Math.max(day, from)
    let high = end
    while (high - low > hourMs) {
      const middle = low + Math.floor((high - low) / hourMs / 2) * hourMs
      if (offsetAt(format, middle) === offset) low = middle
      else high = middle
    }
    next = offsetAt(format, high)
    spans.push([high, next])
    offset = next
  }
  return spans
}

/** Folds hourly counts into the heatmap's cells (day 0 = Sunday to 6, hour 0-23) in `timezone`: each UTC hour counts
 *  where its start falls there (a zone with a half-hour offset places the hour by its start). All 168 cells, in
 *  order of day then hour. Intl is read per span of one offset (`offsetSpans`), not per hour. */
export const heatmapOf = (
  counts: ReadonlyArray<{ readonly hour: number; readonly count: number }>,
  timezone: string,
  range: AnalyticsRange,
) => {
  const spans = offsetSpans(timezone, range.from.getTime(), range.to.getTime())
  const cells = Array.from({ length: 7 * 24 }, () => 0)
  for (const { hour, count } of counts) {
    let i = spans.length - 1
    while (i > 0 && spans[i]![0] > hour) i--
    const local = hour + spans[i]![1]
    // Day of week and hour of the local time, without a Date: 1 January 1970 was a Thursday (day 4).
    const localHour = Math.floor(local / hourMs)
    const day = Math.floor(localHour / 24)
    cells[(((day + 4) % 7) + 7) % 7 * 24 + (((localHour % 24) + 24) % 24)]! += count
  }
  return cells.map((value, i) => ({ day: Math.floor(i / 24), hour: i % 24, value }))
}

export const exportGroupings = ["hour", "day", "week", "month"] as const
export type ExportGrouping = (typeof exportGroupings)[number]

/** The export's metric names and what they count. */
export const exportMetrics = {
  deliveries: "delivered", bounces: "bounced", opens: "opened", clicks: "clicked", complaints: "complained",
} as const satisfies Record<string, AnalyticsMetric>
export type ExportMetric = keyof typeof exportMetrics

/** The start (UTC) of the bucket holding `ms`: the hour, the day, the week (from Monday, ISO 8601) or the month. */
export const bucketStart = (ms: number, groupBy: ExportGrouping) => {
  if (groupBy === "hour") return hourOf(ms)
  const day = Math.floor(ms / dayMs) * dayMs
  if (groupBy === "day") return day
  if (groupBy === "week") return day - ((new Date(day).getUTCDay() + 6) % 7) * dayMs
  const d = new Date(ms)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
}

const nextBucket = (start: number, groupBy: ExportGrouping) => {
  if (groupBy === "hour") return start + hourMs
  if (groupBy === "day") return start + dayMs
  if (groupBy === "week") return start + 7 * dayMs
  const d = new Date(start)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
}

/** How a bucket's date reads: the hour as date and time, the others as a date. */
export const bucketLabel = (start: number, groupBy: ExportGrouping) =>
  groupBy === "hour" ? new Date(start).toISOString().replace(".000Z", "Z") : new Date(start).toISOString().slice(0, 10)

/** Every bucket of the range, in order, with each metric's count (0 where nothing happened). */
export const exportRows = (
  range: AnalyticsRange,
  groupBy: ExportGrouping,
  metrics: ReadonlyArray<ExportMetric>,
  counts: ReadonlyArray<{ readonly hour: number; readonly metric: AnalyticsMetric; readonly count: number }>,
) => {
  const buckets = new Map<number, Record<string, number>>()
  for (let start = bucketStart(range.from.getTime(), groupBy); start < range.to.getTime(); start = nextBucket(start, groupBy)) {
    buckets.set(start, Object.fromEntries(metrics.map((m) => [m, 0])))
  }
  const wanted = new Map(metrics.map((m) => [exportMetrics[m] as AnalyticsMetric, m]))
  for (const { hour, metric, count } of counts) {
    const name = wanted.get(metric)
    const bucket = buckets.get(bucketStart(hour, groupBy))
    if (name !== undefined && bucket !== undefined) bucket[name]! += count
  }
  return [...buckets.entries()].map(([start, values]) => ({ date: bucketLabel(start, groupBy), ...values }))
}

/** The English name of an ISO 3166-1 alpha-2 code (Intl.DisplayNames); the code itself when Intl has none. */
export const countryName = (() => {
  const names = new Intl.DisplayNames(["en"], { type: "region", fallback: "code" })
  return (code: string) => {
    try {
      return names.of(code) ?? code
    } catch {
      return code
    }
  }
})()
