/** Every Mailroom service in one layer; the backend supplies Store (and the host may replace Ids). Services register
 *  their outbox consumers and job workers with Background while they are built; the host starts them. */
import { Layer } from "effect"
import { Accounts } from "./accounts.js"
import { Background } from "./background.js"
import { Contacts } from "./contacts.js"
import { Imports } from "./imports.js"
import { Lists } from "./lists.js"
import { Webhooks } from "./webhooks.js"
import { Idempotency } from "./idempotency.js"
import { Messages } from "./messages.js"
import { Quota } from "./quota.js"

// Webhooks reads the platform secret through Accounts, so it is built over the same Accounts instance.
export const servicesLayer = Layer.provideMerge(
  Webhooks.Default,
  Layer.mergeAll(
    Accounts.Default, Contacts.Default, Lists.Default, Imports.Default, Quota.Default, Idempotency.Default,
    Messages.Default,
  ),
).pipe(Layer.provideMerge(Background.Default))
export type MailroomServices = Accounts | Contacts | Lists | Imports | Webhooks | Background | Quota | Idempotency | Messages
