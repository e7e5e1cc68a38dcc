/** The analytics routes as the OpenAPI document describes them, with the schemas their routes decode with. */
import { Schema } from "effect"
import { ExportParams, GeographicParams, HeatmapParams, ProvidersParams, SummaryParams } from "../routes/analytics.js"
import type { RouteDescription } from "./describe.js"

const read = { apiKey: "analytics:read" } as const
const Range = { from: Schema.String, to: Schema.String }
const Percent = Schema.Number.annotations({ description: "A percentage, two decimals" })

const Summary = Schema.Struct({
  ...Range,
  totals: Schema.Struct({
    sent: Schema.Number, delivered: Schema.Number, bounced: Schema.Number, deferred: Schema.Number, opened: Schema.Number,
    uniqueOpens: Schema.Number, clicked: Schema.Number, uniqueClicks: Schema.Number, complained: Schema.Number,
    unsubscribed: Schema.Number,
    machineOpened: Schema.Number.annotations({ description: "Opens by machines and bots (Apple Mail Privacy Protection's prefetch, HEAD requests, crawlers), counted apart and left out of every rate" }),
    botClicked: Schema.Number.annotations({ description: "Clicks by bots (security scanners, the honeypot link), counted apart" }),
  }),
  rates: Schema.Struct({
    deliveryRate: Percent, bounceRate: Percent, openRate: Percent, clickRate: Percent, clickToOpenRate: Percent,
    complaintRate: Percent, unsubscribeRate: Percent,
  }),
  quotaUsed: Schema.Number,
  quotaLimit: Schema.NullOr(Schema.Number),
  quotaPercentage: Percent,
})
const Heatmap = Schema.Struct({
  metric: Schema.Literal("opens", "clicks", "deliveries"), ...Range, timezone: Schema.String,
  data: Schema.Array(Schema.Struct({ day: Schema.Number, hour: Schema.Number, value: Schema.Number })),
})
const Geographic = Schema.Struct({
  metric: Schema.Literal("opens", "clicks"), ...Range,
  data: Schema.Array(Schema.Struct({ country: Schema.String, countryName: Schema.String, value: Schema.Number, percentage: Percent })),
  total: Schema.Number,
})
const ProviderFigures = {
  sent: Schema.Number, delivered: Schema.Number, bounced: Schema.Number, opened: Schema.Number, clicked: Schema.Number,
  complained: Schema.Number,
}
const Providers = Schema.Struct({
  ...Range,
  data: Schema.Array(Schema.Struct({
    provider: Schema.String, domain: Schema.String, ...ProviderFigures, deliveryRate: Percent, openRate: Percent, clickRate: Percent,
  })),
  total: Schema.Struct(ProviderFigures),
})
const ExportJson = Schema.Struct({
  ...Range,
  groupBy: Schema.Literal("hour", "day", "week", "month"),
  data: Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Number) }).annotations({
    description: "date, then one count per metric asked for (deliveries, bounces, opens, clicks, complaints)",
  })),
})

export const analyticsRoutes: ReadonlyArray<RouteDescription> = [
  {
    method: "get", path: "/v1/analytics/summary", tag: "Analytics", summary: "Totals, rates and quota", access: read,
    query: SummaryParams, success: { status: 200, description: "Totals and rates over the range", schema: Summary }, errors: ["VALIDATION_ERROR"],
  },
  {
    method: "get", path: "/v1/analytics/heatmap", tag: "Analytics", summary: "Opens, clicks or deliveries by weekday and hour",
    access: read, query: HeatmapParams,
    success: { status: 200, description: "168 cells, day 0 = Sunday, hours in the timezone asked", schema: Heatmap }, errors: ["VALIDATION_ERROR"],
  },
  {
    method: "get", path: "/v1/analytics/geographic", tag: "Analytics", summary: "People's opens or clicks by country",
    access: read, query: GeographicParams,
    success: { status: 200, description: "Countries, most first", schema: Geographic }, errors: ["VALIDATION_ERROR"],
  },
  {
    method: "get", path: "/v1/analytics/providers", tag: "Analytics", summary: "Figures by mailbox provider", access: read,
    query: ProvidersParams,
    success: { status: 200, description: "Providers, most mail first", schema: Providers }, errors: ["VALIDATION_ERROR"],
  },
  {
    method: "get", path: "/v1/analytics/export", tag: "Analytics", summary: "Counts by hour, day, week or month, as JSON or CSV",
    access: read, query: ExportParams,
    success: { status: 200, description: "As JSON (format=json, the default)", schema: ExportJson },
    alternatives: [{
      status: 200, description: "As CSV (format=csv): a header row, attachment analytics-export.csv", contentType: "text/csv", schema: Schema.String,
    }],
    errors: ["VALIDATION_ERROR"],
  },
]
