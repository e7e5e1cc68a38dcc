/** Analytics: raw entries per message and recipient (kept 90 days), the hourly rollups (account × category × hour ×
 *  metric × recipient domain × country, kept 13 months) with projections of them that the routes read (per hour without
 *  domain and country; per hour and per day by domain; per hour and per day by country), and the marks of each message and recipient's first open and click
 *  by a person (the unique counts). SQLite keeps the rollups WITHOUT ROWID: a range of the key is then read in key
 *  order with its counts, without a lookup per row. docs/analytics.md. */
import type { Migration } from "./migration.js"

const tables = (text: string, clustered: string) => [
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
  )${clustered}`,
  `CREATE INDEX analytics_rollups_hour ON analytics_rollups (hour)`,
  `CREATE TABLE analytics_hourly (
    account_id TEXT ${text} NOT NULL,
    category TEXT ${text} NOT NULL,
    hour BIGINT NOT NULL,
    metric TEXT ${text} NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (account_id, category, hour, metric)
  )${clustered}`,
  `CREATE INDEX analytics_hourly_hour ON analytics_hourly (hour)`,
  `CREATE TABLE analytics_daily_domains (
    account_id TEXT ${text} NOT NULL,
    category TEXT ${text} NOT NULL,
    day BIGINT NOT NULL,
    metric TEXT ${text} NOT NULL,
    domain TEXT ${text} NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (account_id, category, day, metric, domain)
  )${clustered}`,
  `CREATE INDEX analytics_daily_domains_day ON analytics_daily_domains (day)`,
  `CREATE TABLE analytics_daily_countries (
    account_id TEXT ${text} NOT NULL,
    category TEXT ${text} NOT NULL,
    day BIGINT NOT NULL,
    metric TEXT ${text} NOT NULL,
    country TEXT ${text} NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (account_id, category, day, metric, country)
  )${clustered}`,
  `CREATE INDEX analytics_daily_countries_day ON analytics_daily_countries (day)`,
  `CREATE TABLE analytics_hourly_domains (
    account_id TEXT ${text} NOT NULL,
    category TEXT ${text} NOT NULL,
    hour BIGINT NOT NULL,
    metric TEXT ${text} NOT NULL,
    domain TEXT ${text} NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (account_id, category, hour, metric, domain)
  )${clustered}`,
  `CREATE INDEX analytics_hourly_domains_hour ON analytics_hourly_domains (hour)`,
  `CREATE TABLE analytics_hourly_countries (
    account_id TEXT ${text} NOT NULL,
    category TEXT ${text} NOT NULL,
    hour BIGINT NOT NULL,
    metric TEXT ${text} NOT NULL,
    country TEXT ${text} NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (account_id, category, hour, metric, country)
  )${clustered}`,
  `CREATE INDEX analytics_hourly_countries_hour ON analytics_hourly_countries (hour)`,
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
  sqlite: tables("", " WITHOUT ROWID"),
  pg: tables(`COLLATE "C"`, ""),
}
