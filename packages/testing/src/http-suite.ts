/** The HTTP scenario suite: every contacts route and every error code the spec lists for them, driven over HTTP
 *  against a Mailroom however it is mounted (plain fetch, Hono, Express, Fastify), plus a transcript that proves all
 *  mountings answer alike. Each test makes its own accounts through /admin, so tests never see each other's data. */
import { afterAll, beforeAll, describe } from "vitest"
import { authTests } from "./http-suite/auth.js"
import { type HttpTarget, makeClient } from "./http-suite/client.js"
import { contactTests } from "./http-suite/contacts.js"
import { exportTests } from "./http-suite/export.js"
import { limitTests } from "./http-suite/limits.js"
import { listTests } from "./http-suite/list.js"
import { statusTests } from "./http-suite/status.js"
import { suppressionTopicTests } from "./http-suite/suppressions-topics.js"
import { tagAndBulkTests } from "./http-suite/tags-bulk.js"
import { transcriptTests } from "./http-suite/transcript.js"

/**
 * Declares the suite under `name`. `makeTarget` answers a Mailroom configured with adminToken "test-admin-token" and
 * the default limits (60 POST /contacts per minute, 8 MiB bodies); it is called once, and closed after the suite.
 */
export const httpSuite = (name: string, makeTarget: () => Promise<HttpTarget>) =>
  describe(`HTTP scenarios (${name})`, () => {
    let target: HttpTarget | undefined
    beforeAll(async () => {
      target = await makeTarget()
    })
    afterAll(async () => {
      await target?.close()
    })
    const client = makeClient(() => {
      if (target === undefined) throw new Error("the HTTP target is not ready")
      return target
    })
    const current = () => client

    authTests(current)
    contactTests(current)
    listTests(current)
    statusTests(current)
    tagAndBulkTests(current)
    limitTests(current)
    exportTests(current)
    suppressionTopicTests(current)
    transcriptTests(current)
  })

export type { HttpTarget } from "./http-suite/client.js"
