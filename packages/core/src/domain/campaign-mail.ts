/** The mail of a campaign: what every message of it carries (CampaignMail), the message, email.queued event and
 *  message-log row of one recipient, and the pacing of its delivery. The memory backend builds the rows with these
 *  functions; the SQL backends write the same rows with INSERT … SELECT statements (packages/sql/src/campaign-chunk.ts),
 *  the ids derived from the campaign and the contact alike. docs/campaigns.md, "Sending". */
import type { AccountId } from "./account.js"
import { type Campaign, contactValues, type QueuedRecipient } from "./campaign.js"
import { emailEvent } from "./email-event.js"
import type { DomainEvent } from "./event.js"
import type { MessageId } from "./message.js"
import type { MessageEvent, StoredContent, StoredMessage } from "./message-record.js"

/** The ids of a campaign's rows for one contact: prefix + contact id, so that a recipient queued twice (a chunk run
 *  again after a crash) collides with itself instead of making a second message or event. */
export interface CampaignIdPrefixes {
  readonly message: string
  readonly event: string
  readonly messageEvent: string
}

export const campaignIdPrefixes = (campaignId: string): CampaignIdPrefixes => {
  const key = campaignId.replace(/^cmp_/, "c")
  return { message: `msg_${key}_`, event: `evt_${key}_`, messageEvent: `mev_${key}_` }
}

/** The id of the message of a campaign to one contact. */
export const campaignMessagePrefix = (campaignId: string): string => campaignIdPrefixes(campaignId).message

/** What every message of a campaign carries: its content without the recipient's contact fields, and the id prefixes. */
export interface CampaignMail {
  readonly accountId: AccountId
  readonly campaignId: string
  readonly content: Omit<StoredContent, "contact">
  readonly ids: CampaignIdPrefixes
}

/** The campaign's mail: its content as marketing mail under its topic, tracked as its lists say, a design at the
 *  release `version` (the live one when the chunk runs; delivery reads that release). */
export const campaignMail = (campaign: Campaign, tracked: boolean, version: number): CampaignMail => ({
  accountId: campaign.accountId,
  campaignId: campaign.id,
  ids: campaignIdPrefixes(campaign.id),
  content: {
    from: campaign.from,
    replyTo: campaign.replyTo ?? undefined,
    subject: campaign.subject,
    html: campaign.html ?? undefined,
    text: campaign.text ?? undefined,
    attachments: [],
    categories: [],
    tags: {},
    metadata: null,
    stream: "marketing",
    topicId: campaign.topicId,
    track: tracked,
    variables: campaign.variables,
    duplicates: [],
    template: campaign.templateId === null ? undefined : {
      id: campaign.templateId, version, subject: campaign.subject, variables: campaign.variables,
      ...(campaign.brandId === null ? {} : { brandId: campaign.brandId }),
    },
    campaignId: campaign.id,
  },
})

type Recipient = Pick<QueuedRecipient, "contactId" | "email" | "firstName" | "lastName" | "customFields">

/** The message of the campaign to one eligible recipient: the campaign's content with the contact's fields. */
export const campaignMessage = (mail: CampaignMail, recipient: Recipient, at: Date): StoredMessage => ({
  id: `${mail.ids.message}${recipient.contactId}` as MessageId,
  accountId: mail.accountId,
  batchId: null,
  state: "queued",
  content: { ...mail.content, contact: contactValues(recipient) },
  recipients: [{
    position: 0, email: recipient.email, name: undefined, field: "to", status: "queued", attempts: 0, lastResponse: null, updatedAt: at,
  }],
  scheduledFor: null,
  createdAt: at,
})

/** The email.queued outbox event and message-log row of one recipient's message. */
export const campaignQueuedEvents = (
  mail: CampaignMail, recipient: Pick<Recipient, "contactId" | "email">, at: Date,
): { readonly outbox: DomainEvent; readonly log: MessageEvent } => {
  const messageId = `${mail.ids.message}${recipient.contactId}` as MessageId
  return {
    outbox: emailEvent({
      id: `${mail.ids.event}${recipient.contactId}`, accountId: mail.accountId, type: "email.queued", messageId,
      recipient: recipient.email, sender: mail.content.from.email, subject: mail.content.subject, occurredAt: at,
      metadata: null, campaignId: mail.campaignId,
    }),
    log: {
      id: `${mail.ids.messageEvent}${recipient.contactId}`, accountId: mail.accountId, messageId, recipient: recipient.email,
      type: "email.queued", occurredAt: at, smtpResponse: null, bounceType: null, bounceCode: null, bounceReason: null,
    },
  }
}

/** The delivery runs of a chunk's messages, paced at `rate` messages per second: runs of `batch` messages, the k-th
 *  not before `from + k × batch / rate` (from: the campaign's next free slot, or now when that passed). Answers the runs
 *  and the campaign's next free slot, so that the next chunk continues the pace where this one ends. */
export const paceDeliveries = (
  messageIds: ReadonlyArray<string>, options: { readonly batch: number; readonly rate: number; readonly from: Date | null; readonly at: Date },
): { readonly runs: ReadonlyArray<{ readonly messageIds: ReadonlyArray<string>; readonly runAt: Date }>; readonly next: Date | null } => {
  if (messageIds.length === 0) return { runs: [], next: options.from }
  const start = Math.max(options.from?.getTime() ?? 0, options.at.getTime())
  const slot = (position: number) => new Date(start + Math.ceil((position / options.rate) * 1000))
  const runs: Array<{ readonly messageIds: ReadonlyArray<string>; readonly runAt: Date }> = []
  for (let position = 0; position < messageIds.length; position += options.batch) {
    runs.push({ messageIds: messageIds.slice(position, position + options.batch), runAt: slot(position) })
  }
  return { runs, next: slot(messageIds.length) }
}
