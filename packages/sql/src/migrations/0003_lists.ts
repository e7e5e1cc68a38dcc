/** Contact lists and their memberships. A membership is unique per list and contact; `removed_at` marks an unsubscribe
 *  from the list and keeps the row as history. Memberships go with their contact or list (ON DELETE CASCADE).
 *  Indexes: the member page walks (list_id, added_at, id) newest first; the counts of a page read every membership of
 *  the list from (list_id, account_id, contact_id, removed_at) without touching the table. */
import type { Migration } from "./migration.js"

export const lists: Migration = {
  id: 3,
  name: "lists",
  sqlite: [
    `CREATE TABLE contact_lists (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      name TEXT NOT NULL,
      description TEXT,
      type TEXT NOT NULL,
      segment_rules TEXT,
      suppression_group_id TEXT,
      tracking_enabled INTEGER NOT NULL,
      is_archived INTEGER NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      last_synced_at BIGINT
    )`,
    `CREATE INDEX contact_lists_account_created ON contact_lists (account_id, created_at, id)`,
    `CREATE TABLE list_members (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      list_id TEXT NOT NULL REFERENCES contact_lists (id) ON DELETE CASCADE,
      contact_id TEXT NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
      added_at BIGINT NOT NULL,
      removed_at BIGINT,
      CONSTRAINT list_members_list_contact_key UNIQUE (list_id, contact_id)
    )`,
    `CREATE INDEX list_members_list_added ON list_members (list_id, added_at, id)`,
    `CREATE INDEX list_members_list_totals ON list_members (list_id, account_id, contact_id, removed_at)`,
    `CREATE INDEX list_members_contact ON list_members (contact_id)`,
  ],
  pg: [
    `CREATE TABLE contact_lists (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL,
      name TEXT NOT NULL,
      description TEXT,
      type TEXT NOT NULL,
      segment_rules JSON,
      suppression_group_id TEXT COLLATE "C",
      tracking_enabled BOOLEAN NOT NULL,
      is_archived BOOLEAN NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      last_synced_at BIGINT
    )`,
    `CREATE INDEX contact_lists_account_created ON contact_lists (account_id, created_at, id)`,
    `CREATE TABLE list_members (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL,
      list_id TEXT COLLATE "C" NOT NULL REFERENCES contact_lists (id) ON DELETE CASCADE,
      contact_id TEXT COLLATE "C" NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
      added_at BIGINT NOT NULL,
      removed_at BIGINT,
      CONSTRAINT list_members_list_contact_key UNIQUE (list_id, contact_id)
    )`,
    `CREATE INDEX list_members_list_added ON list_members (list_id, added_at, id)`,
    `CREATE INDEX list_members_list_totals ON list_members (list_id, account_id, contact_id, removed_at)`,
    `CREATE INDEX list_members_contact ON list_members (contact_id)`,
  ],
}
