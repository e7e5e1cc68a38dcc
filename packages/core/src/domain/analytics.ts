/** Analytics data: what each delivery or engagement event counts as (a metric), the raw entry kept per message and
 *  recipient, and the hourly rollup keys (account × hour × metric × category × recipient domain × country) that every
 *  backend keeps up to date from those entries. Spec: sending "Analytics" (definitions); issue "Open and click
 *  tracking" 4; docs/analytics.md. Pure rules: the memory backend evaluates `rollupRowsOf` itself, the SQL backend
 *  writes the rows it answers, and the mailbox-provider dimension is the recipient's domain (its provider is decided
 *  when the figures are read: mailbox-provider.ts); and the differential test compares the rollups with counts over the raw entries. */
import type { DomainEvent } from "./event.js"
import type { TrackingHit } from "./tracking.js"
import { isPersonHit } from "./tracking.js"
import { recipientDomain } from "./redact.js"

/** sent: submitted to the delivery queue (email.queued); delivered, bounced, deferred: the relay's answers; opened,
 *  clicked: every hit of a person (human or proxy_human, an open implied by a click included); unique_opened,
 *  unique_clicked: the first such open or click of each message and recipient; complained: a feedback-loop complaint;
 *  unsubscribed: every other contact.unsubscribed; machine_opened: opens by machines and bots (Apple Mail Privacy
 *  Protection's prefetch, HEAD requests, crawlers), counted apart; bot_clicked: clicks by bots (scanners, honeypot). */
export const analyticsMetrics = [
  "sent", "delivered", "bounced", "deferred", "opened", "unique_opened", "clicked", "unique_clicked", "complained",
  "unsubscribed", "machine_opened", "bot_clicked",
] as const
export type AnalyticsMetric = (typeof analyticsMetrics)[number]

/** One counted event, kept raw per message and recipient (90 days) and folded into the hourly rollups. */
export interface AnalyticsEntry {
  /** The id of the event or hit it comes from (a unique open or click: that id with `:u`): recorded once. */
  readonly id: string
  readonly accountId: string
  /** null for an unsubscribe or complaint not tied to a message. */
  readonly messageId: string | null
  readonly recipient: string
  readonly metric: AnalyticsMetric
  readonly occurredAt: Date
  /** The message's categories (none for unsubscribes and complaints). */
  readonly categories: ReadonlyArray<string>
  /** ISO 3166-1 alpha-2 of a person's open or click; null otherwise (machines never have one). */
  readonly country: string | null
}

/** The rollup's category of all mail, whatever its categories: the totals read it, so a message counts once. */
export const allCategories = ""
/** The rollup's country for "unknown". */
export const noCountry = ""

export const hourMs = 3_600_000
/** The start of the UTC hour holding `ms`. */
export const hourOf = (ms: number) => Math.floor(ms / hourMs) * hourMs

/** One hourly count. */
export interface RollupRow {
  readonly accountId: string
  /** Start of the UTC hour, epoch milliseconds. */
  readonly hour: number
  readonly metric: AnalyticsMetric
  readonly category: string
  readonly domain: string
  readonly country: string
  readonly count: number
}

export const rollupKey = (row: Omit<RollupRow, "count">) =>
  `${row.accountId}\u0000${row.hour}\u0000${row.metric}\u0000${row.category}\u0000${row.domain}\u0000${row.country}`

/** The rollup rows that `entries` add: each entry counts once under `allCategories` and once under each of its
 *  (distinct) categories. Rows with the same key are summed. */
export const rollupRowsOf = (entries: ReadonlyArray<AnalyticsEntry>): ReadonlyArray<RollupRow> => {
  const rows = new Map<string, { -readonly [K in keyof RollupRow]: RollupRow[K] }>()
  for (const entry of entries) {
    const base = {
      accountId: entry.accountId, hour: hourOf(entry.occurredAt.getTime()), metric: entry.metric,
      domain: recipientDomain(entry.recipient), country: entry.country ?? noCountry,
    }
    for (const category of new Set([allCategories, ...entry.categories])) {
      const row = { ...base, category }
      const key = rollupKey(row)
      const found = rows.get(key)
      if (found === undefined) rows.set(key, { ...row, count: 1 })
      else found.count += 1
    }
  }
  return [...rows.values()]
}

/** The metric of an outbox event, or null when the event counts for nothing. A complaint (contact.unsubscribed with
 *  method complaint) is `complained`, not also `unsubscribed`. */
export const metricOfEvent = (event: DomainEvent): AnalyticsMetric | null => {
  switch (event.type) {
    case "email.queued": return "sent"
    case "email.delivered": return "delivered"
    case "email.bounced": return "bounced"
    case "email.deferred": return "deferred"
    case "contact.unsubscribed": return event.details["method"] === "complaint" ? "complained" : "unsubscribed"
    default: return null
  }
}

