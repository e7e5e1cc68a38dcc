/** /v1/emails/validate: one address checked at once, and bulk validation as a job (202 with its id; GET
 *  /emails/validate/bulk/{id} reads its progress and results). Spec: sending "Endpoints" (Validate); the bulk answer
 *  is Mailroom's design (docs/validation.md). POST /emails/validate has its own rate (rate-limit.ts: 50 per second). */
import { AddressValidation, type AddressVerdict, type BulkValidation, progressOf, type ValidationJobProgress } from "@mailroom/core"
import { Effect } from "effect"
import { Hono } from "hono"
import { requireScope } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { ok } from "../envelope.js"
import { readJson } from "../validation.js"

const iso = (date: Date | null) => date === null ? null : date.toISOString()

/** One address's answer: the spec's fields, plus `checks.catchAll` and `reason`. */
export const verdictBody = (verdict: AddressVerdict) => ({
  email: verdict.email,
  valid: verdict.valid,
  checks: verdict.checks,
  suggestion: verdict.suggestion,
  reason: verdict.reason,
})

/** A bulk job as the API shows it; `results` only when read (null until the job finished). */
export const bulkJobBody = (job: ValidationJobProgress, results?: ReadonlyArray<AddressVerdict> | null) => ({
  id: job.id,
  status: job.status,
  total: job.total,
  processed: job.processed,
  progress: Math.floor((job.processed * 100) / job.total),
  extended: job.extended,
  timeout: job.timeoutMs,
  continueOnError: job.continueOnError,
  error: job.error,
  createdAt: job.createdAt.toISOString(),
  startedAt: iso(job.startedAt),
  completedAt: iso(job.completedAt),
  ...(results === undefined ? {} : {
    results: results === null ? null : results.map((verdict) => ({ ...verdictBody(verdict), error: verdict.error })),
  }),
})

const readBulk = ({ job, results }: BulkValidation) => bulkJobBody(job, results)

const validate = requireScope("emails:send")

export const validationRoutes = new Hono<MailroomEnv>()
  .post("/emails/validate", validate, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* readJson<unknown>(c)
      return c.json(ok(verdictBody(yield* (yield* AddressValidation).validate(c.get("account"), body))))
    })))
  .post("/emails/validate/bulk", validate, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* readJson<unknown>(c)
      return c.json(ok(bulkJobBody(progressOf(yield* (yield* AddressValidation).startBulk(c.get("account"), body)))), 202)
    })))
  .get("/emails/validate/bulk/:id", validate, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(readBulk(yield* (yield* AddressValidation).getBulk(c.get("account"), c.req.param("id")))))
    })))
