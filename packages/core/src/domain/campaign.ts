/** Campaigns: one message to the members of one or more lists, sent in chunks. The states follow listmonk (draft,
 *  scheduled, running, paused, cancelled, finished); the audience rules are the spec's rule 6 and the marketing row
 *  of the send-time filtering table (audience "Rules", "Send-time filtering"). docs/campaigns.md describes the API. */
import { Either, Schema } from "effect"
import { ValidationFailed } from "../errors.js"
import type { AccountId } from "./account.js"
import type { ContactStatus } from "./contact.js"
import type { ContactList } from "./list.js"
import { EmailAddressInput, Subject } from "./message.js"
import type { SegmentRules } from "./segment.js"
import { applicableChecks, type IneligibleReason, ineligibility, type RecipientFacts, type SendScope, type SuppressionReason } from "./suppression.js"

export const CampaignId = Schema.String.pipe(Schema.brand("CampaignId"))
export type CampaignId = typeof CampaignId.Type

export const campaignStatuses = ["draft", "scheduled", "running", "paused", "cancelled", "finished"] as const
export const CampaignStatus = Schema.Literal(...campaignStatuses)
export type CampaignStatus = typeof CampaignStatus.Type

export const campaignLimits = {
  name: 255,
  lists: 20,
  variables: 100,
  /** A test send goes to at most this many addresses. */
  testAddresses: 5,
  /** A campaign is scheduled at most this far ahead. */
  scheduleAheadDays: 365,
  pageSize: 20,
  maxPageSize: 100,
  /** Audience members resolved into the campaign's queue by one chunk (one INSERT … SELECT). */
  chunkSize: 20_000,
  /** Most messages one send run writes; a run writes about one second's worth at the account's rate. */
  sendBatch: 500,
  /** Messages per second when the account sets none. */
  defaultRate: 50,
} as const

/** The drop reason of a queued recipient whose contact was deleted before its message was written: the send run that
 *  reaches it drops it (progress.dropped counts it), and no message is written. */
export const contactDeletedReason = "CONTACT_DELETED"

/** The category every campaign's mail carries (docs/campaigns.md, "Analytics"): its delivery and engagement figures
 *  can then be read apart from API mail (the analytics export's `categories=campaign`). */
export const campaignCategory = "campaign"

/** The categories of a campaign's messages: `campaignCategory`. Campaigns have no categories of their own; when they
 *  get some, they are added here, for every path that writes a campaign's messages. */
export const campaignCategories = (_campaign: Pick<Campaign, "id">): ReadonlyArray<string> => [campaignCategory]

/** A campaign as stored. Contacts are walked in id order twice: `cursor` is the id of the last contact of the audience
 *  already resolved into the campaign's queue (its recipients), and `sendCursor` the id of the last queued recipient
 *  whose message was written and handed to delivery. Both resume where they stopped. */
export interface Campaign {
  readonly id: CampaignId
  readonly accountId: AccountId
  readonly name: string
  readonly status: CampaignStatus
  readonly listIds: ReadonlyArray<string>
  readonly topicId: string | null
  readonly templateId: string | null
  readonly brandId: string | null
  readonly subject: string
  readonly html: string | null
  readonly text: string | null
  readonly from: EmailAddressInput
  readonly replyTo: EmailAddressInput | null
  readonly variables: Readonly<Record<string, string>>
  readonly scheduledAt: Date | null
  readonly startedAt: Date | null
  readonly finishedAt: Date | null
  /** Why a campaign stopped on its own (QUOTA_EXCEEDED), or null. */
  readonly stopReason: string | null
  /** Audience size counted when sending started; null before. */
  readonly audienceSize: number | null
  readonly cursor: string | null
  /** When the whole audience was resolved into the queue; null until then. */
  readonly queuedAt: Date | null
  readonly sendCursor: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

const Name = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  Schema.maxLength(campaignLimits.name, { message: () => `must be at most ${campaignLimits.name} characters` }),
)
const ListIds = Schema.Array(Schema.String).pipe(
  Schema.minItems(1, { message: () => "name at least one list" }),
  Schema.maxItems(campaignLimits.lists, { message: () => `name at most ${campaignLimits.lists} lists` }),
)
const Variables = Schema.Record({ key: Schema.String, value: Schema.String }).pipe(
  Schema.filter((v) => Object.keys(v).length <= campaignLimits.variables || `at most ${campaignLimits.variables} variables`),
)

const contentFields = {
  name: Name,
  listIds: ListIds,
  topicId: Schema.optional(Schema.NullOr(Schema.String)),
  templateId: Schema.optional(Schema.NullOr(Schema.String)),
  brandId: Schema.optional(Schema.NullOr(Schema.String)),
  subject: Subject,
  html: Schema.optional(Schema.NullOr(Schema.String)),
  text: Schema.optional(Schema.NullOr(Schema.String)),
  from: EmailAddressInput,
  replyTo: Schema.optional(Schema.NullOr(EmailAddressInput)),
  variables: Schema.optional(Variables),
}

/** Body of POST /campaigns. */
export const CreateCampaignInput = Schema.Struct(contentFields)
export type CreateCampaignInput = typeof CreateCampaignInput.Type

/** Body of PATCH /campaigns/{id}: only the fields sent change. */
export const UpdateCampaignInput = Schema.partial(Schema.Struct(contentFields))
export type UpdateCampaignInput = typeof UpdateCampaignInput.Type

/** Body of POST /campaigns/{id}/send: at once, or at `scheduledAt` (within a year). */
export const SendCampaignInput = Schema.Struct({ scheduledAt: Schema.optional(Schema.DateFromString) })

