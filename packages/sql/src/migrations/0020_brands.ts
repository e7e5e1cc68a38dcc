/** Brands: an account's colours, logo, fonts, sender, compliance contact, footer, social links, custom variables and
 *  unsubscribe page text (one JSON column), under an application key. At most one brand of an account is its default
 *  (a partial unique index). Designs bound to a brand are found by (account_id, brand_id). */
import type { Migration } from "./migration.js"

export const brands: Migration = {
  id: 20,
  name: "brands",
  sqlite: [
    `CREATE TABLE brands (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      application_key TEXT NOT NULL,
      name TEXT NOT NULL,
      content TEXT NOT NULL,
      is_default INTEGER NOT NULL DEFAULT 0,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
    `CREATE INDEX brands_account_id ON brands (account_id, id)`,
    `CREATE UNIQUE INDEX brands_account_default ON brands (account_id) WHERE is_default = 1`,
    `CREATE INDEX designs_brand ON designs (account_id, brand_id) WHERE brand_id IS NOT NULL`,
  ],
  pg: [
    `CREATE TABLE brands (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      application_key TEXT COLLATE "C" NOT NULL,
      name TEXT NOT NULL,
      content JSON NOT NULL,
      is_default INTEGER NOT NULL DEFAULT 0,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
    `CREATE INDEX brands_account_id ON brands (account_id, id)`,
    `CREATE UNIQUE INDEX brands_account_default ON brands (account_id) WHERE is_default = 1`,
    `CREATE INDEX designs_brand ON designs (account_id, brand_id) WHERE brand_id IS NOT NULL`,
  ],
}
