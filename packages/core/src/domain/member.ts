/** List members: memberships of STATIC lists, the reasons a member will not receive mail, the member-route inputs and
 *  the list.member_* events. Spec: audience "List member", "Contact lists", rule 2, and the list.member_* details. */
import { Either, Schema } from "effect"
import type { AccountId } from "./account.js"
import type { ContactId, ContactStatus } from "./contact.js"
import { integerBetween } from "./contact-query.js"
import { EmailAddress } from "./email.js"
import { limitParam, PageParam } from "./paging.js"
import type { DomainEvent } from "./event.js"
import type { ListId } from "./list.js"
import { checkSubscribe, type SubscribeFacts } from "./subscription.js"
import type { SuppressionReason } from "./suppression.js"

export const MemberId = Schema.String.pipe(Schema.brand("MemberId"))
export type MemberId = typeof MemberId.Type

export const memberLimits = {
  /** Page size of GET members: default and maximum (spec, Limits). */
  pageSize: 50,
  maxPageSize: 100,
  /** contactIds and emails of one add or remove request, each. */
  perRequest: 1000,
} as const

/** One membership row of a STATIC list. `removedAt` is set when the contact unsubscribed from the list: the row stays
 *  as history (rule 2) until the contact is added again, which clears it and stamps a new `addedAt`. */
export interface ListMembership {
  readonly id: MemberId
  readonly accountId: AccountId
  readonly listId: ListId
  readonly contactId: ContactId
  readonly addedAt: Date
  readonly removedAt: Date | null
}

/** One membership of a contact, current or removed, with what the subscription status and a topic opt-out need of its
 *  list: its name and its topic. */
export interface ContactMembership {
  readonly membership: ListMembership
  readonly listName: string
  /** The topic the list is tagged with, or null. */
  readonly suppressionGroupId: string | null
}

/** A contact's memberships newest first: most recently added first, ties broken by membership id, also descending. */
export const compareContactMemberships = (a: ContactMembership, b: ContactMembership): number => {
  const byAdded = b.membership.addedAt.getTime() - a.membership.addedAt.getTime()
  return byAdded !== 0 ? byAdded : a.membership.id < b.membership.id ? 1 : a.membership.id > b.membership.id ? -1 : 0
}

/** A contact to make a member, with the membership id to use if the membership is new. */
export interface NewMember {
  readonly contactId: ContactId
  readonly id: MemberId
}

/** One list a contact joins, with the membership id the service minted for it. */
export interface NewListMembership {
  readonly listId: string
  readonly id: MemberId
}

/** The lists among `listIds` (first occurrence of each), each with a fresh membership id from `makeId`. */
export const newListMemberships = (listIds: ReadonlyArray<string>, makeId: () => string): ReadonlyArray<NewListMembership> =>
  [...new Set(listIds)].map((listId) => ({ listId, id: makeId() as MemberId }))

/** The contacts among `contactIds` (first occurrence of each), each with a fresh membership id from `makeId`. */
export const newMembers = (contactIds: ReadonlyArray<ContactId>, makeId: () => string): ReadonlyArray<NewMember> =>
  [...new Set(contactIds)].map((contactId) => ({ contactId, id: makeId() as MemberId }))

/** The contact as a member row shows it. */
export interface MemberContact {
  readonly id: ContactId
  readonly email: EmailAddress
  readonly firstName: string | null
  readonly lastName: string | null
  readonly status: ContactStatus
  readonly subscribedAt: Date
  readonly createdAt: Date
}

/** The member id of a contact in a DYNAMIC list, which keeps no membership rows: `<listId>:<contactId>`. */
export const dynamicMemberId = (listId: string, contactId: string): string => `${listId}:${contactId}`

/** A member as the store reads it: the membership with its contact. A DYNAMIC list keeps no rows: its members are
 *  the matching contacts, with id `<listId>:<contactId>`, addedAt the contact's createdAt and removedAt null. */
export interface MemberRecord {
  readonly id: string
  readonly contactId: ContactId
  readonly contact: MemberContact
  readonly addedAt: Date
  readonly removedAt: Date | null
  /** The reason of the account-level suppression of the member's address, or null. */
  readonly suppression: SuppressionReason | null
  /** The address opted out of the topic the list is tagged with (false for an untagged list). */
  readonly optedOutOfTopic: boolean
}

export const suppressionStatuses = [
  "REMOVED_FROM_LIST", "UNSUBSCRIBED", "BOUNCED", "COMPLAINED", "CLEANED", "MANUALLY_SUPPRESSED", "CATEGORY_SUPPRESSED",
] as const
export type SuppressionStatus = (typeof suppressionStatuses)[number]

/** What is known of a member that decides its suppression statuses. Every backend derives the same facts: memory from
 *  the records it holds, SQL as expressions of its member query (packages/sql/src/member-suppression-sql.ts). A new
 *  reason comes as a new fact here, rows of `memberSuppressionRules`, the fact's value in `memberFacts` and its
 *  expression in each member query; the rule and its compilation stay as they are. */
