/** Designs (Studio templates) and their releases. A design row holds its draft (JSON, read and written whole) and is
 *  unique by (account_id, application_key, key, locale); a release row is written once, keyed by (design_id, version),
 *  and never updated. Messages sent by template name the template and the release version, indexed for the
 *  template's deliveries and usage. Pages of designs walk (account_id, id). */
import type { Migration } from "./migration.js"

export const designs: Migration = {
  id: 16,
  name: "designs",
  sqlite: [
    `CREATE TABLE designs (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      application_key TEXT NOT NULL,
      key TEXT NOT NULL,
      locale TEXT NOT NULL,
      draft TEXT NOT NULL,
      category TEXT,
      revision INTEGER NOT NULL,
      status TEXT NOT NULL,
      live_version INTEGER,
      brand_id TEXT,
      replacement_id TEXT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      published_at BIGINT,
      retired_at BIGINT,
      UNIQUE (account_id, application_key, key, locale)
    )`,
    `CREATE INDEX designs_account_id ON designs (account_id, id)`,
    `CREATE TABLE design_releases (
      design_id TEXT NOT NULL REFERENCES designs (id) ON DELETE CASCADE,
      version INTEGER NOT NULL,
      account_id TEXT NOT NULL,
      content TEXT NOT NULL,
      brand_id TEXT,
      brand TEXT,
      engine TEXT NOT NULL,
      revision INTEGER NOT NULL,
      rolled_back_from INTEGER,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (design_id, version)
    )`,
    `ALTER TABLE messages ADD COLUMN template_id TEXT`,
    `ALTER TABLE messages ADD COLUMN template_version INTEGER`,
    `CREATE INDEX messages_template ON messages (account_id, template_id, created_at, id) WHERE template_id IS NOT NULL`,
  ],
  pg: [
    `CREATE TABLE designs (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      application_key TEXT COLLATE "C" NOT NULL,
      key TEXT COLLATE "C" NOT NULL,
      locale TEXT COLLATE "C" NOT NULL,
      draft JSON NOT NULL,
      category TEXT COLLATE "C",
      revision INTEGER NOT NULL,
      status TEXT NOT NULL,
      live_version INTEGER,
      brand_id TEXT COLLATE "C",
      replacement_id TEXT COLLATE "C",
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      published_at BIGINT,
      retired_at BIGINT,
      CONSTRAINT designs_account_key_locale_key UNIQUE (account_id, application_key, key, locale)
    )`,
    `CREATE INDEX designs_account_id ON designs (account_id, id)`,
    `CREATE TABLE design_releases (
      design_id TEXT COLLATE "C" NOT NULL REFERENCES designs (id) ON DELETE CASCADE,
      version INTEGER NOT NULL,
      account_id TEXT COLLATE "C" NOT NULL,
      content JSON NOT NULL,
      brand_id TEXT COLLATE "C",
      brand JSON,
      engine TEXT NOT NULL,
      revision INTEGER NOT NULL,
      rolled_back_from INTEGER,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (design_id, version)
    )`,
    `ALTER TABLE messages ADD COLUMN template_id TEXT COLLATE "C", ADD COLUMN template_version INTEGER`,
    `CREATE INDEX messages_template ON messages (account_id, template_id, created_at, id) WHERE template_id IS NOT NULL`,
  ],
}
