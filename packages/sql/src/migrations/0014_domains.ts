/** Sending domains: one row per domain, unique by (account_id, hostname). The state of the four records is JSON, read
 *  and written whole with the domain; the DKIM private key is stored sealed (AES-256-GCM, never in clear). Pages walk
 *  (account_id, created_at, id). */
import type { Migration } from "./migration.js"

export const domains: Migration = {
  id: 14,
  name: "domains",
  sqlite: [
    `CREATE TABLE domains (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      hostname TEXT NOT NULL,
      status TEXT NOT NULL,
      is_inbox_hosted INTEGER NOT NULL,
      records TEXT NOT NULL,
      spf_value TEXT NOT NULL,
      dkim_selector TEXT NOT NULL,
      dkim_public_key TEXT NOT NULL,
      dkim_private_key_sealed TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      verified_at BIGINT,
      last_checked_at BIGINT,
      failing_since BIGINT,
      UNIQUE (account_id, hostname)
    )`,
    `CREATE INDEX domains_account_created ON domains (account_id, created_at, id)`,
  ],
  pg: [
    `CREATE TABLE domains (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      hostname TEXT COLLATE "C" NOT NULL,
      status TEXT NOT NULL,
      is_inbox_hosted BOOLEAN NOT NULL,
      records JSON NOT NULL,
      spf_value TEXT NOT NULL,
      dkim_selector TEXT NOT NULL,
      dkim_public_key TEXT NOT NULL,
      dkim_private_key_sealed TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      verified_at BIGINT,
      last_checked_at BIGINT,
      failing_since BIGINT,
      CONSTRAINT domains_account_hostname_key UNIQUE (account_id, hostname)
    )`,
    `CREATE INDEX domains_account_created ON domains (account_id, created_at, id)`,
  ],
}
