/** The delivery canary: one row per finished run (platform-wide, no account), listed the latest first; and the raw
 *  message of each dev outbox entry, which the canary reads back in development to check its DKIM signature. */
import type { Migration } from "./migration.js"

export const canaryRuns: Migration = {
  id: 18,
  name: "canary_runs",
  sqlite: [
    `CREATE TABLE canary_runs (
      id TEXT PRIMARY KEY,
      status TEXT NOT NULL,
      recipient TEXT NOT NULL,
      message_id TEXT,
      started_at BIGINT NOT NULL,
      finished_at BIGINT NOT NULL,
      latency_ms INTEGER,
      spf TEXT,
      dkim TEXT,
      dmarc TEXT,
      error TEXT
    )`,
    `CREATE INDEX canary_runs_finished ON canary_runs (finished_at, id)`,
    `ALTER TABLE dev_outbox ADD COLUMN raw TEXT`,
  ],
  pg: [
    `CREATE TABLE canary_runs (
      id TEXT COLLATE "C" PRIMARY KEY,
      status TEXT NOT NULL,
      recipient TEXT NOT NULL,
      message_id TEXT,
      started_at BIGINT NOT NULL,
      finished_at BIGINT NOT NULL,
      latency_ms INTEGER,
      spf TEXT,
      dkim TEXT,
      dmarc TEXT,
      error TEXT
    )`,
    `CREATE INDEX canary_runs_finished ON canary_runs (finished_at, id)`,
    `ALTER TABLE dev_outbox ADD COLUMN raw TEXT`,
  ],
}
