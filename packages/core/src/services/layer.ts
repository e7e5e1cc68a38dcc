/** Every Mailroom service in one layer; the backend supplies Store (and the host may replace Ids). Services register
 *  their outbox consumers and job workers with Background while they are built; the host starts them. */
import { Layer } from "effect"
import { Accounts } from "./accounts.js"
import { Background } from "./background.js"
import { Contacts } from "./contacts.js"
import { Imports } from "./imports.js"
import { Lists } from "./lists.js"

export const servicesLayer = Layer.mergeAll(Accounts.Default, Contacts.Default, Lists.Default, Imports.Default).pipe(
  Layer.provideMerge(Background.Default),
)
export type MailroomServices = Accounts | Contacts | Lists | Imports | Background
