/** The analytics suite, run by every backend against its own Store: rollups that equal the counts over the raw
 *  entries (a fast-check differential test), recording from the outbox and from tracking hits (exactly once, machines
 *  apart), and the figures of summary, heatmap, geographic, providers and export (docs/analytics.md). */
import { describe, expect, it } from "@effect/vitest"
import {
  Accounts, type Account, Analytics, type AnalyticsEntry, analyticsEventTypes, analyticsMetrics, type Campaign,
  campaignCategory, type CampaignId, campaignMessage, Dns, EmailAddressInput, emailEvent, enqueueEach, Ids, IdsLive, JobQueue, type JobQueueService, recordEventAnalytics, rollupKey, rollupRowsOf,
  servicesLayer, Store, Tokens, Tracking, type TrackingRequest,
} from "@mailroom/core"
import { Effect, FastCheck as fc, Layer, Schema } from "effect"
import { sendBodyTo, storeAcceptedMessage } from "./accepted-message.js"
import { makeCaptureMailer } from "./capture-mailer.js"
import { testTemplateEngine } from "./template-engine.js"

const chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
const person = (country?: string): TrackingRequest => ({
  method: "GET",
  headers: new Headers({ "user-agent": chrome, ...(country === undefined ? {} : { "cf-ipcountry": country }) }),
  address: "198.51.100.7",
  trustedProxy: country !== undefined,
})
const applePrefetch: TrackingRequest = { method: "GET", headers: new Headers({ "user-agent": "Mozilla/5.0" }), address: "17.58.3.4", trustedProxy: false }
const tokenOf = (url: string) => url.slice(url.lastIndexOf("/") + 1)
const day = 86_400_000
/** The whole first day of the epoch: TestClock starts there, so events recorded now fall in it. */
const firstDay = { from: "1970-01-01", to: "1970-01-01" }

/** Random entries of one account: metrics, hours over three days, categories, domains and countries. */
const entriesArbitrary = (accountId: string) =>
  fc.array(fc.record({
    metric: fc.constantFrom(...analyticsMetrics),
    at: fc.integer({ min: 0, max: 3 * day - 1 }),
    categories: fc.uniqueArray(fc.constantFrom("news", "billing", "alerts"), { maxLength: 3 }),
    domain: fc.constantFrom("gmail.com", "yahoo.com", "corp.example"),
    country: fc.constantFrom(null, "DE", "FR", "US"),
  }), { minLength: 1, maxLength: 60 }).map((rows) => rows.map((row, i): AnalyticsEntry => ({
    id: `${accountId}_e${i}`, accountId, messageId: `msg_${i % 7}`, recipient: `r${i % 5}@${row.domain}`, metric: row.metric,
    occurredAt: new Date(row.at), categories: row.categories, country: row.country,
  })))

const sortRows = <A extends { readonly accountId?: string }>(rows: ReadonlyArray<A>, key: (row: A) => string) =>
  [...rows].sort((a, b) => key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)

