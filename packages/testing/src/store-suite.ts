/** The Store contract suite: every backend runs it against itself, and passing it is what makes a backend done.
 *  Each test makes its own accounts, so tests need no cleanup and never see each other's rows. */
import { it } from "@effect/vitest"
import type { Store } from "@mailroom/core"
import type { Layer } from "effect"
import { accountTests } from "./store-suite/accounts.js"
import { contactListTests } from "./store-suite/contacts-list.js"
import { contactReadTests } from "./store-suite/contacts-read.js"
import { contactWriteTests } from "./store-suite/contacts-write.js"
import { designTests } from "./store-suite/designs.js"
import { devOutboxTests } from "./store-suite/dev-outbox.js"
import { eventTests } from "./store-suite/events.js"
import { messageTests } from "./store-suite/messages.js"
import { transactionTests } from "./store-suite/transaction.js"
import { validationJobTests } from "./store-suite/validation-jobs.js"
import { webhookTests } from "./store-suite/webhooks.js"

/** Declares the suite for `backend` (a name for the report) over one shared instance of `layer`. */
export const storeSuite = (backend: string, layer: Layer.Layer<Store, unknown>) =>
  it.layer(layer, { timeout: "30 seconds" })(`Store contract (${backend})`, (it) => {
    accountTests(it)
    contactWriteTests(it)
    contactReadTests(it)
    contactListTests(it)
    eventTests(it)
    devOutboxTests(it)
    messageTests(it)
    transactionTests(it)
    webhookTests(it)
    validationJobTests(it)
    designTests(it)
  })
