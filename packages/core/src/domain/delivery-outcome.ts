/** What a relay's answer, a delivery status notification or a feedback-loop report means for one recipient: which
 *  email.* event it gives, whether it is hard (a Bounce suppression) or soft, and when a deferral is tried again.
 *  Spec: sending, "Events" and rules 2-4; audience, "Suppression reasons"; RFC 3463 (enhanced status codes),
 *  RFC 3464 (DSN), RFC 5965 (ARF). Pure. */
import type { RecipientOutcome } from "../ports/mailer.js"

export type BounceType = "hard" | "soft"

export type DeliveryVerdict =
  | { readonly status: "delivered"; readonly smtpResponse: string }
  /** A temporary failure: the recipient is tried again after a delay, with the quota reserved at acceptance. */
  | { readonly status: "deferred"; readonly smtpResponse: string }
  /** A permanent failure. A hard bounce adds a Bounce suppression; a soft one (a 5xx reply whose enhanced code says
   *  the condition is temporary, such as 4.2.2 mailbox full) does not. */
  | {
    readonly status: "bounced"
    readonly bounceType: BounceType
    /** The enhanced status code when there is one, else the reply code. */
    readonly bounceCode: string
    readonly bounceReason: string
    readonly smtpResponse: string
  }
  /** The outcome is unknown (the connection broke after DATA): the recipient is held for review, never re-sent by
   *  itself, since it may have received the message already (rule 4). */
  | { readonly status: "held"; readonly smtpResponse: string }

/** An RFC 3463 enhanced status code: class 2, 4 or 5, a subject and a detail. */
export const enhancedCodePattern = /^([245])\.(\d{1,3})\.(\d{1,3})$/

/** The enhanced code at the start of a reply text ("550 5.1.1 user unknown" or "5.1.1 user unknown"), if any. */
export const enhancedCodeIn = (reply: string): string | undefined =>
  /^(?:\d{3}[ -])?\s*([245]\.\d{1,3}\.\d{1,3})\b/.exec(reply.trim())?.[1]

/** The class of a reply: its enhanced code's when there is one, since "a 5.x.x is hard whatever the relay calls it";
 *  else the reply code's first digit. */
const classOf = (code: number | undefined, enhanced: string | undefined): "2" | "4" | "5" | undefined => {
  const fromEnhanced = enhanced === undefined ? undefined : enhancedCodePattern.exec(enhanced)?.[1]
  if (fromEnhanced === "5") return "5"
  if (code !== undefined && code >= 200 && code < 600) {
    const digit = String(code)[0]
    if (digit === "2" || digit === "4" || digit === "5") return digit
  }
  return fromEnhanced as "2" | "4" | undefined
}

const smtpResponseOf = (outcome: RecipientOutcome) =>
  outcome.code === undefined || outcome.reply.startsWith(String(outcome.code))
    ? outcome.reply
    : `${outcome.code} ${outcome.reply}`

/** The relay's answer for one recipient. 2xx: delivered. 4xx: deferred. 5xx: bounced, hard unless its enhanced code
 *  is a 4.x.x; a 5.x.x enhanced code is hard even on a 4xx reply. `unknown`: held. A status without a code falls back
 *  on what the Mailer called it. */
export const classifyOutcome = (outcome: RecipientOutcome): DeliveryVerdict => {
  const smtpResponse = smtpResponseOf(outcome)
  if (outcome.status === "unknown") return { status: "held", smtpResponse }
  const enhanced = outcome.enhancedCode ?? enhancedCodeIn(outcome.reply)
  const replyClass = classOf(outcome.code, enhanced)
    ?? (outcome.status === "accepted" ? "2" : outcome.status === "deferred" ? "4" : "5")
  switch (replyClass) {
    case "2":
      return { status: "delivered", smtpResponse }
    case "4":
      return { status: "deferred", smtpResponse }
    case "5":
      return {
        status: "bounced",
        bounceType: enhanced !== undefined && enhanced.startsWith("4.") ? "soft" : "hard",
        bounceCode: enhanced ?? String(outcome.code ?? 550),
        bounceReason: outcome.reply,
        smtpResponse,
      }
  }
}

/** Delays between delivery attempts of a deferred recipient: about 52 hours in all (mail servers keep trying for days;
 *  RFC 5321 4.5.4.1 suggests four to five). After the last one the recipient bounces softly. */
export const deferralDelays = [
  "1 minute", "5 minutes", "15 minutes", "30 minutes", "1 hour", "2 hours", "4 hours", "8 hours", "12 hours",
  "12 hours", "12 hours",
] as const