export const analyticsSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  describe(`analytics (${backend})`, () => {
    const enqueue: JobQueueService["enqueue"] = () => Effect.succeed("job")
    const queue = Layer.succeed(JobQueue, { enqueue, enqueueAll: enqueueEach(enqueue), work: () => Effect.void })
    /** MX lookups answered by a table, counted. */
    const mxLookups: Array<string> = []
    const mx: Record<string, string> = { "corp.example": "corp-example.mail.protection.outlook.com", "shop.example": "aspmx.l.google.com" }
    const dns = Layer.succeed(Dns, {
      lookupAddresses: () => Effect.succeed([]),
      resolveTxt: () => Effect.succeed([]),
      resolveCname: () => Effect.succeed([]),
      resolveMx: (host) => Effect.sync(() => {
        mxLookups.push(host)
        return mx[host] === undefined ? [] : [{ exchange: mx[host], priority: 10 }]
      }),
    })
    const layer = Layer.mergeAll(
      Layer.fresh(servicesLayer).pipe(Layer.provideMerge(Layer.mergeAll(storeLayer, IdsLive, testTemplateEngine))),
      queue, makeCaptureMailer().layer, dns,
    )
    const setup = Effect.map(Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "analytics suite", plan: "pro" })), (r) => r.account)
    /** What the analytics consumer does with the outbox, under its own name: until nothing is left. */
    const relay = Effect.gen(function* () {
      const store = yield* Store
      let total = 0
      for (;;) {
        const moved = yield* store.events.relay("analytics-suite", 500, recordEventAnalytics, analyticsEventTypes)
        total += moved
        if (moved === 0) return total
      }
    })
    const delivered = (account: Account, messageId: string, recipient: string, type: "email.delivered" | "email.bounced" | "email.deferred", at = 0) =>
      Effect.flatMap(Store, (store) => store.events.append([emailEvent({
        id: `evt_${messageId}_${recipient}_${type}_${at}`, accountId: account.id, type, messageId, recipient, sender: "news@example.com",
        subject: "Hello", occurredAt: new Date(at), metadata: null,
      })]))

    it.layer(layer, { timeout: "120 seconds" })((it) => {
      it.effect("the rollups equal the counts over the raw entries, however the entries arrive (differential)", () =>
        Effect.gen(function* () {
          const store = yield* Store
          const runs = fc.sample(fc.tuple(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 10 })), { numRuns: 12, seed: 20261129 })
          for (const [chunk, repeat] of runs) {
            const account = yield* setup
            const entries = fc.sample(entriesArbitrary(account.id), { numRuns: 1, seed: chunk * 31 + repeat })[0]!
            for (let i = 0; i < entries.length; i += chunk) yield* store.analytics.record(entries.slice(i, i + chunk))
            // A batch recorded again (a relay batch offered twice) counts nothing twice.
            expect(yield* store.analytics.record(entries.slice(0, repeat))).toBe(0)
            const raw = yield* store.analytics.entries(account.id, new Date(0), new Date(3 * day))
            expect(raw).toHaveLength(entries.length)
            const fromRaw = rollupRowsOf(raw)
            const sums = yield* store.analytics.sums(account.id, {
              from: new Date(0), to: new Date(3 * day), categories: ["", "news", "billing", "alerts"], groupBy: ["hour", "category", "domain", "country"],
            })
            const fromRollups = sums.map((s) => ({
              accountId: account.id, hour: s.hour!, metric: s.metric, category: s.category!, domain: s.domain!, country: s.country!, count: s.count,
            }))
            expect(sortRows(fromRollups, rollupKey)).toEqual(sortRows(fromRaw, rollupKey))
            // Over a range that starts and ends inside a day, by domain and country, and by category alone.
            const from = new Date(5 * 3_600_000)
            const to = new Date(2 * day + 7 * 3_600_000)
            const inRange = raw.filter((e) => e.occurredAt >= from && e.occurredAt < to)
            const fold = (rows: ReadonlyArray<{ readonly metric: string; readonly category?: string | undefined; readonly domain?: string | undefined; readonly country?: string | undefined; readonly count: number }>) => {
              const folded = new Map<string, number>()
              for (const r of rows) {
                const key = JSON.stringify([r.metric, r.category ?? "", r.domain ?? "", r.country ?? ""])
                folded.set(key, (folded.get(key) ?? 0) + r.count)
              }
              return [...folded.entries()].sort()
            }
            const byDimension = yield* store.analytics.sums(account.id, { from, to, categories: ["", "news"], groupBy: ["category", "domain", "country"] })
            expect(fold(byDimension)).toEqual(fold(rollupRowsOf(inRange).filter((r) => r.category === "" || r.category === "news")))
            const byDomain = yield* store.analytics.sums(account.id, { from, to, groupBy: ["domain"] })
            expect(fold(byDomain)).toEqual(fold(rollupRowsOf(inRange).filter((r) => r.category === "").map((r) => ({ metric: r.metric, domain: r.domain, count: r.count }))))
            const byCountry = yield* store.analytics.sums(account.id, { from, to, metrics: ["opened", "clicked"], knownCountry: true, groupBy: ["country"] })
            expect(fold(byCountry)).toEqual(fold(rollupRowsOf(inRange)
              .filter((r) => r.category === "" && r.country !== "" && (r.metric === "opened" || r.metric === "clicked"))
              .map((r) => ({ metric: r.metric, country: r.country, count: r.count }))))
            const oneCountry = yield* store.analytics.sums(account.id, { from, to, country: "DE", groupBy: [] })
            expect(fold(oneCountry)).toEqual(fold(rollupRowsOf(inRange).filter((r) => r.category === "" && r.country === "DE").map((r) => ({ metric: r.metric, count: r.count }))))
            const byCategory = yield* store.analytics.sums(account.id, { from, to, categories: ["billing", "alerts"], groupBy: ["category"] })
            expect(fold(byCategory)).toEqual(fold(rollupRowsOf(inRange).filter((r) => r.category === "billing" || r.category === "alerts")
              .map((r) => ({ metric: r.metric, category: r.category, count: r.count }))))
            // And each metric's total over all mail is the number of raw entries of that metric.
            const totals = yield* store.analytics.sums(account.id, { from: new Date(0), to: new Date(3 * day), groupBy: [] })
            for (const metric of analyticsMetrics) {
              expect(totals.find((t) => t.metric === metric)?.count ?? 0).toBe(raw.filter((e) => e.metric === metric).length)
            }
          }
        }))

      it.effect("outbox events and tracking hits are counted once each; machines apart, left out of openRate", () =>
        Effect.gen(function* () {
          const analytics = yield* Analytics
          const tracking = yield* Tracking
          const tokens = yield* Tokens
          const account = yield* setup
          const other = yield* setup
          const news = yield* storeAcceptedMessage(account.id, sendBodyTo(["ann@gmail.com", "bob@yahoo.com"], { categories: ["news"] }))
          const bill = yield* storeAcceptedMessage(account.id, sendBodyTo(["cy@corp.example", "di@gmail.com"], { categories: ["billing"] }))
          yield* delivered(account, news.id, "ann@gmail.com", "email.delivered")
          yield* delivered(account, news.id, "bob@yahoo.com", "email.deferred")
          yield* delivered(account, news.id, "bob@yahoo.com", "email.delivered")
          yield* delivered(account, bill.id, "cy@corp.example", "email.delivered")
          yield* delivered(account, bill.id, "di@gmail.com", "email.bounced")
          expect(yield* relay).toBeGreaterThan(0)
          // Ann opens twice and clicks once (people), Apple's prefetch opens Bob's; Cy clicks (an implied open).
          const ann = yield* tokens.trackingLinks({ accountId: account.id, recipient: "ann@gmail.com", messageId: news.id })
          const bob = yield* tokens.trackingLinks({ accountId: account.id, recipient: "bob@yahoo.com", messageId: news.id })
          const cy = yield* tokens.trackingLinks({ accountId: account.id, recipient: "cy@corp.example", messageId: bill.id })
          yield* tracking.open(tokenOf(ann.pixel), person("DE"))
          yield* tracking.open(tokenOf(ann.pixel), person("DE"))
          yield* tracking.click(tokenOf(ann.click("https://shop.example.com/", 0)), person("DE"))
          yield* tracking.open(tokenOf(bob.pixel), applePrefetch)
          yield* tracking.click(tokenOf(cy.click("https://shop.example.com/", 0)), person("FR"))
          yield* tracking.flush
          yield* relay
          const summary = yield* analytics.summary(account, firstDay)
          expect(summary.totals).toEqual({
            sent: 4, delivered: 3, bounced: 1, deferred: 1, opened: 3, uniqueOpens: 2, clicked: 2, uniqueClicks: 2,
            complained: 0, unsubscribed: 0, machineOpened: 1, botClicked: 0,
          })
          expect(summary.rates).toEqual({
            deliveryRate: 75, bounceRate: 25, openRate: 66.67, clickRate: 66.67, clickToOpenRate: 100, complaintRate: 0, unsubscribeRate: 0,
          })
          expect(summary).toMatchObject({ from: "1970-01-01T00:00:00.000Z", to: "1970-01-02T00:00:00.000Z", quotaLimit: 50_000 })
          // Recording the same events again changes nothing.
          const store = yield* Store
          yield* recordEventAnalytics(yield* store.events.list(account.id))
          expect((yield* analytics.summary(account, firstDay)).totals).toEqual(summary.totals)
          // Another account sees none of it.
          expect((yield* analytics.summary(other, firstDay)).totals.sent).toBe(0)

          const geo = yield* analytics.geographic(other, { ...firstDay, metric: "opens" })
          expect(geo.data).toEqual([])
          const opens = yield* analytics.geographic(account, { ...firstDay, metric: "opens" })
          expect(opens).toMatchObject({ metric: "opens", total: 3, data: [
            { country: "DE", countryName: "Germany", value: 2, percentage: 66.67 },
            { country: "FR", countryName: "France", value: 1, percentage: 33.33 },
          ] })
          expect((yield* analytics.geographic(account, { ...firstDay, metric: "clicks", country: "FR" })).data)
            .toEqual([{ country: "FR", countryName: "France", value: 1, percentage: 100 }])

          mxLookups.length = 0
          const providers = yield* analytics.providers(account, { ...firstDay, limit: 10 })
          expect(providers.data).toEqual([
            { provider: "Gmail", domain: "gmail.com", sent: 2, delivered: 1, bounced: 1, opened: 2, clicked: 1, complained: 0, deliveryRate: 50, openRate: 100, clickRate: 100 },
            { provider: "Microsoft 365", domain: "corp.example", sent: 1, delivered: 1, bounced: 0, opened: 1, clicked: 1, complained: 0, deliveryRate: 100, openRate: 100, clickRate: 100 },
            { provider: "Yahoo", domain: "yahoo.com", sent: 1, delivered: 1, bounced: 0, opened: 0, clicked: 0, complained: 0, deliveryRate: 100, openRate: 0, clickRate: 0 },
          ])
          expect(providers.total).toEqual({ sent: 4, delivered: 3, bounced: 1, opened: 3, clicked: 2, complained: 0 })
          expect((yield* analytics.providers(account, { ...firstDay, limit: 1 })).data.map((p) => p.provider)).toEqual(["Gmail"])
          // The MX host of a custom domain is looked up once, then remembered.
          expect(mxLookups).toEqual(["corp.example"])

          const exported = yield* analytics.export(account, { ...firstDay, metrics: ["deliveries", "opens"], groupBy: "day", categories: ["billing"] })
          expect(exported.data).toEqual([{ date: "1970-01-01", deliveries: 1, opens: 1 }])
          const all = yield* analytics.export(account, { from: "1970-01-01", to: "1970-01-10", metrics: ["deliveries", "bounces", "clicks"], groupBy: "week" })
          expect(all.data).toEqual([{ date: "1969-12-29", deliveries: 3, bounces: 1, clicks: 2 }, { date: "1970-01-05", deliveries: 0, bounces: 0, clicks: 0 }])
        }))

      it.effect("campaign mail is counted under the category campaign: its deliveries and opens read apart from API mail", () =>
        Effect.gen(function* () {
          const store = yield* Store
          const ids = yield* Ids
          const analytics = yield* Analytics
          const tracking = yield* Tracking
          const tokens = yield* Tokens
          const account = yield* setup
          const at = new Date(0)
          const campaign: Campaign = {
            id: ids.make("campaign", at) as CampaignId, accountId: account.id, name: "March news", status: "running", listIds: ["lst_news"],
            topicId: null, templateId: null, brandId: null, subject: "News", html: "<p>News</p>", text: null,
            from: Schema.decodeUnknownSync(EmailAddressInput)({ email: "news@example.com" }), replyTo: null, variables: {}, scheduledAt: null, startedAt: at, finishedAt: null,
            stopReason: null, audienceSize: 2, cursor: null, queuedAt: null, sendCursor: null, createdAt: at, updatedAt: at,
          }
          // The messages as a campaign send run writes them, beside one API message in no category.
          const messages = ["eve@gmail.com", "fay@yahoo.com"].map((email, i) => campaignMessage(campaign, {
            contactId: `con_${i}`, email, messageId: ids.make("message", at), firstName: null, lastName: null, customFields: {},
          }, true, 1, at))
          yield* store.messages.insertMany(messages)
          const api = yield* storeAcceptedMessage(account.id, sendBodyTo(["gus@gmail.com"]))
          for (const message of messages) yield* delivered(account, message.id, message.recipients[0]!.email, "email.delivered")
          yield* delivered(account, api.id, "gus@gmail.com", "email.delivered")
          yield* relay
          const eve = yield* tokens.trackingLinks({ accountId: account.id, recipient: "eve@gmail.com", messageId: messages[0]!.id })
          const gus = yield* tokens.trackingLinks({ accountId: account.id, recipient: "gus@gmail.com", messageId: api.id })
          yield* tracking.open(tokenOf(eve.pixel), person("DE"))
          yield* tracking.open(tokenOf(gus.pixel), person("DE"))
          yield* tracking.flush
          const byCampaign = yield* analytics.export(account, { ...firstDay, metrics: ["deliveries", "opens"], groupBy: "day", categories: [campaignCategory] })
          expect(byCampaign.data).toEqual([{ date: "1970-01-01", deliveries: 2, opens: 1 }])
          const sums = yield* store.analytics.sums(account.id, { from: new Date(0), to: new Date(day), categories: [campaignCategory], metrics: ["delivered", "unique_opened"], groupBy: [] })
          expect(Object.fromEntries(sums.map((s) => [s.metric, s.count]))).toEqual({ delivered: 2, unique_opened: 1 })
          // All mail still counts each message once.
          expect((yield* analytics.summary(account, firstDay)).totals).toMatchObject({ delivered: 3, opened: 2, uniqueOpens: 2 })
        }))

      it.effect("the heatmap places each hour in the timezone asked, day 0 being Sunday; an unknown timezone is refused", () =>
        Effect.gen(function* () {
          const store = yield* Store
          const analytics = yield* Analytics
          const account = yield* setup
          // Sunday 1 March 2026, 23:30 UTC: Monday 00:30 in Paris, Sunday 15:30 in Los Angeles.
          const at = new Date("2026-03-01T23:30:00Z")
          yield* store.analytics.record([0, 1, 2].map((i): AnalyticsEntry => ({
            id: `${account.id}_h${i}`, accountId: account.id, messageId: "msg_h", recipient: `r${i}@gmail.com`,
            metric: i === 2 ? "delivered" : "opened", occurredAt: at, categories: [], country: null,
          })))
          const range = { from: "2026-03-01", to: "2026-03-02" }
          const cell = (data: ReadonlyArray<{ day: number; hour: number; value: number }>) => data.filter((c) => c.value > 0)
          const utc = yield* analytics.heatmap(account, { ...range, metric: "opens", timezone: "UTC" })
          expect(utc.data).toHaveLength(168)
          expect(cell(utc.data)).toEqual([{ day: 0, hour: 23, value: 2 }])
          expect(cell((yield* analytics.heatmap(account, { ...range, metric: "opens", timezone: "Europe/Paris" })).data)).toEqual([{ day: 1, hour: 0, value: 2 }])
          expect(cell((yield* analytics.heatmap(account, { ...range, metric: "deliveries", timezone: "America/Los_Angeles" })).data)).toEqual([{ day: 0, hour: 15, value: 1 }])
          expect(cell((yield* analytics.heatmap(account, { ...range, metric: "clicks", timezone: "UTC" })).data)).toEqual([])
          // Summer time in Paris starts at 01:00 UTC on Sunday 29 March 2026: 00:30 UTC is 01:30 there, 01:30 UTC is 03:30.
          yield* store.analytics.record(["2026-03-29T00:30:00Z", "2026-03-29T01:30:00Z"].map((time, i): AnalyticsEntry => ({
            id: `${account.id}_dst${i}`, accountId: account.id, messageId: "msg_h", recipient: "dst@gmail.com",
            metric: "clicked", occurredAt: new Date(time), categories: [], country: null,
          })))
          expect(cell((yield* analytics.heatmap(account, { from: "2026-03-28", to: "2026-03-30", metric: "clicks", timezone: "Europe/Paris" })).data))
            .toEqual([{ day: 0, hour: 1, value: 1 }, { day: 0, hour: 3, value: 1 }])
          const refused = yield* Effect.flip(analytics.heatmap(account, { ...range, metric: "opens", timezone: "Mars/Olympus" }))
          expect(refused).toMatchObject({ code: "VALIDATION_ERROR", field: "timezone" })
        }))

      it.effect("ranges: defaults of 30 days to now; reversed, too long or malformed ranges are refused", () =>
        Effect.gen(function* () {
          const analytics = yield* Analytics
          const account = yield* setup
          const fallback = yield* analytics.summary(account, {})
          expect(new Date(fallback.to).getTime() - new Date(fallback.from).getTime()).toBe(30 * day + 3_600_000)
          expect(yield* Effect.flip(analytics.summary(account, { from: "2026-03-02", to: "2026-03-01" }))).toMatchObject({ code: "VALIDATION_ERROR", field: "from" })
          expect(yield* Effect.flip(analytics.summary(account, { from: "2024-01-01", to: "2026-03-01" }))).toMatchObject({ code: "VALIDATION_ERROR", field: "to" })
          expect(yield* Effect.flip(analytics.summary(account, { from: "yesterday" }))).toMatchObject({ code: "VALIDATION_ERROR", field: "from" })
          expect(yield* Effect.flip(analytics.summary(account, { to: "2026-02-30" }))).toMatchObject({ code: "VALIDATION_ERROR", field: "to" })
        }))

      it.effect("pruning deletes raw entries past 90 days and rollups past 13 months, and keeps the rest", () =>
        Effect.gen(function* () {
          const store = yield* Store
          const account = yield* setup
          const entry = (id: string, at: string): AnalyticsEntry => ({
            id: `${account.id}_${id}`, accountId: account.id, messageId: null, recipient: "a@gmail.com", metric: "unsubscribed",
            occurredAt: new Date(at), categories: [], country: null,
          })
          yield* store.analytics.record([entry("old", "2024-01-10T00:00:00Z"), entry("mid", "2025-06-10T00:00:00Z"), entry("new", "2026-03-01T00:00:00Z")])
          yield* store.analytics.prune(new Date("2025-12-01T00:00:00Z"), new Date("2025-01-01T00:00:00Z"))
          const raw = yield* store.analytics.entries(account.id, new Date(0), new Date("2027-01-01T00:00:00Z"))
          expect(raw.map((e) => e.id)).toEqual([`${account.id}_new`])
          const sums = yield* store.analytics.sums(account.id, { from: new Date(0), to: new Date("2027-01-01T00:00:00Z"), groupBy: ["hour"] })
          expect(sums.map((s) => new Date(s.hour!).toISOString()).sort()).toEqual(["2025-06-10T00:00:00.000Z", "2026-03-01T00:00:00.000Z"])
        }))
    })
  })
