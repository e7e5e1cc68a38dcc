/** Webhook endpoints with their subscriptions (the `events` column for reads, one row per type for fan-out), and the delivery state of each (event, endpoint) pair: deliveries with
 *  their attempts. Secrets are stored sealed (the stores never see them in clear). A delivery keeps the request body
 *  it sends, so that every attempt signs the same bytes. Deliveries and attempts go with their endpoint (ON DELETE
 *  CASCADE). Indexes: fan-out finds the subscribed endpoints of an account by event type; the delivery history walks
 *  (endpoint_id, created_at, id) newest first; stats and the purge read attempts by start time. */
import type { Migration } from "./migration.js"

const tables = (dialect: "sqlite" | "pg") => {
  const text = dialect === "pg" ? `TEXT COLLATE "C"` : "TEXT"
  const boolean = dialect === "pg" ? "BOOLEAN" : "INTEGER"
  return [
    `CREATE TABLE webhook_endpoints (
      id ${text} PRIMARY KEY,
      account_id ${text} NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      url TEXT NOT NULL,
      events TEXT NOT NULL,
      description TEXT,
      active ${boolean} NOT NULL,
      secret_prefix TEXT NOT NULL,
      sealed_secret TEXT NOT NULL,
      sealed_previous_secret TEXT,
      previous_secret_expires_at BIGINT,
      failure_settings TEXT NOT NULL,
      consecutive_failures INTEGER NOT NULL,
      streak_notified ${boolean} NOT NULL,
      disabled_reason TEXT,
      disabled_at BIGINT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
    `CREATE INDEX webhook_endpoints_account_created ON webhook_endpoints (account_id, created_at, id)`,
    `CREATE TABLE webhook_subscriptions (
      endpoint_id ${text} NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      account_id ${text} NOT NULL,
      event_type ${text} NOT NULL,
      PRIMARY KEY (endpoint_id, event_type)
    )`,
    `CREATE INDEX webhook_subscriptions_account_type ON webhook_subscriptions (account_id, event_type)`,
    `CREATE TABLE webhook_deliveries (
      id ${text} PRIMARY KEY,
      account_id ${text} NOT NULL,
      endpoint_id ${text} NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      event_id ${text},
      event_type ${text} NOT NULL,
      kind TEXT NOT NULL,
      payload TEXT NOT NULL,
      status ${text} NOT NULL,
      attempts INTEGER NOT NULL,
      last_status_code INTEGER,
      last_error TEXT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      completed_at BIGINT,
      CONSTRAINT webhook_deliveries_event_endpoint_key UNIQUE (event_id, endpoint_id)
    )`,
    `CREATE INDEX webhook_deliveries_endpoint_created ON webhook_deliveries (endpoint_id, created_at, id)`,
    `CREATE TABLE webhook_attempts (
      id ${text} PRIMARY KEY,
      account_id ${text} NOT NULL,
      delivery_id ${text} NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
      endpoint_id ${text} NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      attempt INTEGER NOT NULL,
      succeeded ${boolean} NOT NULL,
      status_code INTEGER,
      duration_ms INTEGER NOT NULL,
      response_snippet TEXT,
      error TEXT,
      started_at BIGINT NOT NULL
    )`,
    `CREATE INDEX webhook_attempts_endpoint_started ON webhook_attempts (endpoint_id, started_at)`,
    `CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, attempt)`,
    `CREATE INDEX webhook_attempts_started ON webhook_attempts (started_at)`,
  ]
}

export const webhooks: Migration = {
  // Number 8 in the plan of this wave; it takes the next free position when the migrations before it land.
  id: 7,
  name: "webhooks",
  sqlite: tables("sqlite"),
  pg: tables("pg"),
}
