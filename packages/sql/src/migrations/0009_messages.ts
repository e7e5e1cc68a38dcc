/** Sending: messages with their content, their recipients with delivery status, per-recipient events for GET
 *  /emails/{id}, the monthly quota counters and the idempotency records of the sending routes.
 *  The module keeps its planned number 9; its id is the next free position in the list.
 *  Indexes: due scheduled messages are found by (scheduled_for) among scheduled ones only; held or deferred
 *  recipients of an account by (account_id, status, updated_at); a message's events by (message_id, seq). */
import type { Migration } from "./migration.js"

export const messages: Migration = {
  id: 9,
  name: "messages",
  sqlite: [
    `CREATE TABLE messages (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      batch_id TEXT,
      state TEXT NOT NULL,
      stream TEXT NOT NULL,
      topic_id TEXT,
      from_email TEXT NOT NULL,
      subject TEXT NOT NULL,
      content TEXT NOT NULL,
      scheduled_for BIGINT,
      created_at BIGINT NOT NULL
    )`,
    `CREATE INDEX messages_account_created ON messages (account_id, created_at, id)`,
    `CREATE INDEX messages_due ON messages (scheduled_for, id) WHERE state = 'scheduled'`,
    `CREATE TABLE message_recipients (
      message_id TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
      position INTEGER NOT NULL,
      account_id TEXT NOT NULL,
      email TEXT NOT NULL,
      name TEXT,
      field TEXT NOT NULL,
      status TEXT NOT NULL,
      attempts INTEGER NOT NULL,
      last_response TEXT,
      updated_at BIGINT NOT NULL,
      PRIMARY KEY (message_id, position)
    )`,
    `CREATE INDEX message_recipients_account_status ON message_recipients (account_id, status, updated_at)`,
    `CREATE TABLE message_events (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      account_id TEXT NOT NULL,
      message_id TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
      recipient TEXT NOT NULL,
      type TEXT NOT NULL,
      occurred_at BIGINT NOT NULL,
      smtp_response TEXT,
      bounce_type TEXT,
      bounce_code TEXT,
      bounce_reason TEXT
    )`,
    `CREATE INDEX message_events_message ON message_events (message_id, occurred_at, seq)`,
    `CREATE TABLE send_quota (
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      period TEXT NOT NULL,
      used INTEGER NOT NULL,
      PRIMARY KEY (account_id, period)
    )`,
    `CREATE TABLE idempotency_keys (
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      key TEXT NOT NULL,
      route TEXT NOT NULL,
      body_hash TEXT NOT NULL,
      status INTEGER NOT NULL,
      response TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (account_id, key)
    )`,
  ],
  pg: [
    `CREATE TABLE messages (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      batch_id TEXT COLLATE "C",
      state TEXT NOT NULL,
      stream TEXT NOT NULL,
      topic_id TEXT COLLATE "C",
      from_email TEXT NOT NULL,
      subject TEXT NOT NULL,
      content JSON NOT NULL,
      scheduled_for BIGINT,
      created_at BIGINT NOT NULL
    )`,
    `CREATE INDEX messages_account_created ON messages (account_id, created_at, id)`,
    `CREATE INDEX messages_due ON messages (scheduled_for, id) WHERE state = 'scheduled'`,
    `CREATE TABLE message_recipients (
      message_id TEXT COLLATE "C" NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
      position INTEGER NOT NULL,
      account_id TEXT COLLATE "C" NOT NULL,
      email TEXT NOT NULL,
      name TEXT,
      field TEXT NOT NULL,
      status TEXT NOT NULL,
      attempts INTEGER NOT NULL,
      last_response TEXT,
      updated_at BIGINT NOT NULL,
      PRIMARY KEY (message_id, position)
    )`,
    `CREATE INDEX message_recipients_account_status ON message_recipients (account_id, status, updated_at)`,
    `CREATE TABLE message_events (
      seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id TEXT COLLATE "C" NOT NULL UNIQUE,
      account_id TEXT COLLATE "C" NOT NULL,
      message_id TEXT COLLATE "C" NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
      recipient TEXT NOT NULL,
      type TEXT NOT NULL,
      occurred_at BIGINT NOT NULL,
      smtp_response TEXT,
      bounce_type TEXT,
      bounce_code TEXT,
      bounce_reason TEXT
    )`,
    `CREATE INDEX message_events_message ON message_events (message_id, occurred_at, seq)`,
    `CREATE TABLE send_quota (
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      period TEXT COLLATE "C" NOT NULL,
      used INTEGER NOT NULL,
      PRIMARY KEY (account_id, period)
    )`,
    `CREATE TABLE idempotency_keys (
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      key TEXT COLLATE "C" NOT NULL,
      route TEXT NOT NULL,
      body_hash TEXT NOT NULL,
      status INTEGER NOT NULL,
      response JSON NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (account_id, key)
    )`,
  ],
}
