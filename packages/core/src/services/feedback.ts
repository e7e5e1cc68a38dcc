/** Reports that arrive after delivery: delivery status notifications (RFC 3464: asynchronous bounces and delays) and
 *  feedback-loop complaints (ARF, RFC 5965). The HTTP layer parses the raw message; this service decides what the
 *  report means for the account's message and recipient, and records it in one transaction. Not shown in the spec;
 *  docs/sending.md documents the routes. */
import { Effect, Option } from "effect"
import type { Account } from "../domain/account.js"
import type { ContactId } from "../domain/contact.js"
import { classifyDsnRecipient, isComplaint, parseRecipientMessageId, resolveRecipient } from "../domain/delivery-outcome.js"
import type { EmailAddress } from "../domain/email.js"
import type { MessageId } from "../domain/message.js"
import type { MessageRecipient, StoredMessage } from "../domain/message-record.js"
import { unsubscribedEvent } from "../domain/subscription.js"
import type { Suppression, SuppressionId } from "../domain/suppression.js"
import { ValidationFailed } from "../errors.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import { recordHardBounce } from "./hard-bounce.js"
import { recordResolutions } from "./delivery-record.js"
import { serviceMethod } from "./tracing.js"
import { currentDate } from "../internal/time.js"

/** One recipient block of a delivery status notification, as parsed. */
export interface DsnRecipientReport {
  readonly recipient: string | undefined
  readonly action: string
  readonly status: string
  readonly diagnosticCode?: string | undefined
}

export interface DeliveryReportInput {
  readonly originalMessageIds: ReadonlyArray<string>
  readonly recipients: ReadonlyArray<DsnRecipientReport>
}

export interface ComplaintReportInput {
  readonly feedbackType: string
  readonly originalMessageIds: ReadonlyArray<string>
  readonly originalRcptTo: ReadonlyArray<string>
}

/** What a report did for one address. */
export interface ReportOutcome {
  readonly recipient: string
  /** The Mailroom message the report was matched to, or null (a bounce or complaint about an address only). */
  readonly messageId: string | null
  /** bounced (hard or soft), deferred, complained, or ignored (nothing to record: a `delivered` action, a not-spam
   *  report, a recipient the account's message does not have). */
  readonly result: "bounced" | "deferred" | "complained" | "ignored"
  readonly bounceType?: "hard" | "soft" | undefined
  readonly detail?: string | undefined
}

/** The account's messages (and recipient positions) named by a report's Message-IDs. */
const matchMessages = (account: Account, messageIds: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const store = yield* Store
    const matched: Array<{ readonly message: StoredMessage; readonly recipient: MessageRecipient | undefined }> = []
    for (const id of messageIds) {
      const parsed = parseRecipientMessageId(id)
      if (parsed === undefined || matched.some((m) => m.message.id === parsed.messageId)) continue
      const found = yield* store.messages.findById(account.id, parsed.messageId as MessageId)
      if (Option.isSome(found)) {
        matched.push({ message: found.value, recipient: found.value.recipients.find((r) => r.position === parsed.index) })
      }
    }
    return matched
  })

const lower = (email: string | undefined) => email?.trim().toLowerCase()

