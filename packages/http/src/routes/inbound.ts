/** /v1/inbound: reports that mail systems send back after delivery, each as one raw message (not shown in the spec;
 *  docs/sending.md, "Bounces and complaints that arrive later"). POST /inbound/bounces takes a delivery status
 *  notification (RFC 3464), POST /inbound/complaints a feedback-loop report (ARF, RFC 5965). A host pipes an inbound
 *  mailbox or a provider's notification into them. Both need the `suppressions:write` scope. */
import { Feedback, ValidationFailed } from "@mailroom/core"
import { Effect } from "effect"
import { Hono } from "hono"
import { requireScope } from "../auth.js"
import { readBody } from "../body.js"
import type { MailroomEnv } from "../env.js"
import { ok } from "../envelope.js"
import { parseDeliveryStatusNotification, parseFeedbackReport } from "../feedback-reports.js"

/** A report is a mail message: a few KiB, a returned original rarely more. Larger bodies answer 413. */
export const inboundReportLimitBytes = 10 * 1024 * 1024

const rawMessage = (request: Request) =>
  Effect.flatMap(readBody(request, inboundReportLimitBytes), (bytes) =>
    bytes.length === 0
      ? Effect.fail(new ValidationFailed({ field: "message", detail: "the request body is empty; send the raw report message (message/rfc822)" }))
      : Effect.succeed(bytes))

export const inboundRoutes = new Hono<MailroomEnv>()
  .post("/inbound/bounces", requireScope("suppressions:write"), (c) =>
    c.get("run")(Effect.gen(function* () {
      const report = yield* parseDeliveryStatusNotification(yield* rawMessage(c.req.raw))
      const feedback = yield* Feedback
      const outcomes = yield* feedback.recordDeliveryReport(c.get("account"), report)
      return c.json(ok({ type: "delivery_status", recipients: outcomes }))
    })))
  .post("/inbound/complaints", requireScope("suppressions:write"), (c) =>
    c.get("run")(Effect.gen(function* () {
      const report = yield* parseFeedbackReport(yield* rawMessage(c.req.raw))
      const feedback = yield* Feedback
      const outcomes = yield* feedback.recordComplaint(c.get("account"), report)
      return c.json(ok({ type: "complaint", feedbackType: report.feedbackType, recipients: outcomes }))
    })))