/** The verdict once every retry of a deferred recipient has been used. */
export const gaveUp = (attempts: number, last: string): DeliveryVerdict => ({
  status: "bounced",
  bounceType: "soft",
  bounceCode: enhancedCodeIn(last) ?? "4.4.7",
  bounceReason: `not delivered after ${attempts} attempts; last answer: ${last}`,
  smtpResponse: last,
})

/** One per-recipient block of a delivery status notification (RFC 3464 section 2.3). */
export interface DsnRecipientFields {
  readonly action: string
  readonly status: string
  readonly diagnosticCode?: string | undefined
}

/** What a DSN's recipient block means: `failed` is a bounce (hard unless its status is 4.x.x), `delayed` a deferral
 *  reported by a later hop; `delivered`, `relayed` and `expanded` change nothing (undefined). */
export const classifyDsnRecipient = (fields: DsnRecipientFields): DeliveryVerdict | undefined => {
  const action = fields.action.trim().toLowerCase()
  const status = /^\s*([245]\.\d{1,3}\.\d{1,3})/.exec(fields.status)?.[1]
  const diagnostic = (fields.diagnosticCode ?? "").replace(/^\s*smtp\s*;\s*/i, "").trim()
  const smtpResponse = diagnostic !== "" ? diagnostic : `${fields.action} ${fields.status}`.trim()
  if (action === "failed") {
    return {
      status: "bounced",
      bounceType: status !== undefined && status.startsWith("4.") ? "soft" : "hard",
      bounceCode: status ?? "5.0.0",
      bounceReason: diagnostic !== "" ? diagnostic : `delivery failed with status ${fields.status}`,
      smtpResponse,
    }
  }
  if (action === "delayed") return { status: "deferred", smtpResponse }
  return undefined
}

/** Feedback types of RFC 5965 that report unwanted mail. `not-spam` withdraws a report and adds nothing. */
export const complaintFeedbackTypes = ["abuse", "fraud", "virus", "other"] as const

export const isComplaint = (feedbackType: string): boolean =>
  (complaintFeedbackTypes as ReadonlyArray<string>).includes(feedbackType.trim().toLowerCase())

/** The message and recipient a Message-ID of Mailroom's form (`<msg_…-3@domain>`) names, if it is one. */
export const parseRecipientMessageId = (messageId: string): { readonly messageId: string; readonly index: number } | undefined => {
  const match = /^<?(msg_[0-9a-z]+)-(\d{1,3})@[^>\s]+>?$/.exec(messageId.trim())
  return match === null ? undefined : { messageId: match[1]!, index: Number(match[2]) }
}

/** What the delivery job records for one recipient once it has a verdict. */
export interface RecipientResolution {
  readonly status: "delivered" | "deferred" | "bounced" | "held"
  /** The email.* event to emit; none for a held recipient (nothing is known yet). */
  readonly event: "email.delivered" | "email.deferred" | "email.bounced" | null
  /** True when the recipient is to be tried again (a deferral with attempts left). */
  readonly retry: boolean
  /** The verdict the event reports (a deferral on the last attempt becomes a soft bounce). */
  readonly verdict: DeliveryVerdict
  /** A hard bounce adds a Bounce suppression with these details; null otherwise. */
  readonly suppression: { readonly bounceCode: string; readonly bounceReason: string } | null
}

/** The recipient's new status after attempt number `attempt` (1 for the first) gave `verdict`: a deferral is tried
 *  again while attempts are left (deferralDelays), then bounces softly; a hard bounce suppresses the address. */
export const resolveRecipient = (verdict: DeliveryVerdict, attempt: number): RecipientResolution => {
  switch (verdict.status) {
    case "delivered":
      return { status: "delivered", event: "email.delivered", retry: false, verdict, suppression: null }
    case "held":
      return { status: "held", event: null, retry: false, verdict, suppression: null }
    case "deferred": {
      if (attempt <= deferralDelays.length) return { status: "deferred", event: "email.deferred", retry: true, verdict, suppression: null }
      const final = gaveUp(attempt, verdict.smtpResponse)
      return { status: "bounced", event: "email.bounced", retry: false, verdict: final, suppression: null }
    }
    case "bounced":
      return {
        status: "bounced",
        event: "email.bounced",
        retry: false,
        verdict,
        suppression: verdict.bounceType === "hard" ? { bounceCode: verdict.bounceCode, bounceReason: verdict.bounceReason } : null,
      }
  }
}
