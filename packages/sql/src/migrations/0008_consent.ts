/** Consent: account-level suppressions (one per address), topics (suppression groups) with the addresses that opted
 *  out of them, and the pending confirmations of double opt-in. Suppressions and opt-outs are keyed by address, not by
 *  contact: they exist for addresses that are no contact, and deleting a contact keeps them (rule 8). Opt-outs go
 *  with their topic; a pending confirmation goes with its contact.
 *  Indexes: the send-time eligibility query probes (account_id, email) of suppressions and contacts and
 *  (topic_id, email) of opt-outs; pages walk (account_id, created_at, id). */
import type { Migration } from "./migration.js"

export const consent: Migration = {
  id: 8,
  name: "consent",
  sqlite: [
    `CREATE TABLE suppressions (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      email TEXT NOT NULL,
      reason TEXT NOT NULL,
      details TEXT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      CONSTRAINT suppressions_account_email_key UNIQUE (account_id, email)
    )`,
    `CREATE INDEX suppressions_account_created ON suppressions (account_id, created_at, id)`,
    `CREATE TABLE topics (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      description TEXT,
      is_default INTEGER NOT NULL,
      public_label TEXT,
      public_description TEXT,
      is_published_on_unsub INTEGER NOT NULL,
      sort_order INTEGER NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      CONSTRAINT topics_account_name_key UNIQUE (account_id, name)
    )`,
    `CREATE INDEX topics_account_created ON topics (account_id, created_at, id)`,
    `CREATE TABLE topic_opt_outs (
      topic_id TEXT NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
      account_id TEXT NOT NULL,
      email TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (topic_id, email)
    )`,
    `CREATE INDEX topic_opt_outs_account_email ON topic_opt_outs (account_id, email)`,
    `CREATE TABLE subscription_confirmations (
      contact_id TEXT PRIMARY KEY REFERENCES contacts (id) ON DELETE CASCADE,
      account_id TEXT NOT NULL,
      nonce TEXT NOT NULL,
      list_ids TEXT NOT NULL,
      topic_ids TEXT NOT NULL,
      redirect_url TEXT,
      source TEXT NOT NULL,
      expires_at BIGINT NOT NULL,
      created_at BIGINT NOT NULL
    )`,
  ],
  pg: [
    `CREATE TABLE suppressions (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      email TEXT COLLATE "C" NOT NULL,
      reason TEXT NOT NULL,
      details JSON,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      CONSTRAINT suppressions_account_email_key UNIQUE (account_id, email)
    )`,
    `CREATE INDEX suppressions_account_created ON suppressions (account_id, created_at, id)`,
    `CREATE TABLE topics (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      name TEXT COLLATE "C" NOT NULL,
      description TEXT,
      is_default BOOLEAN NOT NULL,
      public_label TEXT,
      public_description TEXT,
      is_published_on_unsub BOOLEAN NOT NULL,
      sort_order INTEGER NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      CONSTRAINT topics_account_name_key UNIQUE (account_id, name)
    )`,
    `CREATE INDEX topics_account_created ON topics (account_id, created_at, id)`,
    `CREATE TABLE topic_opt_outs (
      topic_id TEXT COLLATE "C" NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
      account_id TEXT COLLATE "C" NOT NULL,
      email TEXT COLLATE "C" NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (topic_id, email)
    )`,
    `CREATE INDEX topic_opt_outs_account_email ON topic_opt_outs (account_id, email)`,
    `CREATE TABLE subscription_confirmations (
      contact_id TEXT COLLATE "C" PRIMARY KEY REFERENCES contacts (id) ON DELETE CASCADE,
      account_id TEXT COLLATE "C" NOT NULL,
      nonce TEXT NOT NULL,
      list_ids JSON NOT NULL,
      topic_ids JSON NOT NULL,
      redirect_url TEXT,
      source TEXT NOT NULL,
      expires_at BIGINT NOT NULL,
      created_at BIGINT NOT NULL
    )`,
  ],
}
