/** Campaigns and their resolved recipients. A recipient row is unique per campaign and contact: the key that keeps a
 *  contact from getting a campaign twice, whatever crash or retry re-runs a chunk. `message_id` is null for a dropped
 *  recipient, whose `reason` says why. The campaign's content is JSON; the columns beside it are what queries filter
 *  on. Indexes: the campaign page walks (account_id, created_at, id); figures read a campaign's recipients by
 *  (campaign_id, …); design usage reads (account_id, template_id); campaign opens and clicks (account_id, campaign_id)
 *  of tracking_hits. */
import type { Migration } from "./migration.js"

const table = (text: string, id: string, json: string) => [
  `CREATE TABLE campaigns (
    id ${id} PRIMARY KEY,
    account_id ${id} NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    template_id ${id},
    brand_id ${id},
    scheduled_at BIGINT,
    body ${json} NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  )`,
  `CREATE INDEX campaigns_account_created ON campaigns (account_id, created_at, id)`,
  `CREATE INDEX campaigns_account_template ON campaigns (account_id, template_id)`,
  `CREATE TABLE campaign_recipients (
    campaign_id ${id} NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    contact_id ${id} NOT NULL,
    account_id ${id} NOT NULL,
    email ${text} NOT NULL,
    message_id ${id},
    reason TEXT,
    unsubscribed_at BIGINT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (campaign_id, contact_id)
  )`,
  `CREATE INDEX campaign_recipients_email ON campaign_recipients (campaign_id, email)`,
  `CREATE INDEX tracking_hits_campaign ON tracking_hits (account_id, campaign_id)`,
]

export const campaigns: Migration = {
  id: 23,
  name: "campaigns",
  sqlite: table("TEXT", "TEXT", "TEXT"),
  pg: table("TEXT", `TEXT COLLATE "C"`, "JSON"),
}
