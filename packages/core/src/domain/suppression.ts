/** Account-level suppressions and the send-time eligibility table. Spec: audience "Suppression", "Suppressions",
 *  "Send-time filtering" and "Suppression reasons". The eligibility table is written once, as data (`eligibilityChecks`):
 *  core evaluates it here, the SQL backends compile it to one set-based query (packages/sql/src/eligibility-sql.ts). */
import { Schema } from "effect"
import type { AccountId } from "./account.js"
import type { ContactStatus } from "./contact.js"
import { EmailAddress } from "./email.js"
import { foldText, matchesLike } from "./text.js"

export const SuppressionId = Schema.String.pipe(Schema.brand("SuppressionId"))
export type SuppressionId = typeof SuppressionId.Type

export const suppressionReasons = ["Bounce", "Complaint", "Unsubscribe", "Manual"] as const
export const SuppressionReason = Schema.Literal(...suppressionReasons)
export type SuppressionReason = typeof SuppressionReason.Type

export const suppressionLimits = {
  /** Page size of GET /suppressions: default and maximum (spec, Limits). */
  pageSize: 25,
  maxPageSize: 100,
  /** Addresses of one POST /suppressions/bulk. */
  bulk: 10_000,
  /** The longest `search` accepted. */
  searchLength: 254,
  /** `details` as JSON, at most this many bytes. */
  detailsBytes: 4096,
} as const

export type SuppressionDetails = Readonly<Record<string, unknown>>

