/** The delivery canary over HTTP (docs/canary.md): POST /api/cron/email-canary runs it, with the cron token
 *  (CONTRACT.md, CRON_TOKEN; mounted only when one is configured, so that the route answers 404 otherwise), and the
 *  operator reads the last runs at GET /admin/canary/runs (admin.ts). */
import { createHash, timingSafeEqual } from "node:crypto"
import { Canary, type CanaryRun, canaryLimits, InvalidCredentials, limitParam, Unauthorized } from "@mailroom/core"
import { Effect, Schema } from "effect"
import { Hono } from "hono"
import { createMiddleware } from "hono/factory"
import { credentialOf, guardAttempt } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { errorResponse } from "../errors.js"

export const canaryRunJson = (run: CanaryRun) => ({
  id: run.id,
  status: run.status,
  recipient: run.recipient,
  messageId: run.messageId,
  startedAt: run.startedAt.toISOString(),
  finishedAt: run.finishedAt.toISOString(),
  latencyMs: run.latencyMs,
  authentication: run.authentication,
  error: run.error,
})

export const CanaryRunsParams = Schema.Struct({
  limit: Schema.optionalWith(limitParam(canaryLimits.maxLimit), { default: () => canaryLimits.defaultLimit }),
})

const digest = (text: string) => createHash("sha256").update(text).digest()

/** 401 unless the request carries `Authorization: Bearer <cronToken>`, compared in constant time (both sides hashed
 *  first, so that their lengths do not matter). Failed attempts count against the client like a wrong API key. */
const requireCronToken = (cronToken: string) => {
  const expected = digest(cronToken)
  return createMiddleware<MailroomEnv>(async (c, next) => {
    const outcome = await guardAttempt(c, async () => {
      const credential = credentialOf(c.req.header("authorization"))
      if (credential.kind === "none") return errorResponse(new Unauthorized({ detail: "missing cron token: send Authorization: Bearer <CRON_TOKEN>" }))
      if (credential.kind === "malformed" || !timingSafeEqual(digest(credential.token), expected)) {
        return errorResponse(new InvalidCredentials({ detail: "the cron token is not valid" }))
      }
      return true
    })
    if (outcome !== true) return outcome
    await next()
  })
}

/** POST /api/cron/email-canary: one run, answered when it finished: 200 when it passed, 502 when it failed (the mail
 *  path beyond Mailroom failed, and a cron runner that checks the status sees it), with the run either way. */
export const cronRoutes = (cronToken: string) =>
  new Hono<MailroomEnv>()
    .post("/api/cron/email-canary", requireCronToken(cronToken), (c) =>
      c.get("run")(Effect.gen(function* () {
        const canary = yield* Canary
        const run = yield* canary.run
        return c.json({ data: canaryRunJson(run) }, run.status === "passed" ? 200 : 502)
      })))
