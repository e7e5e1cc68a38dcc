/** Topics (suppression groups): categories of mail a recipient can opt out of on their own. A member row of a topic is
 *  an address that OPTED OUT of it. Spec: audience "Topic (suppression group)", "Topics (suppression groups)",
 *  rules 1 and 6. */
import { Schema } from "effect"
import type { AccountId } from "./account.js"
import { EmailAddress } from "./email.js"

export const TopicId = Schema.String.pipe(Schema.brand("TopicId"))
export type TopicId = typeof TopicId.Type

export const topicLimits = {
  nameLength: 100,
  descriptionLength: 500,
  publicLabelLength: 120,
  publicDescriptionLength: 500,
  maxSortOrder: 10_000,
  /** Page size of GET /suppression-groups: default and maximum (spec, Limits). */
  pageSize: 25,
  maxPageSize: 100,
  /** Page size of GET /suppression-groups/{id}/members (lists of members: 50, max 100). */
  memberPageSize: 50,
} as const

export interface Topic {
  readonly id: TopicId
  readonly accountId: AccountId
  readonly name: string
  readonly description: string | null
  readonly isDefault: boolean
  readonly publicLabel: string | null
  readonly publicDescription: string | null
  readonly isPublishedOnUnsub: boolean
  readonly sortOrder: number
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** A topic with `_count.members`: the addresses that opted out of it. */
export interface TopicWithCount {
  readonly topic: Topic
  readonly optOuts: number
}

/** One opt-out of a topic, as its member routes show it. */
export interface TopicOptOut {
  readonly email: EmailAddress
  readonly createdAt: Date
}

const text = (field: string, max: number, min = 0) =>
  Schema.String.pipe(
    Schema.minLength(min, { message: () => `${field} must not be empty` }),
    Schema.maxLength(max, { message: () => `${field} is at most ${max} characters` }),
  )

export const TopicName = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "name must not be empty" }),
  Schema.maxLength(topicLimits.nameLength, { message: () => `name is at most ${topicLimits.nameLength} characters` }),
)

const SortOrder = Schema.Number.pipe(
  Schema.int({ message: () => "sortOrder must be a whole number" }),
  Schema.between(0, topicLimits.maxSortOrder, { message: () => `sortOrder must be between 0 and ${topicLimits.maxSortOrder}` }),
)

/** The fields of a topic besides its name, as POST and PATCH /suppression-groups take them. */
const topicFields = {
  description: Schema.optional(Schema.NullOr(text("description", topicLimits.descriptionLength))),
  isDefault: Schema.optional(Schema.Boolean),
  publicLabel: Schema.optional(Schema.NullOr(text("publicLabel", topicLimits.publicLabelLength))),
  publicDescription: Schema.optional(Schema.NullOr(text("publicDescription", topicLimits.publicDescriptionLength))),
  isPublishedOnUnsub: Schema.optional(Schema.Boolean),
  sortOrder: Schema.optional(SortOrder),
}

/** Body of POST /suppression-groups. The public fields may be given at creation too. */
export const CreateTopicInput = Schema.Struct({ name: TopicName, ...topicFields })
export type CreateTopicInput = typeof CreateTopicInput.Type

/** Body of PATCH /suppression-groups/{id}: only sent fields change. */
export const UpdateTopicInput = Schema.Struct({ name: Schema.optional(TopicName), ...topicFields })
export type UpdateTopicInput = typeof UpdateTopicInput.Type

/** Body of POST /suppression-groups/{id}/members (and of the older …/suppressions path). */
export const TopicMemberInput = Schema.Struct({ email: EmailAddress })

/** GET /suppression-groups after defaults. */
export interface TopicQuery {
  readonly page: number
  readonly limit: number
  /** true: only topics shown on the preference centre, in display order. */
  readonly published: boolean
}

/** Display order: sortOrder, then name, then id (the tie-break every backend shares). Used by `published=true` and by
 *  the topics of a subscription status. */
export const compareTopicsForDisplay = (a: Topic, b: Topic): number =>
  a.sortOrder !== b.sortOrder ? a.sortOrder - b.sortOrder
  : a.name < b.name ? -1 : a.name > b.name ? 1
  : a.id < b.id ? -1 : a.id > b.id ? 1 : 0

/** The order of GET /suppression-groups without `published`: oldest first, ties broken by id. */
export const compareTopicsByCreation = (a: Topic, b: Topic): number => {
  const byCreation = a.createdAt.getTime() - b.createdAt.getTime()
  return byCreation !== 0 ? byCreation : a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

export const matchesTopicQuery = (topic: Topic, query: TopicQuery): boolean => !query.published || topic.isPublishedOnUnsub
