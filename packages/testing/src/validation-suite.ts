/** The address validation scenario suite: POST /emails/validate and the bulk routes over HTTP, against a Mailroom
 *  whose DNS lookups go to a real DNS server on 127.0.0.1 and whose SMTP probe reaches real servers on one port
 *  (validation-suite/setup.ts). Each backend runs it against itself. */
import { afterAll, beforeAll, describe } from "vitest"
import type { HttpTarget } from "./http-suite/client.js"
import { bulkValidationTests } from "./validation-suite/bulk.js"
import { startValidationContext, type ValidationContext, type ValidationTargetConfig } from "./validation-suite/setup.js"
import { singleValidationTests } from "./validation-suite/single.js"

export type { ValidationTargetConfig } from "./validation-suite/setup.js"

export const validationSuite = (name: string, makeTarget: (config: ValidationTargetConfig) => Promise<HttpTarget>) =>
  describe(`address validation (${name})`, () => {
    let context: ValidationContext | undefined
    let stop: (() => Promise<void>) | undefined
    beforeAll(async () => {
      const started = await startValidationContext(makeTarget)
      context = started.context
      stop = started.stop
    })
    afterAll(async () => {
      await stop?.()
    })
    const ctx = () => {
      if (context === undefined) throw new Error("the validation target is not ready")
      return context
    }
    singleValidationTests(ctx)
    bulkValidationTests(ctx)
  })
