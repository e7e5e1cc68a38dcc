/** The lists suite: the Store contract of lists and members, the shared table of dynamic-list rules, and scenarios of
 *  the Lists service. Every backend package runs it against its own Store layer; each test makes its own accounts. */
import { it } from "@effect/vitest"
import { IdsLive, servicesLayer, type Store } from "@mailroom/core"
import { Layer } from "effect"
import { memberSuppressionTests } from "./list-suite/member-suppression.js"
import { segmentTests } from "./list-suite/segments.js"
import { serviceTests } from "./list-suite/service.js"
import { storeListTests } from "./list-suite/store-lists.js"
import { storeMemberTests } from "./list-suite/store-members.js"
import { testTemplateEngine } from "./template-engine.js"

/** Declares the suite for `backend` (a name for the report) over one shared instance of `storeLayer`. */
export const listSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  it.layer(Layer.provideMerge(servicesLayer, Layer.mergeAll(storeLayer, IdsLive, testTemplateEngine)), { timeout: "60 seconds" })(
    `Lists (${backend})`,
    (it) => {
      storeListTests(it)
      storeMemberTests(it)
      segmentTests(it)
      memberSuppressionTests(it)
      serviceTests(it)
    },
  )
