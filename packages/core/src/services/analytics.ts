/** The analytics API: summary, heatmap, geographic, providers and export, read from the hourly rollups only (never
 *  raw events), for one account. Spec: sending "Analytics"; docs/analytics.md. Also registers the recording of
 *  outbox events and the retention task (analytics-recording.ts). */
import { Clock, Effect, Either } from "effect"
import type { Account } from "../domain/account.js"
import { type AnalyticsMetric, analyticsEventTypes, analyticsMetrics, noCountry } from "../domain/analytics.js"
import {
  type AnalyticsRange, countryName, type ExportGrouping, type ExportMetric, exportMetrics, exportRows, heatmapMetrics,
  type HeatmapMetric, heatmapOf, isTimezone, percentage, ratesOf, resolveRange, type Totals,
} from "../domain/analytics-query.js"
import { consumerProvider, providerOfMx } from "../domain/mailbox-provider.js"
import { ValidationFailed } from "../errors.js"
import { makeRecentCache } from "../internal/recent-cache.js"
import { Dns, recordsOrNone } from "../ports/dns.js"
import { Store } from "../ports/store.js"
import { pruneAnalytics, recordEventAnalytics } from "./analytics-recording.js"
import { Background } from "./background.js"
import { Quota } from "./quota.js"
import { serviceMethod } from "./tracing.js"

export interface RangeParams {
  readonly from?: string | undefined
  readonly to?: string | undefined
}

/** Domains whose provider is remembered (per process). */
const providerCacheSize = 50_000
/** How long a domain's MX answer is trusted, in milliseconds. */
const providerCacheMs = 24 * 3_600_000
/** How long a failed MX lookup stands before the domain is looked up again. */
const failedLookupMs = 5 * 60_000

const zeroTotals = (): Record<AnalyticsMetric, number> =>
  Object.fromEntries(analyticsMetrics.map((m) => [m, 0])) as Record<AnalyticsMetric, number>

