/** What a delivery attempt, a report or an operator decided for recipients of a message, as written: their new status,
 *  the message events and the email.* outbox events, and what a hard bounce does to the address. Shared by delivery
 *  runs (message-delivery.ts), reports (feedback.ts) and the review of held recipients (delivery-service.ts). */
import { Effect } from "effect"
import type { DeliveryVerdict, RecipientResolution } from "../domain/delivery-outcome.js"
import { emailEvent, type EmailEventType, eventTemplate } from "../domain/email-event.js"
import type { DomainEvent } from "../domain/event.js"
import type { MessageEvent, MessageRecipient, RecipientUpdate, StoredMessage } from "../domain/message-record.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import { recordHardBounce } from "./hard-bounce.js"

/** The email.* outbox event and the message event of one recipient's verdict. */
export const eventsOf = (
  ids: { readonly make: (kind: "event" | "messageEvent", at: Date) => string },
  message: StoredMessage,
  recipient: string,
  subject: string,
  type: EmailEventType,
  verdict: DeliveryVerdict | undefined,
  at: Date,
  extra: { readonly reason?: string } = {},
): { readonly outbox: DomainEvent; readonly record: MessageEvent } => {
  const bounce = verdict?.status === "bounced" ? verdict : undefined
  return {
    outbox: emailEvent({
      id: ids.make("event", at),
      accountId: message.accountId,
      type,
      messageId: message.id,
      recipient,
      sender: message.content.from.email,
      subject,
      occurredAt: at,
      smtpResponse: verdict?.smtpResponse,
      bounceType: bounce?.bounceType,
      // A recipient dropped at delivery carries its reason as the envelope's bounceReason, as one dropped at acceptance.
      bounceReason: bounce?.bounceReason ?? extra.reason,
      reason: extra.reason,
      metadata: message.content.metadata,
      template: eventTemplate(message.content.template),
      campaignId: message.content.campaignId,
    }),
    record: {
      id: ids.make("messageEvent", at),
      accountId: message.accountId,
      messageId: message.id,
      recipient,
      type,
      occurredAt: at,
      smtpResponse: verdict?.smtpResponse ?? null,
      bounceType: bounce?.bounceType ?? null,
      bounceCode: bounce?.bounceCode ?? null,
      bounceReason: bounce?.bounceReason ?? extra.reason ?? null,
    },
  }
}

/** Records what one report or attempt decided for recipients of a message: their new status, the message events, the
 *  outbox events, and what a hard bounce does to the address (recordHardBounce). To run inside a Store transaction. */
export const recordResolutions = (
  message: StoredMessage,
  resolutions: Parameters<typeof writeResolutions>[1],
  at: Date,
) =>
  Effect.gen(function* () {
    const store = yield* Store
    const { outbox, records, updates } = yield* writeResolutions(message, resolutions, at)
    yield* store.messages.updateRecipients(message.accountId, updates)
    if (records.length > 0) yield* store.messages.appendEvents(records)
    if (outbox.length > 0) yield* store.events.append(outbox)
  })

/** recordResolutions without writing: it answers the recipients' updates and the events, for a caller that writes
 *  those of many messages at once. What a hard bounce does to the address is written here. */
export const writeResolutions = (
  message: StoredMessage,
  resolutions: ReadonlyArray<{
    readonly recipient: MessageRecipient
    readonly subject: string
    readonly resolution: RecipientResolution
    readonly addAttempts: number
    /** Record the event only: the recipient keeps its status (a delay reported by a later hop). */
    readonly keepStatus?: boolean
  }>,
  at: Date,
) =>
  Effect.gen(function* () {
    const ids = yield* Ids
    const updates: Array<RecipientUpdate> = []
    const outbox: Array<DomainEvent> = []
    const records: Array<MessageEvent> = []
    for (const { recipient, subject, resolution, addAttempts, keepStatus } of resolutions) {
      updates.push({
        messageId: message.id,
        position: recipient.position,
        status: keepStatus === true ? recipient.status : resolution.status,
        addAttempts,
        lastResponse: resolution.verdict.smtpResponse,
        at,
      })
      if (resolution.event !== null) {
        const made = eventsOf(ids, message, recipient.email, subject, resolution.event, resolution.verdict, at)
        outbox.push(made.outbox)
        records.push(made.record)
      }
      if (resolution.suppression !== null) {
        yield* recordHardBounce(message.accountId, recipient.email, { ...resolution.suppression, messageId: message.id }, at)
      }
    }
    return { outbox, records, updates }
  })
