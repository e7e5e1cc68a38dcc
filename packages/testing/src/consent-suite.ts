/** The consent suite: the Store contract of suppressions, topics, confirmations and settings, the send-time eligibility
 *  table on every backend, and scenarios of the consent services. Every backend package runs it against its own Store
 *  layer; each test makes its own accounts. */
import { it } from "@effect/vitest"
import { IdsLive, servicesLayer, type Store } from "@mailroom/core"
import { Layer } from "effect"
import { eligibilityTests } from "./consent-suite/eligibility.js"
import { suppressionTopicServiceTests } from "./consent-suite/service-suppressions-topics.js"
import { storeConsentTests } from "./consent-suite/store-consent.js"
import { tokenInputTests } from "./consent-suite/token-input.js"
import { tokenTests } from "./consent-suite/tokens.js"
import { testTemplateEngine } from "./template-engine.js"

/** Declares the suite for `backend` (a name for the report) over one shared instance of `storeLayer`. */
export const consentSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  it.layer(Layer.provideMerge(servicesLayer, Layer.mergeAll(storeLayer, IdsLive, testTemplateEngine)), { timeout: "60 seconds" })(
    `Consent (${backend})`,
    (it) => {
      storeConsentTests(it)
      eligibilityTests(it)
      suppressionTopicServiceTests(it)
      tokenTests(it)
      tokenInputTests(it)
    },
  )
