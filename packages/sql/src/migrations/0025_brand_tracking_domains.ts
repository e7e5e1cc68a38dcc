/** A brand's custom tracking domain, at most one per brand; a hostname belongs to one brand of one account at most
 *  (a unique index). Deleting the brand deletes its tracking domain. */
import type { Migration } from "./migration.js"

const table = (text: string) => `CREATE TABLE brand_tracking_domains (
      brand_id ${text} PRIMARY KEY REFERENCES brands (id) ON DELETE CASCADE,
      account_id ${text} NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      hostname ${text} NOT NULL,
      status TEXT NOT NULL,
      reason TEXT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      last_checked_at BIGINT,
      verified_at BIGINT
    )`

export const brandTrackingDomains: Migration = {
  id: 25,
  name: "brand_tracking_domains",
  sqlite: [
    table("TEXT"),
    `CREATE UNIQUE INDEX brand_tracking_domains_hostname ON brand_tracking_domains (hostname)`,
  ],
  pg: [
    table(`TEXT COLLATE "C"`),
    `CREATE UNIQUE INDEX brand_tracking_domains_hostname ON brand_tracking_domains (hostname)`,
  ],
}
