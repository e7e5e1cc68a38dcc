/** Accounts with their credentials, process settings, and contacts with tags and custom fields. Timestamps are epoch
 *  milliseconds in BIGINT in both dialects. Rows belong to their account and go with it (ON DELETE CASCADE); tags and
 *  custom fields go with their contact. Postgres compares ids, addresses and tags with the "C" collation so that
 *  sorting matches code-point order (and every other backend) rather than the database locale. */
import type { Migration } from "./migration.js"

export const accountsContacts: Migration = {
  id: 1,
  name: "accounts_contacts",
  sqlite: [
    `CREATE TABLE accounts (
      id TEXT PRIMARY KEY,
      name TEXT,
      plan TEXT NOT NULL,
      owner_email TEXT,
      created_at BIGINT NOT NULL
    )`,
    `CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      name TEXT,
      mode TEXT NOT NULL,
      scopes TEXT NOT NULL,
      prefix TEXT NOT NULL,
      hash TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      revoked_at BIGINT,
      CONSTRAINT api_keys_hash_key UNIQUE (hash)
    )`,
    `CREATE INDEX api_keys_account ON api_keys (account_id)`,
    `CREATE TABLE app_credentials (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      application_key TEXT NOT NULL,
      allowed_senders TEXT NOT NULL,
      prefix TEXT NOT NULL,
      hash TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      CONSTRAINT app_credentials_hash_key UNIQUE (hash)
    )`,
    `CREATE INDEX app_credentials_account ON app_credentials (account_id)`,
    `CREATE TABLE settings (
      name TEXT PRIMARY KEY,
      value TEXT NOT NULL
    )`,
    `CREATE TABLE contacts (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      email TEXT NOT NULL,
      first_name TEXT,
      last_name TEXT,
      phone TEXT,
      metadata TEXT,
      source TEXT NOT NULL,
      status TEXT NOT NULL,
      subscribed_at BIGINT NOT NULL,
      unsubscribed_at BIGINT,
      confirmed_at BIGINT,
      consent_source TEXT,
      consent_at BIGINT,
      consent_ip TEXT,
      consent_user_agent TEXT,
      consent_text TEXT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      CONSTRAINT contacts_account_email_key UNIQUE (account_id, email)
    )`,
    `CREATE INDEX contacts_account_created ON contacts (account_id, created_at, id)`,
    `CREATE INDEX contacts_account_subscribed ON contacts (account_id, subscribed_at, id)`,
    `CREATE INDEX contacts_account_status ON contacts (account_id, status)`,
    `CREATE INDEX contacts_account_source ON contacts (account_id, source)`,
    `CREATE TABLE contact_tags (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL,
      account_id TEXT NOT NULL,
      contact_id TEXT NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
      tag TEXT NOT NULL,
      CONSTRAINT contact_tags_id_key UNIQUE (id),
      CONSTRAINT contact_tags_contact_tag_key UNIQUE (contact_id, tag)
    )`,
    `CREATE INDEX contact_tags_account_tag ON contact_tags (account_id, tag)`,
    `CREATE TABLE contact_custom_fields (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL,
      account_id TEXT NOT NULL,
      contact_id TEXT NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
      key TEXT NOT NULL,
      value TEXT NOT NULL,
      CONSTRAINT contact_custom_fields_id_key UNIQUE (id),
      CONSTRAINT contact_custom_fields_contact_key_key UNIQUE (contact_id, key)
    )`,
  ],
  pg: [
    `CREATE TABLE accounts (
      id TEXT COLLATE "C" PRIMARY KEY,
      name TEXT,
      plan TEXT NOT NULL,
      owner_email TEXT,
      created_at BIGINT NOT NULL
    )`,
    `CREATE TABLE api_keys (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      name TEXT,
      mode TEXT NOT NULL,
      scopes JSON NOT NULL,
      prefix TEXT NOT NULL,
      hash TEXT COLLATE "C" NOT NULL,
      created_at BIGINT NOT NULL,
      revoked_at BIGINT,
      CONSTRAINT api_keys_hash_key UNIQUE (hash)
    )`,
    `CREATE INDEX api_keys_account ON api_keys (account_id)`,
    `CREATE TABLE app_credentials (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      application_key TEXT NOT NULL,
      allowed_senders JSON NOT NULL,
      prefix TEXT NOT NULL,
      hash TEXT COLLATE "C" NOT NULL,
      created_at BIGINT NOT NULL,
      CONSTRAINT app_credentials_hash_key UNIQUE (hash)
    )`,
    `CREATE INDEX app_credentials_account ON app_credentials (account_id)`,
    `CREATE TABLE settings (
      name TEXT COLLATE "C" PRIMARY KEY,
      value TEXT NOT NULL
    )`,
    `CREATE TABLE contacts (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      email TEXT COLLATE "C" NOT NULL,
      first_name TEXT,
      last_name TEXT,
      phone TEXT,
      metadata JSON,
      source TEXT NOT NULL,
      status TEXT NOT NULL,
      subscribed_at BIGINT NOT NULL,
      unsubscribed_at BIGINT,
      confirmed_at BIGINT,
      consent_source TEXT,
      consent_at BIGINT,
      consent_ip TEXT,
      consent_user_agent TEXT,
      consent_text TEXT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      CONSTRAINT contacts_account_email_key UNIQUE (account_id, email)
    )`,
    `CREATE INDEX contacts_account_created ON contacts (account_id, created_at, id)`,
    `CREATE INDEX contacts_account_subscribed ON contacts (account_id, subscribed_at, id)`,
    `CREATE INDEX contacts_account_status ON contacts (account_id, status)`,
    `CREATE INDEX contacts_account_source ON contacts (account_id, source)`,
    `CREATE TABLE contact_tags (
      seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id TEXT COLLATE "C" NOT NULL,
      account_id TEXT COLLATE "C" NOT NULL,
      contact_id TEXT COLLATE "C" NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
      tag TEXT COLLATE "C" NOT NULL,
      CONSTRAINT contact_tags_id_key UNIQUE (id),
      CONSTRAINT contact_tags_contact_tag_key UNIQUE (contact_id, tag)
    )`,
    `CREATE INDEX contact_tags_account_tag ON contact_tags (account_id, tag)`,
    `CREATE TABLE contact_custom_fields (
      seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id TEXT COLLATE "C" NOT NULL,
      account_id TEXT COLLATE "C" NOT NULL,
      contact_id TEXT COLLATE "C" NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
      key TEXT NOT NULL,
      value TEXT NOT NULL,
      CONSTRAINT contact_custom_fields_id_key UNIQUE (id),
      CONSTRAINT contact_custom_fields_contact_key_key UNIQUE (contact_id, key)
    )`,
  ],
}
