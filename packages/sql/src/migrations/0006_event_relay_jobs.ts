/** The event relay and the jobs table. Delivery state leaves the events table: it belongs to each (event, endpoint)
 *  pair, kept by the webhook deliveries. Each relay consumer keeps a cursor in `event_relay_cursors`; `jobs` holds the
 *  job queue of a single-process deployment (SQLite); Postgres deployments queue through pg-boss.
 *
 *  Relay order: SQLite has one writer at a time, so `seq` order is commit order; AUTOINCREMENT keeps a seq from ever
 *  being handed out twice (a plain rowid is reused after the highest rows are deleted, and the reused seq would sit
 *  behind a cursor). Postgres hands out identities before commit, so a transaction holding seq 5 can commit after
 *  one holding seq 6: each event records its transaction id (`xid`), and the relay reads only events whose
 *  transaction is older than every transaction still running, in (xid, seq) order. */
import type { Migration } from "./migration.js"

const cursors = `CREATE TABLE event_relay_cursors (
  consumer TEXT PRIMARY KEY,
  xid BIGINT NOT NULL DEFAULT 0,
  seq BIGINT NOT NULL DEFAULT 0,
  updated_at BIGINT NOT NULL
)`

const jobs = `CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  payload TEXT NOT NULL,
  dedupe_key TEXT,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  run_at BIGINT NOT NULL,
  started_at BIGINT,
  created_at BIGINT NOT NULL,
  finished_at BIGINT,
  last_error TEXT
)`

const jobIndexes = [
  `CREATE INDEX jobs_due ON jobs (name, run_at) WHERE state = 'pending'`,
  `CREATE INDEX jobs_running ON jobs (name) WHERE state = 'running'`,
  `CREATE UNIQUE INDEX jobs_dedupe ON jobs (name, dedupe_key) WHERE dedupe_key IS NOT NULL AND state IN ('pending', 'running')`,
]

export const eventRelayJobs: Migration = {
  // Position in the list; this migration was planned as number 7 and keeps that module name.
  id: 6,
  name: "event_relay_jobs",
  sqlite: [
    `CREATE TABLE events_next (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL,
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      type TEXT NOT NULL,
      recipient TEXT,
      details TEXT NOT NULL,
      occurred_at BIGINT NOT NULL,
      CONSTRAINT events_id_key UNIQUE (id)
    )`,
    `INSERT INTO events_next (seq, id, account_id, type, recipient, details, occurred_at)
      SELECT seq, id, account_id, type, recipient, details, occurred_at FROM events ORDER BY seq`,
    `DROP TABLE events`,
    `ALTER TABLE events_next RENAME TO events`,
    `CREATE INDEX events_account_occurred ON events (account_id, occurred_at, seq)`,
    cursors,
    jobs,
    ...jobIndexes,
  ],
  pg: [
    `ALTER TABLE events DROP COLUMN delivered_at, DROP COLUMN attempts`,
    `ALTER TABLE events ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id()`,
    `CREATE INDEX events_relay ON events (xid, seq)`,
    cursors,
    jobs.replace("id TEXT PRIMARY KEY", `id TEXT COLLATE "C" PRIMARY KEY`),
    ...jobIndexes,
  ],
}
