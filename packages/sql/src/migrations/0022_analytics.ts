/** Analytics: raw entries per message and recipient (kept 90 days), the hourly rollups the routes read (account ×
 *  category × hour × metric × recipient domain × country, kept 13 months), and the marks of each message and
 *  recipient's first open and click by a person (the unique counts). docs/analytics.md. */
import type { Migration } from "./migration.js"

const tables = (text: string) => [
  `CREATE TABLE analytics_entries (
    id TEXT ${text} PRIMARY KEY,
    account_id TEXT ${text} NOT NULL,
    message_id TEXT ${text},
    recipient TEXT NOT NULL,
    metric TEXT NOT NULL,
    occurred_at BIGINT NOT NULL,
    categories TEXT NOT NULL,
    country TEXT
  )`,
  `CREATE INDEX analytics_entries_account ON analytics_entries (account_id, occurred_at)`,
  `CREATE INDEX analytics_entries_time ON analytics_entries (occurred_at)`,
  `CREATE TABLE analytics_rollups (
    account_id TEXT ${text} NOT NULL,
    category TEXT ${text} NOT NULL,
    hour BIGINT NOT NULL,
    metric TEXT ${text} NOT NULL,
    domain TEXT ${text} NOT NULL,
    country TEXT ${text} NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (account_id, category, hour, metric, domain, country)
  )`,
  `CREATE INDEX analytics_rollups_hour ON analytics_rollups (hour)`,
  `CREATE TABLE analytics_firsts (
    account_id TEXT ${text} NOT NULL,
    message_id TEXT ${text} NOT NULL,
    recipient TEXT NOT NULL,
    kind TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (account_id, message_id, recipient, kind)
  )`,
  `CREATE INDEX analytics_firsts_at ON analytics_firsts (at)`,
]

export const analytics: Migration = {
  id: 22,
  name: "analytics",
  sqlite: tables(""),
  pg: tables(`COLLATE "C"`),
}
