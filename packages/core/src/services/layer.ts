/** Every Mailroom service in one layer; the backend supplies Store (and the host may replace Ids). */
import { Layer } from "effect"
import { Accounts } from "./accounts.js"
import { Contacts } from "./contacts.js"
import { Imports } from "./imports.js"
import { Lists } from "./lists.js"
import { Idempotency } from "./idempotency.js"
import { Messages } from "./messages.js"
import { Quota } from "./quota.js"

export const servicesLayer = Layer.mergeAll(
  Accounts.Default, Contacts.Default, Lists.Default, Imports.Default, Quota.Default, Idempotency.Default,
  Messages.Default,
)
export type MailroomServices = Accounts | Contacts | Lists | Imports | Quota | Idempotency | Messages