/** One address blocked for the whole account; at most one per address (a second add replaces reason and details). */
export interface Suppression {
  readonly id: SuppressionId
  readonly accountId: AccountId
  readonly email: EmailAddress
  readonly reason: SuppressionReason
  readonly details: SuppressionDetails | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

const jsonBytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length

export const SuppressionDetailsInput = Schema.Record({ key: Schema.String, value: Schema.Unknown }).pipe(
  Schema.filter((value) =>
    jsonBytes(value) <= suppressionLimits.detailsBytes || `must be at most ${suppressionLimits.detailsBytes} bytes of JSON`),
)

/** Body of POST /suppressions. */
export const AddSuppressionInput = Schema.Struct({
  email: EmailAddress,
  reason: SuppressionReason,
  details: Schema.optional(Schema.NullOr(SuppressionDetailsInput)),
})
export type AddSuppressionInput = typeof AddSuppressionInput.Type

const bulkEmails = Schema.Array(EmailAddress).pipe(
  Schema.minItems(1, { message: () => "emails must hold at least one address" }),
  Schema.maxItems(suppressionLimits.bulk, { message: () => `emails holds at most ${suppressionLimits.bulk} addresses` }),
)

/** Body of POST /suppressions/bulk: `reason` is required to add and refused to remove. */
export const BulkSuppressionInput = Schema.Union(
  Schema.Struct({
    action: Schema.Literal("add"),
    emails: bulkEmails,
    reason: SuppressionReason,
    details: Schema.optional(Schema.NullOr(SuppressionDetailsInput)),
  }),
  Schema.Struct({ action: Schema.Literal("remove"), emails: bulkEmails }),
)
export type BulkSuppressionInput = typeof BulkSuppressionInput.Type

/** GET /suppressions after defaults. */
export interface SuppressionQuery {
  readonly page: number
  readonly limit: number
  readonly reason?: SuppressionReason | undefined
  readonly search?: string | undefined
}

/** The filter every backend implements: exact reason; `search` a part of the address, folded as every search is
 *  (addresses are their own folding). SQL backends compile it to `email LIKE likePattern(foldText(search))`. */
export const matchesSuppressionQuery = (suppression: Suppression, query: SuppressionQuery): boolean =>
  (query.reason === undefined || suppression.reason === query.reason)
  && (query.search === undefined || query.search === ""
    || matchesLike(suppression.email, foldText(query.search), "contains"))

/** The order of GET /suppressions: newest first, ties broken by id, also descending. */
export const compareSuppressions = (a: Suppression, b: Suppression): number => {
  const byCreation = b.createdAt.getTime() - a.createdAt.getTime()
  return byCreation !== 0 ? byCreation : a.id < b.id ? 1 : a.id > b.id ? -1 : 0
}

// ---------------------------------------------------------------------------------------------------------------
// Send-time eligibility

export const mailKinds = ["marketing", "transactional"] as const
export const MailKind = Schema.Literal(...mailKinds)
export type MailKind = typeof MailKind.Type

/** What a send asks: the kind of mail and the topic it is sent under (a campaign's topic, the topic tag of the
 *  target list, or `suppressionGroupId` of a marketing-stream send), or null. */
export interface SendScope {
  readonly kind: MailKind
  readonly topicId: string | null
}

/** What storage knows of one candidate address. */
export interface RecipientFacts {
  /** The status of the account's contact with this address; null when the address is no contact. */
  readonly contactStatus: ContactStatus | null
  /** The reason of the account-level suppression of the address; null when there is none. */
  readonly suppression: SuppressionReason | null
  /** The address opted out of the topic the mail is sent under (false when the mail has no topic). */
  readonly optedOut: boolean
}

/** One fact that can block an address. */
export type EligibilityFact =
  | { readonly kind: "suppression"; readonly reason: SuppressionReason }
  | { readonly kind: "status"; readonly status: ContactStatus }
  | { readonly kind: "topicOptOut" }

/** The send-time filtering table of the spec, row by row, in the order a dropped address is given its reason: each
 *  fact, the reason it is reported as, and the kinds of mail it blocks. Marketing mail is blocked by every row;
 *  transactional mail ignores unsubscribes (the Unsubscribe suppression and the UNSUBSCRIBED status) and topic
 *  opt-outs, and nothing else. A Manual suppression blocks marketing only: the spec lists only Bounce and Complaint
 *  among the suppressions that block transactional mail. A PENDING contact is not blocked here: rule 6 keeps PENDING
 *  contacts out of campaign audiences, which is a property of list membership, not of an address. */
export const eligibilityChecks = [
  { reason: "BOUNCE_SUPPRESSION", fact: { kind: "suppression", reason: "Bounce" }, blocks: ["marketing", "transactional"] },
  { reason: "COMPLAINT_SUPPRESSION", fact: { kind: "suppression", reason: "Complaint" }, blocks: ["marketing", "transactional"] },
  { reason: "MANUAL_SUPPRESSION", fact: { kind: "suppression", reason: "Manual" }, blocks: ["marketing"] },
  { reason: "UNSUBSCRIBE_SUPPRESSION", fact: { kind: "suppression", reason: "Unsubscribe" }, blocks: ["marketing"] },
  { reason: "CONTACT_BOUNCED", fact: { kind: "status", status: "BOUNCED" }, blocks: ["marketing", "transactional"] },
  { reason: "CONTACT_COMPLAINED", fact: { kind: "status", status: "COMPLAINED" }, blocks: ["marketing", "transactional"] },
  { reason: "CONTACT_CLEANED", fact: { kind: "status", status: "CLEANED" }, blocks: ["marketing", "transactional"] },
  { reason: "CONTACT_UNSUBSCRIBED", fact: { kind: "status", status: "UNSUBSCRIBED" }, blocks: ["marketing"] },
  { reason: "TOPIC_OPT_OUT", fact: { kind: "topicOptOut" }, blocks: ["marketing"] },
] as const satisfies ReadonlyArray<{
  readonly reason: string
  readonly fact: EligibilityFact
  readonly blocks: ReadonlyArray<MailKind>
}>

export type IneligibleReason = (typeof eligibilityChecks)[number]["reason"]
export const ineligibleReasons: ReadonlyArray<IneligibleReason> = eligibilityChecks.map((check) => check.reason)

/** The rows of the table that apply to a send of this scope, in order. A topic opt-out applies only under a topic. */
export const applicableChecks = (scope: SendScope): ReadonlyArray<(typeof eligibilityChecks)[number]> =>
  eligibilityChecks.filter((check) =>
    (check.blocks as ReadonlyArray<MailKind>).includes(scope.kind)
    && (check.fact.kind !== "topicOptOut" || scope.topicId !== null))

const holds = (fact: EligibilityFact, facts: RecipientFacts): boolean =>
  fact.kind === "suppression" ? facts.suppression === fact.reason
  : fact.kind === "status" ? facts.contactStatus === fact.status
  : facts.optedOut

/** Why an address with these facts may not receive mail of this scope, or undefined when it may. */
export const ineligibility = (scope: SendScope, facts: RecipientFacts): IneligibleReason | undefined =>
  applicableChecks(scope).find((check) => holds(check.fact, facts))?.reason

/** The account-level suppression a send-time reason stands for, or null for a reason that is none (a contact status, a
 *  topic opt-out). The suppression rows come first in the table, so the reason of a suppressed address is its
 *  suppression's. */
export const suppressionBehind = (reason: IneligibleReason): SuppressionReason | null => {
  const { fact } = eligibilityChecks.find((check) => check.reason === reason)!
  return fact.kind === "suppression" ? fact.reason : null
}

export interface DroppedRecipient {
  readonly email: EmailAddress
  readonly reason: IneligibleReason
}

/** The answer for a batch of candidates: `eligible` in the order given (each address once), and every dropped one
 *  with its reason. */
export interface Eligibility {
  readonly eligible: ReadonlyArray<EmailAddress>
  readonly dropped: ReadonlyArray<DroppedRecipient>
}

/** Splits `addresses` by the reasons storage answered for the dropped ones (the SQL backends' query answers only
 *  those): order kept, duplicates folded. */
export const splitEligibility = (
  addresses: ReadonlyArray<EmailAddress>,
  reasons: ReadonlyMap<string, IneligibleReason>,
): Eligibility => {
  const eligible: Array<EmailAddress> = []
  const dropped: Array<DroppedRecipient> = []
  for (const email of new Set(addresses)) {
    const reason = reasons.get(email)
    if (reason === undefined) eligible.push(email)
    else dropped.push({ email, reason })
  }
  return { eligible, dropped }
}
