/** Open and click tracking: every recorded hit (message, recipient, time, kind, classification, country; the link for
 *  a click), the raw rows the analytics rollups are built from, and the mark of each message and recipient whose open
 *  fired email.opened (API mail fires it once). No address or user agent is kept. */
import type { Migration } from "./migration.js"

export const trackingHits: Migration = {
  id: 19,
  name: "tracking_hits",
  sqlite: [
    `CREATE TABLE tracking_hits (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      message_id TEXT NOT NULL,
      recipient TEXT NOT NULL,
      kind TEXT NOT NULL,
      classification TEXT NOT NULL,
      signal TEXT NOT NULL,
      occurred_at BIGINT NOT NULL,
      country TEXT,
      url TEXT,
      position INTEGER,
      campaign_id TEXT
    )`,
    `CREATE INDEX tracking_hits_message ON tracking_hits (account_id, message_id, occurred_at)`,
    `CREATE INDEX tracking_hits_time ON tracking_hits (occurred_at)`,
    `CREATE TABLE tracking_opened (
      account_id TEXT NOT NULL,
      message_id TEXT NOT NULL,
      recipient TEXT NOT NULL,
      opened_at BIGINT NOT NULL,
      PRIMARY KEY (account_id, message_id, recipient)
    )`,
  ],
  pg: [
    `CREATE TABLE tracking_hits (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL,
      message_id TEXT COLLATE "C" NOT NULL,
      recipient TEXT NOT NULL,
      kind TEXT NOT NULL,
      classification TEXT NOT NULL,
      signal TEXT NOT NULL,
      occurred_at BIGINT NOT NULL,
      country TEXT,
      url TEXT,
      position INTEGER,
      campaign_id TEXT
    )`,
    `CREATE INDEX tracking_hits_message ON tracking_hits (account_id, message_id, occurred_at)`,
    `CREATE INDEX tracking_hits_time ON tracking_hits (occurred_at)`,
    `CREATE TABLE tracking_opened (
      account_id TEXT COLLATE "C" NOT NULL,
      message_id TEXT COLLATE "C" NOT NULL,
      recipient TEXT NOT NULL,
      opened_at BIGINT NOT NULL,
      PRIMARY KEY (account_id, message_id, recipient)
    )`,
  ],
}
