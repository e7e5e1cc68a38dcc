/** The signup form that started a double opt-in, kept with its pending confirmation so that contact.confirmed reports
 *  it (null for the Subscriptions API). No foreign key: deleting the form leaves outstanding links working. */
import type { Migration } from "./migration.js"

export const confirmationForm: Migration = {
  id: 11,
  name: "confirmation_form",
  sqlite: [`ALTER TABLE subscription_confirmations ADD COLUMN form_id TEXT`],
  pg: [`ALTER TABLE subscription_confirmations ADD COLUMN form_id TEXT COLLATE "C"`],
}
