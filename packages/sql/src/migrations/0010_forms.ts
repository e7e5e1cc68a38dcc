/** Signup forms: one row per form; its lists, topics, allowed origins and fields are JSON, read and written whole with
 *  the form. Ids are unique across accounts, so the public routes find a form by id alone. Pages walk
 *  (account_id, created_at, id). */
import type { Migration } from "./migration.js"

export const forms: Migration = {
  id: 10,
  name: "forms",
  sqlite: [
    `CREATE TABLE forms (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      list_ids TEXT NOT NULL,
      topic_ids TEXT NOT NULL,
      double_opt_in INTEGER NOT NULL,
      allowed_origins TEXT NOT NULL,
      success_redirect_url TEXT,
      fields TEXT NOT NULL,
      consent_text TEXT,
      submit_label TEXT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
    `CREATE INDEX forms_account_created ON forms (account_id, created_at, id)`,
  ],
  pg: [
    `CREATE TABLE forms (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      list_ids JSON NOT NULL,
      topic_ids JSON NOT NULL,
      double_opt_in BOOLEAN NOT NULL,
      allowed_origins JSON NOT NULL,
      success_redirect_url TEXT,
      fields JSON NOT NULL,
      consent_text TEXT,
      submit_label TEXT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
    `CREATE INDEX forms_account_created ON forms (account_id, created_at, id)`,
  ],
}
