/** The HTTP scenario suite: every contacts route and every error code the spec lists for them, driven over HTTP
 *  against a Mailroom however it is mounted (plain fetch, Hono, Express, Fastify), plus a transcript that proves all
 *  mountings answer alike. Each test makes its own accounts through /admin, so tests never see each other's data. */
import { afterAll, beforeAll, describe } from "vitest"
import { authTests } from "./http-suite/auth.js"
import { credentialTests, failedAuthenticationsLimit } from "./http-suite/credentials.js"
import { type HttpTarget, type HttpTargetConfig, makeClient } from "./http-suite/client.js"
import { contactTests } from "./http-suite/contacts.js"
import { exportTests } from "./http-suite/export.js"
import { limitTests } from "./http-suite/limits.js"
import { publicLimitTests, publicRequestsLimit } from "./http-suite/public-limits.js"
import { heldWindowLimiters } from "./held-window-limiter.js"
import { rateTests } from "./http-suite/rates.js"
import { listTests } from "./http-suite/list.js"
import { sendingTests } from "./http-suite/sending.js"
import { statusTests } from "./http-suite/status.js"
import { subscriptionTests } from "./http-suite/subscriptions.js"
import { suppressionTopicTests } from "./http-suite/suppressions-topics.js"
import { tagAndBulkTests } from "./http-suite/tags-bulk.js"
import { textInputTests } from "./http-suite/text-input.js"
import { trackingTests } from "./http-suite/tracking.js"
import { transcriptTests } from "./http-suite/transcript.js"

/**
 * Declares the suite under `name`. `makeTarget` answers a Mailroom configured with adminToken "test-admin-token", the
 * default limits (60 POST /contacts per minute, 8 MiB bodies) and the `rateLimits` of `config` (its failed
 * authentications and public requests per client address, which the suite spends on purpose); it is called once with
 * a generous number for the scenarios, and once more for each of those limits with a small one, and each target is
 * closed after the suite. A further target, for the request-rate tests, gets `rateLimits.store` (heldWindowLimiters)
 * too: the targets pass `rateLimits` on as they get it.
 */
export const httpSuite = (name: string, makeTarget: (config: HttpTargetConfig) => Promise<HttpTarget>) =>
  describe(`HTTP scenarios (${name})`, () => {
    const targets: Array<HttpTarget> = []
    // Each close waits for the target's jobs in flight (up to the 30-second shutdown grace): the sending tests leave
    // a hundred deliveries queued, which a busy machine takes seconds to drain. The targets close side by side, with
    // room for that grace.
    afterAll(async () => {
      await Promise.all(targets.map((target) => target.close()))
    }, 120_000)
    /** A client of the target made with `config`, made on first use. */
    const lazyClient = (config: HttpTargetConfig) => {
      let target: Promise<HttpTarget> | undefined
      let ready: HttpTarget | undefined
      const client = makeClient(() => {
        if (ready === undefined) throw new Error("the HTTP target is not ready")
        return ready
      })
      return {
        prepare: async () => {
          target ??= makeTarget(config).then((made) => (targets.push(made), made))
          ready = await target
        },
        client: () => client,
      }
    }
    const scenarios = lazyClient({ rateLimits: { failedAuthenticationsPerMinute: 100_000 } })
    const strict = lazyClient({ rateLimits: { failedAuthenticationsPerMinute: failedAuthenticationsLimit } })
    const strictPublic = lazyClient({
      rateLimits: { failedAuthenticationsPerMinute: 100_000, publicRequestsPerSecond: publicRequestsLimit },
    })
    const rates = lazyClient({ rateLimits: { failedAuthenticationsPerMinute: 100_000, store: heldWindowLimiters } })
    beforeAll(scenarios.prepare)
    const current = scenarios.client

    authTests(current)
    credentialTests(current, async () => {
      await strict.prepare()
      return strict.client()
    })
    contactTests(current)
    listTests(current)
    statusTests(current)
    tagAndBulkTests(current)
    limitTests(current)
    textInputTests(current)
    publicLimitTests(async () => {
      await strictPublic.prepare()
      return strictPublic.client()
    })
    rateTests(async () => {
      await rates.prepare()
      return rates.client()
    })
    exportTests(current)
    suppressionTopicTests(current)
    subscriptionTests(current)
    sendingTests(current)
    trackingTests(current)
    transcriptTests(current)
  })

export type { HttpTarget, HttpTargetConfig } from "./http-suite/client.js"