export class Analytics extends Effect.Service<Analytics>()("@mailroom/core/Analytics", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const quota = yield* Quota
    const background = yield* Background
    const method = yield* serviceMethod
    const providers = makeRecentCache<string, { provider: string; at: number; ttl: number }>(providerCacheSize)

    yield* background.consume({ name: "analytics", handle: recordEventAnalytics, types: analyticsEventTypes })
    yield* background.every("analytics.prune", "1 hour", Effect.asVoid(Effect.provideService(pruneAnalytics, Store, store)))

    const rangeOf = (params: RangeParams) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => Either.match(resolveRange(params, new Date(now)), {
        onLeft: Effect.fail, onRight: Effect.succeed,
      }))
    const rangeBody = (range: AnalyticsRange) => ({ from: range.from.toISOString(), to: range.to.toISOString() })

    const totalsOf = (sums: ReadonlyArray<{ readonly metric: AnalyticsMetric; readonly count: number }>): Totals => {
      const totals = zeroTotals()
      for (const sum of sums) totals[sum.metric] += sum.count
      return totals
    }

    /** Totals, rates and the current month's quota. `machineOpened` and `botClicked` are counted apart and left out
     *  of every rate. */
    const summary = method("Analytics.summary")(function* (account: Account, params: RangeParams) {
      const range = yield* rangeOf(params)
      const t = totalsOf(yield* store.analytics.sums(account.id, { from: range.from, to: range.to, groupBy: [] }))
      const usage = yield* quota.usage(account)
      return {
        ...rangeBody(range),
        totals: {
          sent: t.sent, delivered: t.delivered, bounced: t.bounced, deferred: t.deferred, opened: t.opened,
          uniqueOpens: t.unique_opened, clicked: t.clicked, uniqueClicks: t.unique_clicked, complained: t.complained,
          unsubscribed: t.unsubscribed, machineOpened: t.machine_opened, botClicked: t.bot_clicked,
        },
        rates: ratesOf(t),
        quotaUsed: usage.used,
        quotaLimit: usage.limit,
        quotaPercentage: usage.limit === null ? 0 : percentage(usage.used, usage.limit),
      }
    })

    const heatmap = method("Analytics.heatmap")(function* (account: Account, params: RangeParams & {
      readonly metric: HeatmapMetric; readonly timezone: string
    }) {
      if (!isTimezone(params.timezone)) {
        return yield* Effect.fail(new ValidationFailed({ field: "timezone", detail: `${JSON.stringify(params.timezone)} is not an IANA timezone (such as Europe/Paris)` }))
      }
      const range = yield* rangeOf(params)
      const sums = yield* store.analytics.sums(account.id, {
        from: range.from, to: range.to, metrics: [heatmapMetrics[params.metric]], groupBy: ["hour"],
      })
      return {
        metric: params.metric, ...rangeBody(range), timezone: params.timezone,
        data: heatmapOf(sums.map((s) => ({ hour: s.hour!, count: s.count })), params.timezone, range),
      }
    })

    /** People's opens or clicks by country (machines have none); countries unknown are left out. */
    const geographic = method("Analytics.geographic")(function* (account: Account, params: RangeParams & {
      readonly metric: "opens" | "clicks"; readonly country?: string | undefined
    }) {
      const range = yield* rangeOf(params)
      const sums = yield* store.analytics.sums(account.id, {
        from: range.from, to: range.to, metrics: [params.metric === "opens" ? "opened" : "clicked"], groupBy: ["country"],
        knownCountry: true, country: params.country,
      })
      const byCountry = new Map<string, number>()
      for (const s of sums) if (s.country !== undefined && s.country !== noCountry) byCountry.set(s.country, (byCountry.get(s.country) ?? 0) + s.count)
      const total = [...byCountry.values()].reduce((a, b) => a + b, 0)
      const data = [...byCountry.entries()]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .map(([country, value]) => ({ country, countryName: countryName(country), value, percentage: percentage(value, total) }))
      return { metric: params.metric, ...rangeBody(range), data, total }
    })

    /** The provider of a recipient domain: the consumer list, else the domain's MX hosts (looked up once a day per
     *  domain; a failed lookup answers Unknown and is tried again after 5 minutes). */
    const providerOf = (domain: string) => Effect.gen(function* () {
      const consumer = consumerProvider(domain)
      if (consumer !== undefined) return consumer
      const now = yield* Clock.currentTimeMillis
      const kept = providers.get(domain, () => ({ provider: "", at: 0, ttl: 0 }))
      if (kept.provider !== "" && now - kept.at < kept.ttl) return kept.provider
      const dns = yield* Dns
      const looked = yield* Effect.either(recordsOrNone(dns.resolveMx(domain)).pipe(Effect.timeout("3 seconds")))
      const provider = Either.isLeft(looked)
        ? "Unknown"
        : providerOfMx([...looked.right].sort((a, b) => a.priority - b.priority).map((mx) => mx.exchange))
      kept.provider = provider
      kept.at = now
      kept.ttl = Either.isLeft(looked) ? failedLookupMs : providerCacheMs
      return provider
    })

    const providerFigures = ["sent", "delivered", "bounced", "opened", "clicked", "complained", "unique_opened", "unique_clicked"] as const

    const providersReport = method("Analytics.providers")(function* (account: Account, params: RangeParams & { readonly limit: number }) {
      const range = yield* rangeOf(params)
      const sums = yield* store.analytics.sums(account.id, { from: range.from, to: range.to, metrics: providerFigures, groupBy: ["domain"] })
      // Consumer domains are named by the list at once; only the others are looked up (MX, cached), 8 at a time.
      const names = new Map<string, string>()
      const custom: Array<string> = []
      for (const domain of new Set(sums.map((s) => s.domain ?? ""))) {
        const consumer = consumerProvider(domain)
        if (consumer === undefined) custom.push(domain)
        else names.set(domain, consumer)
      }
      for (const [d, p] of yield* Effect.forEach(custom, (d) => Effect.map(providerOf(d), (p) => [d, p] as const), { concurrency: 8 })) names.set(d, p)
      const rows = new Map<string, { totals: Record<AnalyticsMetric, number>; domains: Map<string, number> }>()
      for (const s of sums) {
        const domain = s.domain ?? ""
        const provider = names.get(domain) ?? "Unknown"
        const row = rows.get(provider) ?? { totals: zeroTotals(), domains: new Map<string, number>() }
        rows.set(provider, row)
        row.totals[s.metric] += s.count
        if (s.metric === "sent") row.domains.set(domain, (row.domains.get(domain) ?? 0) + s.count)
        else if (!row.domains.has(domain)) row.domains.set(domain, 0)
      }
      const figures = (t: Totals) => ({
        sent: t.sent, delivered: t.delivered, bounced: t.bounced, opened: t.opened, clicked: t.clicked, complained: t.complained,
      })
      const total = zeroTotals()
      for (const row of rows.values()) for (const m of analyticsMetrics) total[m] += row.totals[m]
      const data = [...rows.entries()]
        .map(([provider, row]) => {
          // The domain with most mail names the provider's row (its only one for a consumer domain or custom domain).
          const domain = [...row.domains.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? ""
          const rates = ratesOf(row.totals)
          return {
            provider, domain, ...figures(row.totals),
            deliveryRate: rates.deliveryRate, openRate: rates.openRate, clickRate: rates.clickRate,
          }
        })
        .sort((a, b) => b.sent - a.sent || b.delivered - a.delivered || (a.provider < b.provider ? -1 : 1))
        .slice(0, params.limit)
      return { ...rangeBody(range), data, total: figures(total) }
    })

    const exportData = method("Analytics.export")(function* (account: Account, params: RangeParams & {
      readonly metrics: ReadonlyArray<ExportMetric>; readonly groupBy: ExportGrouping; readonly categories?: ReadonlyArray<string> | undefined
    }) {
      const range = yield* rangeOf(params)
      const sums = yield* store.analytics.sums(account.id, {
        from: range.from, to: range.to, metrics: params.metrics.map((m) => exportMetrics[m]),
        categories: params.categories, groupBy: ["hour"],
      })
      const counts = sums.map((s) => ({ hour: s.hour!, metric: s.metric, count: s.count }))
      return { ...rangeBody(range), groupBy: params.groupBy, metrics: params.metrics, data: exportRows(range, params.groupBy, params.metrics, counts) }
    })

    return { summary, heatmap, geographic, providers: providersReport, export: exportData } as const
  }),
}) {}