export interface MemberFacts {
  /** The membership is marked removed: the contact unsubscribed from the list (rule 2). */
  readonly removedFromList: boolean
  readonly contactStatus: ContactStatus
  /** The reason of the account-level suppression of the address, or null. */
  readonly suppression: SuppressionReason | null
  /** The address opted out of the list's topic. */
  readonly optedOutOfTopic: boolean
}

/** The facts that are true or false. */
export type BooleanMemberFact = { [K in keyof MemberFacts]: MemberFacts[K] extends boolean ? K : never }[keyof MemberFacts]

/** The facts that take one of several values. */
export type EnumeratedMemberFact = Exclude<keyof MemberFacts, BooleanMemberFact>

/** When a suppression status applies: a boolean fact holds, or an enumerated fact has one value. */
export type SuppressionCondition =
  | { readonly fact: BooleanMemberFact }
  | { readonly fact: "contactStatus"; readonly is: ContactStatus }
  | { readonly fact: "suppression"; readonly is: SuppressionReason }

export interface SuppressionRule {
  readonly status: SuppressionStatus
  readonly when: SuppressionCondition
}

/** Every reason of the spec's table, in the spec's order. A status may have several rows (UNSUBSCRIBED: the contact's
 *  status or an Unsubscribe suppression of the address); it is shown once. Storage filters (active, suppressed) and
 *  counts are compiled from these rows, so they agree with the statuses shown. */
export const memberSuppressionRules: ReadonlyArray<SuppressionRule> = [
  { status: "REMOVED_FROM_LIST", when: { fact: "removedFromList" } },
  { status: "UNSUBSCRIBED", when: { fact: "contactStatus", is: "UNSUBSCRIBED" } },
  { status: "UNSUBSCRIBED", when: { fact: "suppression", is: "Unsubscribe" } },
  { status: "BOUNCED", when: { fact: "contactStatus", is: "BOUNCED" } },
  { status: "BOUNCED", when: { fact: "suppression", is: "Bounce" } },
  { status: "COMPLAINED", when: { fact: "contactStatus", is: "COMPLAINED" } },
  { status: "COMPLAINED", when: { fact: "suppression", is: "Complaint" } },
  { status: "CLEANED", when: { fact: "contactStatus", is: "CLEANED" } },
  { status: "MANUALLY_SUPPRESSED", when: { fact: "suppression", is: "Manual" } },
  { status: "CATEGORY_SUPPRESSED", when: { fact: "optedOutOfTopic" } },
]

/** Whether `condition` holds for these facts. */
export const suppressionApplies = (condition: SuppressionCondition, facts: MemberFacts): boolean =>
  "is" in condition ? facts[condition.fact] === condition.is : facts[condition.fact]

/** Every reason a member with these facts will not receive mail, in the spec's order; empty for an active member.
 *  Spec: "List member", suppressionStatuses. */
export const suppressionStatusesOf = (facts: MemberFacts): ReadonlyArray<SuppressionStatus> =>
  [...new Set(memberSuppressionRules.filter((rule) => suppressionApplies(rule.when, facts)).map((rule) => rule.status))]

/** The facts of a member as the store read it. */
export const memberFacts = (member: MemberRecord): MemberFacts => ({
  removedFromList: member.removedAt !== null,
  contactStatus: member.contact.status,
  suppression: member.suppression,
  optedOutOfTopic: member.optedOutOfTopic,
})

/** Every reason the member will not receive mail; empty for an active member. */
export const memberSuppressionStatuses = (member: MemberRecord): ReadonlyArray<SuppressionStatus> =>
  suppressionStatusesOf(memberFacts(member))

/** Whether the member has at least one suppression status (GET members' `suppressed` filter and count). */
export const isSuppressedMember = (member: MemberRecord): boolean => {
  const facts = memberFacts(member)
  return memberSuppressionRules.some((rule) => suppressionApplies(rule.when, facts))
}

export interface ListMember extends MemberRecord {
  readonly suppressionStatuses: ReadonlyArray<SuppressionStatus>
}

export const toListMember = (member: MemberRecord): ListMember =>
  ({ ...member, suppressionStatuses: memberSuppressionStatuses(member) })

export const memberFilters = ["all", "active", "suppressed"] as const
export const MemberFilter = Schema.Literal(...memberFilters)
export type MemberFilter = typeof MemberFilter.Type

/** GET members as typed values: page 1.., limit 1-100 (default 50), filter all|active|suppressed (default all). */
export const MemberQueryOptions = Schema.Struct({
  page: Schema.optionalWith(integerBetween("page", 1, Number.MAX_SAFE_INTEGER), { default: () => 1 }),
  limit: Schema.optionalWith(integerBetween("limit", 1, memberLimits.maxPageSize), { default: () => memberLimits.pageSize }),
  filter: Schema.optionalWith(MemberFilter, { default: () => "all" as const }),
})
export type MemberQueryInput = typeof MemberQueryOptions.Encoded

/** The same from a query string (GET /contacts/lists/{id}/members). */
export const MembersParams = Schema.Struct({
  page: Schema.optionalWith(PageParam, { default: () => 1 }),
  limit: Schema.optionalWith(limitParam(memberLimits.maxPageSize), { default: () => memberLimits.pageSize }),
  filter: Schema.optionalWith(MemberFilter, { default: () => "all" as const }),
})

