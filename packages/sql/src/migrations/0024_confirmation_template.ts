/** The account's own confirmation template: kept with the pending confirmation, so that a resend mails the template the
 *  subscribe call named, and on a signup form, so that its submissions are confirmed with it. No foreign keys: a
 *  template deleted later is reported by the resend (or skipped by the form) rather than breaking the link. */
import type { Migration } from "./migration.js"

export const confirmationTemplate: Migration = {
  id: 24,
  name: "confirmation_template",
  sqlite: [
    `ALTER TABLE subscription_confirmations ADD COLUMN template_id TEXT`,
    `ALTER TABLE forms ADD COLUMN confirmation_template_id TEXT`,
  ],
  pg: [
    `ALTER TABLE subscription_confirmations ADD COLUMN template_id TEXT COLLATE "C"`,
    `ALTER TABLE forms ADD COLUMN confirmation_template_id TEXT COLLATE "C"`,
  ],
}
