/** The events outbox: appended in the transaction of the change it describes, relayed to webhooks later.
 *  `seq` keeps append order; `delivered_at` and `attempts` belong to the relay. */
import type { Migration } from "./migration.js"

export const events: Migration = {
  id: 2,
  name: "events",
  sqlite: [
    `CREATE TABLE events (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL,
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      type TEXT NOT NULL,
      recipient TEXT,
      details TEXT NOT NULL,
      occurred_at BIGINT NOT NULL,
      delivered_at BIGINT,
      attempts INTEGER NOT NULL DEFAULT 0,
      CONSTRAINT events_id_key UNIQUE (id)
    )`,
    `CREATE INDEX events_account_occurred ON events (account_id, occurred_at, seq)`,
    `CREATE INDEX events_undelivered ON events (seq) WHERE delivered_at IS NULL`,
  ],
  pg: [
    `CREATE TABLE events (
      seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id TEXT COLLATE "C" NOT NULL,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      type TEXT NOT NULL,
      recipient TEXT,
      details JSON NOT NULL,
      occurred_at BIGINT NOT NULL,
      delivered_at BIGINT,
      attempts INTEGER NOT NULL DEFAULT 0,
      CONSTRAINT events_id_key UNIQUE (id)
    )`,
    `CREATE INDEX events_account_occurred ON events (account_id, occurred_at, seq)`,
    `CREATE INDEX events_undelivered ON events (seq) WHERE delivered_at IS NULL`,
  ],
}