/** GET members: `active` = no suppression status, `suppressed` = at least one. */
export interface MemberQuery {
  readonly page: number
  readonly limit: number
  readonly filter: MemberFilter
}

export interface MemberCounts {
  readonly total: number
  readonly active: number
  readonly suppressed: number
}

export interface MemberPage {
  readonly members: ReadonlyArray<MemberRecord>
  /** Over the whole list, whatever the filter. */
  readonly counts: MemberCounts
}

/** Members in the order of GET members: most recently added first, ties broken by id, also descending. */
export const compareMembers = (a: MemberRecord, b: MemberRecord): number => {
  const byAdded = b.addedAt.getTime() - a.addedAt.getTime()
  return byAdded !== 0 ? byAdded : a.id < b.id ? 1 : a.id > b.id ? -1 : 0
}

const idList = (name: string) => Schema.Array(
  Schema.String.pipe(Schema.minLength(1, { message: () => `${name} must not hold empty ids` })),
).pipe(Schema.maxItems(memberLimits.perRequest, { message: () => `${name} holds at most ${memberLimits.perRequest} ids` }))

const emailList = Schema.Array(EmailAddress).pipe(
  Schema.maxItems(memberLimits.perRequest, { message: () => `emails holds at most ${memberLimits.perRequest} addresses` }),
)

const namesSomeone = (input: {
  readonly contactIds?: ReadonlyArray<string> | undefined
  readonly emails?: ReadonlyArray<string> | undefined
}) =>
  (input.contactIds?.length ?? 0) + (input.emails?.length ?? 0) > 0
  || { path: ["contactIds"], message: "give contactIds or emails, with at least one entry" }

/** Body of POST /contacts/lists/{id}/members. */
export const AddMembersInput = Schema.Struct({
  contactIds: Schema.optional(idList("contactIds")),
  emails: Schema.optional(emailList),
  createMissing: Schema.optional(Schema.Boolean),
}).pipe(Schema.filter(namesSomeone))
export type AddMembersInput = typeof AddMembersInput.Type

/** Body of DELETE /contacts/lists/{id}/members (or its single-member query, contactId or email). */
export const RemoveMembersInput = Schema.Struct({
  contactIds: Schema.optional(idList("contactIds")),
  emails: Schema.optional(emailList),
}).pipe(Schema.filter(namesSomeone))
export type RemoveMembersInput = typeof RemoveMembersInput.Type

export const blockedReasons = ["RECIPIENT_UNSUBSCRIBED", "RECIPIENT_SUPPRESSED", "FREE_TIER_CONTACT_LIMIT"] as const
export type BlockedReason = (typeof blockedReasons)[number]

/** What createMissing knows of an address: its contact's status (null for no contact) and its account-level
 *  suppression (null for none). */
export type CreateMissingFacts = Pick<SubscribeFacts, "contactStatus" | "suppression">

/** Why an address given with `createMissing` is refused: the code the Subscriptions API answers a subscribe of it
 *  without `resubscribe` (checkSubscribe, its one rule), so RECIPIENT_SUPPRESSED for Bounce and Complaint,
 *  RECIPIENT_UNSUBSCRIBED for Unsubscribe and Manual suppressions and the UNSUBSCRIBED status. CONTACT_BLOCKED
 *  (COMPLAINED, CLEANED) is reported as RECIPIENT_SUPPRESSED, since the spec lists only the blocked reasons below.
 *  FREE_TIER_CONTACT_LIMIT is decided by the service, which counts. Spec: audience "Contact lists", POST members. */
export const createMissingBlock = (email: string, facts: CreateMissingFacts): BlockedReason | undefined =>
  Either.match(checkSubscribe(email, facts, false), {
    onLeft: (refusal) => refusal.code === "CONTACT_BLOCKED" ? "RECIPIENT_SUPPRESSED" : refusal.code,
    onRight: () => undefined,
  })

/** Sources of list.member_added and list.member_removed: who moved the member, UNSUBSCRIBE when the recipient left by
 *  unsubscribing. Owner removals use API. */
export const memberEventSources = [
  "FORM", "API", "IMPORT", "PREFERENCE_CENTER", "PLATFORM_SIGNUP", "DASHBOARD", "UNSUBSCRIBE",
] as const
export type MemberEventSource = (typeof memberEventSources)[number]

export interface MemberEventInput {
  readonly id: string
  readonly accountId: AccountId
  readonly listId: ListId
  readonly contactId: ContactId
  readonly email: string
  readonly source: MemberEventSource
  readonly occurredAt: Date
}

/** A list.member_added or list.member_removed event. Spec: "details of list.member_added and list.member_removed". */
export const memberEvent = (type: "list.member_added" | "list.member_removed", input: MemberEventInput): DomainEvent => ({
  id: input.id,
  accountId: input.accountId,
  type,
  recipient: input.email,
  details: { listId: input.listId, contactId: input.contactId, email: input.email, source: input.source },
  occurredAt: input.occurredAt,
})
