/** Every Mailroom service in one layer; the backend supplies Store (and the host may replace Ids). */
import { Layer } from "effect"
import { Accounts } from "./accounts.js"
import { Contacts } from "./contacts.js"
import { Imports } from "./imports.js"
import { Lists } from "./lists.js"
import { Suppressions } from "./suppressions.js"
import { Tokens } from "./tokens.js"
import { Topics } from "./topics.js"

export const servicesLayer = Layer.provideMerge(
  Tokens.DefaultWithoutDependencies,
  Layer.mergeAll(Accounts.Default, Contacts.Default, Lists.Default, Imports.Default, Suppressions.Default, Topics.Default),
)
export type MailroomServices = Accounts | Contacts | Lists | Imports | Suppressions | Topics | Tokens
