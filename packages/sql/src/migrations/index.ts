/** Every migration, in the order it applies. A new migration goes in its own module and gets one line here. */
import { accountsContacts } from "./0001_accounts_contacts.js"
import { events } from "./0002_events.js"
import { lists } from "./0003_lists.js"
import { foldedText } from "./0004_folded_text.js"
import { devOutbox } from "./0005_dev_outbox.js"
import { eventRelayJobs } from "./0006_event_relay_jobs.js"
import { webhooks } from "./0007_webhooks.js"
import { consent } from "./0008_consent.js"
import { messages } from "./0009_messages.js"
import { forms } from "./0010_forms.js"
import { confirmationForm } from "./0011_confirmation_form.js"
import { attemptsPurgeByEndpoint } from "./0012_attempts_purge_by_endpoint.js"
import { deliveriesRecordedInPlace } from "./0013_deliveries_recorded_in_place.js"
import { domains } from "./0014_domains.js"
import { literalSecretPrefix } from "./0015_literal_secret_prefix.js"
import { designs } from "./0016_designs.js"
import { validationJobs } from "./0017_validation_jobs.js"
import { canaryRuns } from "./0018_canary_runs.js"
import { trackingHits } from "./0019_tracking_hits.js"
import { brands } from "./0020_brands.js"
import { designAssets } from "./0021_design_assets.js"
import { analytics } from "./0022_analytics.js"
import { campaigns } from "./0023_campaigns.js"
import { confirmationTemplate } from "./0024_confirmation_template.js"
import { brandTrackingDomains } from "./0025_brand_tracking_domains.js"
import { campaignRecipientsByContact } from "./0026_campaign_recipients_by_contact.js"
import type { Migration } from "./migration.js"

export const migrations: ReadonlyArray<Migration> = [
  accountsContacts,
  events,
  lists,
  foldedText,
  devOutbox,
  eventRelayJobs,
  webhooks,
  consent,
  messages,
  forms,
  confirmationForm,
  attemptsPurgeByEndpoint,
  deliveriesRecordedInPlace,
  domains,
  literalSecretPrefix,
  designs,
  validationJobs,
  canaryRuns,
  trackingHits,
  brands,
  designAssets,
  analytics,
  campaigns,
  confirmationTemplate,
  brandTrackingDomains,
  campaignRecipientsByContact,
]

export type { Migration } from "./migration.js"
