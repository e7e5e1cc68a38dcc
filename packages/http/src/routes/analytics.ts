/** /v1/analytics: summary, heatmap, geographic, providers and export, all GET, scope analytics:read, each account's
 *  own figures only. Spec: sending "Analytics"; docs/analytics.md. `from` and `to` default to 30 days ago and now. */
import { Analytics, exportGroupings, exportMetrics, limitParam } from "@mailroom/core"
import { Effect, Schema } from "effect"
import { Hono } from "hono"
import { requireScope } from "../auth.js"
import { csvRow } from "../csv.js"
import type { MailroomEnv } from "../env.js"
import { decodeQuery } from "../validation.js"

const Range = {
  from: Schema.optional(Schema.String),
  to: Schema.optional(Schema.String),
}

/** A comma-separated list of `literals`, spaces around items ignored. */
const commaList = <L extends ReadonlyArray<string>>(literals: L, field: string) =>
  Schema.compose(
    Schema.transform(Schema.String, Schema.Array(Schema.String), {
      strict: true,
      decode: (s) => s.split(",").map((item) => item.trim()).filter((item) => item !== ""),
      encode: (items) => items.join(","),
    }),
    Schema.Array(Schema.Literal(...literals)).pipe(Schema.minItems(1, { message: () => `${field} must name at least one of ${literals.join(", ")}` })),
  )

export const SummaryParams = Schema.Struct(Range)
export const HeatmapParams = Schema.Struct({
  ...Range,
  metric: Schema.optionalWith(Schema.Literal("opens", "clicks", "deliveries"), { default: () => "opens" as const }),
  timezone: Schema.optionalWith(Schema.String, { default: () => "UTC" }),
})
export const GeographicParams = Schema.Struct({
  ...Range,
  metric: Schema.optionalWith(Schema.Literal("opens", "clicks"), { default: () => "opens" as const }),
  country: Schema.optional(Schema.String.pipe(
    Schema.pattern(/^[A-Za-z]{2}$/, { message: () => "country must be an ISO 3166-1 alpha-2 code such as DE" }),
  )),
})
export const ProvidersParams = Schema.Struct({
  ...Range,
  limit: Schema.optionalWith(limitParam(50), { default: () => 10 }),
})
const exportMetricNames = Object.keys(exportMetrics) as Array<keyof typeof exportMetrics>
export const ExportParams = Schema.Struct({
  ...Range,
  format: Schema.optionalWith(Schema.Literal("json", "csv"), { default: () => "json" as const }),
  metrics: Schema.optionalWith(commaList(exportMetricNames, "metrics"), { default: () => exportMetricNames }),
  groupBy: Schema.optionalWith(Schema.Literal(...exportGroupings), { default: () => "day" as const }),
  categories: Schema.optional(Schema.compose(
    Schema.transform(Schema.String, Schema.Array(Schema.String), {
      strict: true,
      decode: (s) => [...new Set(s.split(",").map((item) => item.trim()).filter((item) => item !== ""))],
      encode: (items) => items.join(","),
    }),
    Schema.Array(Schema.String.pipe(Schema.maxLength(64, { message: () => "each category is at most 64 characters" })))
      .pipe(Schema.minItems(1, { message: () => "categories must name at least one category" }), Schema.maxItems(50)),
  )),
})

const read = requireScope("analytics:read")

export const analyticsRoutes = new Hono<MailroomEnv>()
  .get("/analytics/summary", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const params = yield* decodeQuery(c, SummaryParams)
      return c.json(yield* (yield* Analytics).summary(c.get("account"), params))
    })))
  .get("/analytics/heatmap", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const params = yield* decodeQuery(c, HeatmapParams)
      return c.json(yield* (yield* Analytics).heatmap(c.get("account"), params))
    })))
  .get("/analytics/geographic", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const { country, ...params } = yield* decodeQuery(c, GeographicParams)
      return c.json(yield* (yield* Analytics).geographic(c.get("account"), { ...params, country: country?.toUpperCase() }))
    })))
  .get("/analytics/providers", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const params = yield* decodeQuery(c, ProvidersParams)
      return c.json(yield* (yield* Analytics).providers(c.get("account"), params))
    })))
  .get("/analytics/export", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const { format, ...params } = yield* decodeQuery(c, ExportParams)
      const report = yield* (yield* Analytics).export(c.get("account"), params)
      if (format === "json") return c.json({ from: report.from, to: report.to, groupBy: report.groupBy, data: report.data })
      const header = ["date", ...report.metrics]
      const rows = report.data.map((row) => header.map((name) => String((row as Record<string, string | number>)[name])))
      return new Response([header, ...rows].map(csvRow).join(""), {
        headers: {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": "attachment; filename=analytics-export.csv",
          "cache-control": "no-store",
        },
      })
    })))
