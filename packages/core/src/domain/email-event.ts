/** The email.* events of a message, in the webhook envelope's terms: recipient, sender, subject, status,
 *  smtpResponse, bounceReason and bounceType where they apply, the message id, and the send's metadata. Spec:
 *  audience "Events" (request envelope) and sending "Events". */
import type { AccountId } from "./account.js"
import type { DomainEvent, EventType } from "./event.js"

export type EmailEventType = Extract<EventType, `email.${string}`>

export interface EmailEventInput {
  readonly id: string
  readonly accountId: AccountId
  readonly type: EmailEventType
  readonly messageId: string
  readonly recipient: string
  readonly sender: string
  readonly subject: string
  readonly occurredAt: Date
  readonly smtpResponse?: string | undefined
  readonly bounceType?: string | undefined
  readonly bounceReason?: string | undefined
  /** Why a recipient was dropped (DUPLICATE_RECIPIENT, a send-time filter reason, …). */
  readonly reason?: string | undefined
  readonly metadata: Readonly<Record<string, unknown>> | null
  /** The template and release version of a message sent by template: `details.template` of every email.* event. */
  readonly template?: { readonly id: string; readonly version: number } | undefined
  /** Campaign mail: the campaign (audience "Events": messages carry the campaignId). */
  readonly campaignId?: string | undefined
}

/** The template a stored message names, as its events carry it: id and version only. */
export const eventTemplate = (
  template: { readonly id: string; readonly version: number } | undefined,
): { readonly id: string; readonly version: number } | undefined =>
  template === undefined ? undefined : { id: template.id, version: template.version }

/** The status word of each event, as the envelope's `status` field carries it. */
export const emailEventStatus: Record<EmailEventType, string> = {
  "email.queued": "queued",
  "email.delivered": "delivered",
  "email.bounced": "bounced",
  "email.deferred": "deferred",
  "email.dropped": "dropped",
  "email.received": "received",
  "email.opened": "opened",
  "email.clicked": "clicked",
}

/** The outbox event. Fields that do not apply are left out, as the envelope omits them. */
export const emailEvent = (input: EmailEventInput): DomainEvent => ({
  id: input.id,
  accountId: input.accountId,
  type: input.type,
  recipient: input.recipient,
  occurredAt: input.occurredAt,
  details: {
    messageId: input.messageId,
    sender: input.sender,
    subject: input.subject,
    status: emailEventStatus[input.type],
    ...(input.smtpResponse === undefined ? {} : { smtpResponse: input.smtpResponse }),
    ...(input.bounceType === undefined ? {} : { bounceType: input.bounceType }),
    ...(input.bounceReason === undefined ? {} : { bounceReason: input.bounceReason }),
    ...(input.reason === undefined ? {} : { reason: input.reason }),
    ...(input.metadata === null ? {} : { metadata: input.metadata }),
    ...(input.template === undefined ? {} : { template: input.template }),
    ...(input.campaignId === undefined ? {} : { campaignId: input.campaignId }),
  },
})