/** Event types the analytics consumer reads from the outbox. */
export const analyticsEventTypes = ["email.queued", "email.delivered", "email.bounced", "email.deferred", "contact.unsubscribed"] as const

const messageIdOf = (event: DomainEvent): string | null => {
  const id = event.details["messageId"]
  return typeof id === "string" && event.type.startsWith("email.") ? id : null
}

/** The message ids whose categories the entries of `events` need. */
export const messageIdsOfEvents = (events: ReadonlyArray<DomainEvent>): ReadonlyArray<string> =>
  [...new Set(events.flatMap((event) => {
    const id = metricOfEvent(event) === null ? null : messageIdOf(event)
    return id === null ? [] : [id]
  }))]

/** The entries of outbox events; `categories` answers a message's categories. */
export const entriesOfEvents = (
  events: ReadonlyArray<DomainEvent>,
  categories: (messageId: string) => ReadonlyArray<string>,
): ReadonlyArray<AnalyticsEntry> =>
  events.flatMap((event): ReadonlyArray<AnalyticsEntry> => {
    const metric = metricOfEvent(event)
    const recipient = event.recipient ?? (typeof event.details["contactEmail"] === "string" ? event.details["contactEmail"] : null)
    if (metric === null || recipient === null) return []
    const messageId = messageIdOf(event)
    return [{
      id: event.id, accountId: event.accountId, messageId, recipient: recipient.toLowerCase(), metric,
      occurredAt: event.occurredAt, categories: messageId === null ? [] : categories(messageId), country: null,
    }]
  })

/** A message and recipient whose first open or click counts as unique. */
export interface FirstKey {
  readonly accountId: string
  readonly messageId: string
  readonly recipient: string
  readonly kind: "open" | "click"
}

export const firstKeyOf = (key: FirstKey) => `${key.accountId}\u0000${key.messageId}\u0000${key.recipient}\u0000${key.kind}`

/** The keys that may be first among people's hits: one per message, recipient and kind, the earliest hit's. */
export const firstCandidates = (hits: ReadonlyArray<TrackingHit>): ReadonlyArray<FirstKey & { readonly at: Date }> => {
  const found = new Map<string, FirstKey & { readonly at: Date }>()
  for (const hit of hits) {
    if (!isPersonHit(hit.classification)) continue
    const key = { accountId: hit.accountId, messageId: hit.messageId, recipient: hit.recipient, kind: hit.kind, at: hit.occurredAt }
    const id = firstKeyOf(key)
    const earlier = found.get(id)
    if (earlier === undefined || earlier.at.getTime() > hit.occurredAt.getTime()) found.set(id, key)
  }
  return [...found.values()]
}

/** The entries of tracking hits. `firsts` holds the keys (firstKeyOf) whose first hit is in this set: the earliest
 *  person's hit of each also counts as unique_opened or unique_clicked. */
export const entriesOfHits = (
  hits: ReadonlyArray<TrackingHit>,
  firsts: ReadonlySet<string>,
  categories: (messageId: string) => ReadonlyArray<string>,
): ReadonlyArray<AnalyticsEntry> => {
  const sorted = [...hits].sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime() || (a.id < b.id ? -1 : 1))
  const unique = new Set(firsts)
  return sorted.flatMap((hit): ReadonlyArray<AnalyticsEntry> => {
    const person = isPersonHit(hit.classification)
    const metric: AnalyticsMetric = hit.kind === "open" ? (person ? "opened" : "machine_opened") : (person ? "clicked" : "bot_clicked")
    const entry: AnalyticsEntry = {
      id: hit.id, accountId: hit.accountId, messageId: hit.messageId, recipient: hit.recipient.toLowerCase(), metric,
      occurredAt: hit.occurredAt, categories: categories(hit.messageId), country: person ? hit.country : null,
    }
    if (!person) return [entry]
    const key = firstKeyOf({ accountId: hit.accountId, messageId: hit.messageId, recipient: hit.recipient, kind: hit.kind })
    if (!unique.delete(key)) return [entry]
    return [entry, { ...entry, id: `${hit.id}:u`, metric: hit.kind === "open" ? "unique_opened" : "unique_clicked" }]
  })
}

/** How long raw entries and rollups are kept (docs/analytics.md, "Retention"). */
export const analyticsRetention = { rawDays: 90, rollupMonths: 13 } as const

/** The cut-offs of the retention at `now`: raw entries before `raw`, rollups before `rollups` are pruned. */
export const retentionCutoffs = (now: Date) => {
  const rollups = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - analyticsRetention.rollupMonths, 1))
  return { raw: new Date(now.getTime() - analyticsRetention.rawDays * 86_400_000), rollups }
}