export class Feedback extends Effect.Service<Feedback>()("@mailroom/core/Feedback", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const method = yield* serviceMethod
    const now = currentDate

    /** A delivery status notification: each `failed` recipient bounces (hard unless its status is 4.x.x; a hard one
     *  adds a Bounce suppression and moves an ACTIVE contact to BOUNCED: recordHardBounce), each `delayed` one gets
     *  email.deferred; the recipient is found by the Message-ID Mailroom gave it, else by address among the matched
     *  message's recipients. A hard bounce of an address no message of the account matches still does both. */
    const recordDeliveryReport = method("Feedback.recordDeliveryReport")(function* (account: Account, report: DeliveryReportInput) {
      if (report.recipients.length === 0) {
        return yield* Effect.fail(new ValidationFailed({ field: "message", detail: "names no recipient" }))
      }
      const at = yield* now
      return yield* store.transaction(Effect.gen(function* () {
        const matched = yield* matchMessages(account, report.originalMessageIds)
        const outcomes: Array<ReportOutcome> = []
        for (const block of report.recipients) {
          const verdict = classifyDsnRecipient(block)
          const address = lower(block.recipient)
          const match = matched.find((m) => address === undefined ? m.recipient !== undefined : m.recipient?.email === address)
            ?? matched.find((m) => address !== undefined && m.message.recipients.some((r) => r.email === address))
          const recipient = match === undefined
            ? undefined
            : (address === undefined || match.recipient?.email === address ? match.recipient : match.message.recipients.find((r) => r.email === address))
          const email = recipient?.email ?? address
          if (verdict === undefined || email === undefined) {
            outcomes.push({ recipient: email ?? "", messageId: match?.message.id ?? null, result: "ignored", detail: `action ${block.action}` })
            continue
          }
          if (match !== undefined && recipient !== undefined) {
            // A later hop's delay reports an event; the recipient keeps the status the relay's answer gave it.
            yield* recordResolutions(match.message, [{
              recipient, subject: match.message.content.subject, resolution: resolveRecipient(verdict, 1), addAttempts: 0,
              keepStatus: verdict.status === "deferred",
            }], at)
            outcomes.push({
              recipient: email, messageId: match.message.id, result: verdict.status === "bounced" ? "bounced" : "deferred",
              bounceType: verdict.status === "bounced" ? verdict.bounceType : undefined,
            })
            continue
          }
          if (verdict.status === "bounced" && verdict.bounceType === "hard") {
            yield* recordHardBounce(account.id, email, { bounceCode: verdict.bounceCode, bounceReason: verdict.bounceReason, messageId: null }, at)
            outcomes.push({ recipient: email, messageId: null, result: "bounced", bounceType: "hard" })
          } else {
            outcomes.push({ recipient: email, messageId: null, result: "ignored", detail: "no message of the account matches" })
          }
        }
        return outcomes
      }))
    })

    const suppression = (account: Account, email: string, reason: Suppression["reason"], details: Record<string, unknown>, at: Date): Suppression => ({
      id: ids.make("suppression", at) as SuppressionId,
      accountId: account.id,
      email: email as EmailAddress,
      reason,
      details,
      createdAt: at,
      updatedAt: at,
    })

    /** A feedback-loop complaint: the address (from the Message-ID Mailroom gave it, else Original-Rcpt-To) gets a
     *  Complaint suppression (replacing any other reason), its contact becomes COMPLAINED, and contact.unsubscribed
     *  fires with method `complaint` and scope `all`. A `not-spam` report, or another type that reports no unwanted
     *  mail, records nothing. */
    const recordComplaint = method("Feedback.recordComplaint")(function* (account: Account, report: ComplaintReportInput) {
      const at = yield* now
      return yield* store.transaction(Effect.gen(function* () {
        const matched = yield* matchMessages(account, report.originalMessageIds)
        const fromIds = matched.flatMap((m) => m.recipient === undefined ? [] : [{ email: m.recipient.email, messageId: m.message.id }])
        const named = fromIds.length > 0
          ? fromIds
          : [...new Set(report.originalRcptTo.map((e) => e.trim().toLowerCase()))].map((email) => ({ email, messageId: null as string | null }))
        if (named.length === 0) {
          return yield* Effect.fail(new ValidationFailed({
            field: "message",
            detail: "names no recipient: neither a Message-ID of a message sent by this account nor an Original-Rcpt-To",
          }))
        }
        if (!isComplaint(report.feedbackType)) {
          return named.map(({ email, messageId }): ReportOutcome => ({ recipient: email, messageId, result: "ignored", detail: `feedback type ${report.feedbackType}` }))
        }
        const outcomes: Array<ReportOutcome> = []
        for (const { email, messageId } of named) {
          yield* store.suppressions.put(suppression(account, email, "Complaint", {
            feedbackType: report.feedbackType, messageId, recordedAt: at.toISOString(),
          }, at))
          const contact = yield* store.contacts.findByEmail(account.id, email as EmailAddress)
          let contactId: ContactId | null = null
          if (Option.isSome(contact)) {
            contactId = contact.value.id
            if (contact.value.status !== "COMPLAINED") {
              yield* store.contacts.update({ ...contact.value, status: "COMPLAINED", unsubscribedAt: contact.value.unsubscribedAt ?? at, updatedAt: at })
            }
          }
          yield* store.events.append([unsubscribedEvent({ id: ids.make("event", at), accountId: account.id, occurredAt: at }, {
            email, contactId, scope: "all", listId: null, topicId: null, method: "complaint",
            reason: `feedback report: ${report.feedbackType}`,
          })])
          outcomes.push({ recipient: email, messageId, result: "complained" })
        }
        return outcomes
      }))
    })

    return { recordDeliveryReport, recordComplaint } as const
  }),
}) {}
