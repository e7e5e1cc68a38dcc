/** Every Mailroom service in one layer; the backend supplies Store (and the host may replace Ids). Services register
 *  their outbox consumers and job workers with Background while they are built; the host starts them. */
import { Layer } from "effect"
import { Accounts } from "./accounts.js"
import { Background } from "./background.js"
import { Contacts } from "./contacts.js"
import { Imports } from "./imports.js"
import { Lists } from "./lists.js"
import { Suppressions } from "./suppressions.js"
import { Tokens } from "./tokens.js"
import { Topics } from "./topics.js"
import { Webhooks } from "./webhooks.js"
import { Idempotency } from "./idempotency.js"
import { Messages } from "./messages.js"
import { Quota } from "./quota.js"
import { Forms } from "./forms.js"
import { SendingPause } from "./sending-pause.js"
import { Subscriptions } from "./subscriptions.js"
import { ConfirmationLinks } from "./confirmation-links.js"
import { FormSignups } from "./form-signups.js"
import { LinkUnsubscribes } from "./link-unsubscribes.js"
import { Sending } from "./sending.js"
import { MessageDelivery } from "./delivery-service.js"
import { Feedback } from "./feedback.js"
import { Domains } from "./domains.js"
import { Canary } from "./canary.js"
import { AddressValidation } from "./address-validation.js"
import { Brands } from "./brands.js"
import { Designs } from "./designs.js"
import { LegacyTemplates } from "./legacy-templates.js"
import { Tracking } from "./tracking.js"
import { Gallery } from "./gallery.js"
import { Assets } from "./assets.js"
import { Manifests } from "./manifests.js"
import { Campaigns } from "./campaigns.js"
import { Analytics } from "./analytics.js"
import { TrackingDomains } from "./tracking-domains.js"

// Webhooks and Tokens read the platform secret through Accounts, so they are built over the same Accounts instance.
// MessageDelivery renders with Tokens' links, so it is built over them.
// Subscriptions hands confirmation links to ConfirmationLinks and signup forms' calls to FormSignups; LinkUnsubscribes
// unsubscribes through Subscriptions.
// LegacyTemplates adapts the /templates API to Designs and sends its test mail through Sending.
export const servicesLayer = Layer.mergeAll(MessageDelivery.Default, LinkUnsubscribes.Default, LegacyTemplates.Default, Tracking.Default, Gallery.Default, Assets.Default, Manifests.Default, Campaigns.Default, Analytics.Default, TrackingDomains.Default).pipe(Layer.provideMerge(Layer.mergeAll(
  Webhooks.Default, Subscriptions.DefaultWithoutDependencies, Sending.Default,
  Domains.Default, Canary.Default, AddressValidation.Default, Designs.Default, Brands.Default,
).pipe(
  Layer.provideMerge(Layer.mergeAll(ConfirmationLinks.DefaultWithoutDependencies, FormSignups.DefaultWithoutDependencies)),
  Layer.provideMerge(Tokens.DefaultWithoutDependencies),
  Layer.provideMerge(Layer.mergeAll(
    Accounts.Default, Contacts.Default, Lists.Default, Imports.Default, Suppressions.Default, Topics.Default,
    Quota.Default, Idempotency.Default, Messages.Default, SendingPause.Default, Feedback.Default, Forms.Default,
  )),
  Layer.provideMerge(Background.Default),
)))
export type MailroomServices =
  | Accounts | Contacts | Lists | Imports | Suppressions | Topics | Tokens | Webhooks | Background | Quota | Idempotency
  | Messages | Subscriptions | SendingPause | Sending | MessageDelivery | Feedback | Forms | ConfirmationLinks | FormSignups
  | LinkUnsubscribes | Domains | Canary | AddressValidation | Designs | Brands | LegacyTemplates | Tracking | Gallery | Assets | Manifests | Campaigns | Analytics
  | TrackingDomains
