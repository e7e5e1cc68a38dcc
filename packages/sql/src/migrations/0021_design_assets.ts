/** Image assets and the gallery source of adopted designs. An asset row is unique by (account_id, hash): the same
 *  image uploaded twice is one asset. Asset bytes are kept once per hash in asset_contents (the database storage of
 *  AssetStorage), base64 text on both dialects, and never deleted: a deleted asset's URL keeps serving. A design
 *  adopted from the gallery records its starter and version in `source` (JSON), for sync. */
import type { Migration } from "./migration.js"

export const designAssets: Migration = {
  id: 21,
  name: "design_assets",
  sqlite: [
    `CREATE TABLE design_assets (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      application_key TEXT NOT NULL,
      name TEXT,
      hash TEXT NOT NULL,
      format TEXT NOT NULL,
      width INTEGER NOT NULL,
      height INTEGER NOT NULL,
      size INTEGER NOT NULL,
      created_at BIGINT NOT NULL,
      deleted_at BIGINT,
      UNIQUE (account_id, hash)
    )`,
    `CREATE INDEX design_assets_account_id ON design_assets (account_id, id)`,
    `CREATE TABLE asset_contents (
      hash TEXT PRIMARY KEY,
      content_type TEXT NOT NULL,
      data TEXT NOT NULL
    )`,
    `ALTER TABLE designs ADD COLUMN source TEXT`,
  ],
  pg: [
    `CREATE TABLE design_assets (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      application_key TEXT COLLATE "C" NOT NULL,
      name TEXT,
      hash TEXT COLLATE "C" NOT NULL,
      format TEXT NOT NULL,
      width INTEGER NOT NULL,
      height INTEGER NOT NULL,
      size INTEGER NOT NULL,
      created_at BIGINT NOT NULL,
      deleted_at BIGINT,
      CONSTRAINT design_assets_account_hash_key UNIQUE (account_id, hash)
    )`,
    `CREATE INDEX design_assets_account_id ON design_assets (account_id, id)`,
    `CREATE TABLE asset_contents (
      hash TEXT COLLATE "C" PRIMARY KEY,
      content_type TEXT NOT NULL,
      data TEXT NOT NULL
    )`,
    `ALTER TABLE designs ADD COLUMN source JSON`,
  ],
}
