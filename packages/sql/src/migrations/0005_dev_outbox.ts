/** The dev outbox: messages kept instead of sent while no SMTP relay is configured (CONTRACT.md, "Mail in
 *  development"). Platform-wide, like settings: the Mailer knows no account. Envelope recipients sit in their own
 *  table, lower-cased, so that GET /admin/outbox?to= reads an index; `seq` orders entries of the same millisecond. */
import type { Migration } from "./migration.js"

export const devOutbox: Migration = {
  id: 5,
  name: "dev_outbox",
  sqlite: [
    `CREATE TABLE dev_outbox (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL,
      from_address TEXT NOT NULL,
      recipients TEXT NOT NULL,
      subject TEXT NOT NULL,
      html_body TEXT,
      text_body TEXT,
      headers TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      CONSTRAINT dev_outbox_id_key UNIQUE (id)
    )`,
    `CREATE INDEX dev_outbox_created ON dev_outbox (created_at, seq)`,
    `CREATE TABLE dev_outbox_recipients (
      entry_id TEXT NOT NULL REFERENCES dev_outbox (id) ON DELETE CASCADE,
      address TEXT NOT NULL,
      PRIMARY KEY (address, entry_id)
    )`,
  ],
  pg: [
    `CREATE TABLE dev_outbox (
      seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id TEXT COLLATE "C" NOT NULL,
      from_address TEXT NOT NULL,
      recipients JSON NOT NULL,
      subject TEXT NOT NULL,
      html_body TEXT,
      text_body TEXT,
      headers JSON NOT NULL,
      created_at BIGINT NOT NULL,
      CONSTRAINT dev_outbox_id_key UNIQUE (id)
    )`,
    `CREATE INDEX dev_outbox_created ON dev_outbox (created_at, seq)`,
    `CREATE TABLE dev_outbox_recipients (
      entry_id TEXT COLLATE "C" NOT NULL REFERENCES dev_outbox (id) ON DELETE CASCADE,
      address TEXT COLLATE "C" NOT NULL,
      PRIMARY KEY (address, entry_id)
    )`,
  ],
}