/** Body of POST /campaigns/{id}/test. */
export const TestCampaignInput = Schema.Struct({
  to: Schema.Array(EmailAddressInput.fields.email).pipe(
    Schema.minItems(1, { message: () => "give at least one address" }),
    Schema.maxItems(campaignLimits.testAddresses, { message: () => `give at most ${campaignLimits.testAddresses} addresses` }),
  ),
})

/** A campaign carries a design (templateId) or inline content (html or text), not both and not neither. */
export const checkContent = (c: Pick<Campaign, "templateId" | "html" | "text">): Either.Either<void, ValidationFailed> =>
  c.templateId !== null && (c.html !== null || c.text !== null)
    ? Either.left(new ValidationFailed({ field: "templateId", detail: "give a templateId or inline html/text, not both" }))
    : c.templateId === null && c.html === null && c.text === null
      ? Either.left(new ValidationFailed({ field: "html", detail: "give a templateId or inline html or text" }))
      : Either.void

/** The controls of a campaign and the states they move from. Spec anchors: listmonk's campaign states. */
export const campaignMoves = {
  edit: ["draft"],
  delete: ["draft"],
  send: ["draft"],
  pause: ["scheduled", "running"],
  resume: ["paused"],
  cancel: ["draft", "scheduled", "running", "paused"],
} as const satisfies Record<string, ReadonlyArray<CampaignStatus>>
export type CampaignAction = keyof typeof campaignMoves

export const canMove = (action: CampaignAction, from: CampaignStatus): boolean =>
  (campaignMoves[action] as ReadonlyArray<CampaignStatus>).includes(from)

/** Who the campaign goes to, resolved from its lists: members of the STATIC lists, contacts matching each DYNAMIC
 *  list's rules, and the topics whose opt-outs block (the campaign's own and every target list's topic tag). */
export interface CampaignAudience {
  readonly staticListIds: ReadonlyArray<string>
  readonly segments: ReadonlyArray<SegmentRules>
  readonly topicIds: ReadonlyArray<string>
}

export const resolveAudience = (topicId: string | null, lists: ReadonlyArray<ContactList>): CampaignAudience => ({
  staticListIds: lists.filter((l) => l.type === "STATIC").map((l) => l.id),
  segments: lists.flatMap((l) => l.type === "DYNAMIC" && l.segmentRules !== null ? [l.segmentRules] : []),
  topicIds: [...new Set([...(topicId === null ? [] : [topicId]), ...lists.flatMap((l) => l.suppressionGroupId ?? [])])],
})

/** Tracking follows the lists: tracked when every target list has trackingEnabled (spec, "trackingEnabled"). */
export const campaignTracked = (lists: ReadonlyArray<Pick<ContactList, "trackingEnabled">>): boolean =>
  lists.every((l) => l.trackingEnabled)

/** The scope of the send-time filter for campaign mail: marketing, under a topic when the audience has one (the
 *  topic id only switches the opt-out row on; backends test an opt-out of any of the audience's topics). */
export const campaignScope = (audience: CampaignAudience): SendScope => ({
  kind: "marketing",
  topicId: audience.topicIds[0] ?? null,
})

/** Rule 6: only contacts that are not PENDING are in a campaign's audience at all. */
export const audienceExcludes: ContactStatus = "PENDING"

/** Why an audience member (facts of its contact) is dropped from a campaign, or undefined when it receives it: the
 *  marketing row of the filtering table, evaluated by core for the memory backend and compiled to SQL for the others. */
export const campaignIneligibility = (
  audience: CampaignAudience,
  facts: { readonly contactStatus: ContactStatus; readonly suppression: SuppressionReason | null; readonly optedOutOfAny: boolean },
): IneligibleReason | undefined => {
  const recipient: RecipientFacts = { contactStatus: facts.contactStatus, suppression: facts.suppression, optedOut: facts.optedOutOfAny }
  return ineligibility(campaignScope(audience), recipient)
}

export const campaignChecks = (audience: CampaignAudience) => applicableChecks(campaignScope(audience))

/** The id of the message of a campaign to one contact: derived from both, so that a recipient queued twice (a chunk
 *  run again after a crash) collides with itself instead of making a second message. */
export const campaignMessagePrefix = (campaignId: string): string => `msg_${campaignId.replace(/^cmp_/, "c")}_`

/** A queued recipient whose message a send run writes: its contact, its message id and the fields personalisation
 *  uses. */
export interface QueuedRecipient {
  readonly contactId: string
  readonly email: string
  readonly messageId: string
  readonly firstName: string | null
  readonly lastName: string | null
  readonly customFields: Readonly<Record<string, string>>
}

/** What one chunk resolved into the campaign's queue. */
export interface CampaignChunk {
  /** Audience members the chunk covered (eligible or dropped). */
  readonly covered: number
  /** The id of the last contact the chunk covered; null when the audience had no contact after the cursor. */
  readonly last: string | null
}

/** The figures of GET /campaigns/{id}. */
export interface CampaignProgress {
  readonly audienceSize: number | null
  readonly resolved: number
  readonly dropped: Readonly<Record<string, number>>
  readonly queued: number
  /** Eligible recipients whose message was never written because the campaign was cancelled. */
  readonly cancelled: number
  readonly sent: number
  readonly delivered: number
  readonly bounced: number
  readonly opened: number
  readonly clicked: number
  readonly unsubscribed: number
}

/** The values a campaign message renders with: the campaign's variables and `contact.*` (spec: personalisation). */
export const contactValues = (r: Pick<QueuedRecipient, "contactId" | "email" | "firstName" | "lastName" | "customFields">) => ({
  ...r.customFields,
  id: r.contactId,
  email: r.email,
  firstName: r.firstName ?? "",
  lastName: r.lastName ?? "",
})

/** Campaign statuses as they show, and what a query filters on. */
export const CampaignListFilters = Schema.Struct({ status: Schema.optional(CampaignStatus) })
