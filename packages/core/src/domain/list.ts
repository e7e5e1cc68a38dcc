/** Contact lists: a STATIC list holds members added to it, a DYNAMIC list holds the contacts its segment rules match.
 *  Spec: audience "Contact list", "Contact lists". Members and their suppression statuses live in member.ts. */
import { Either, Schema } from "effect"
import { ValidationFailed } from "../errors.js"
import type { AccountId } from "./account.js"
import { integerBetween } from "./contact-query.js"
import { limitParam, PageParam } from "./paging.js"
import { SegmentRules } from "./segment.js"
import { foldText, matchesLike } from "./text.js"

export const ListId = Schema.String.pipe(Schema.brand("ListId"))
export type ListId = typeof ListId.Type

export const listTypes = ["STATIC", "DYNAMIC"] as const
export const ListType = Schema.Literal(...listTypes)
export type ListType = typeof ListType.Type

export const listLimits = {
  nameLength: 255,
  descriptionLength: 1000,
  /** Page size of GET /contacts/lists: default and maximum (spec, Limits). */
  pageSize: 20,
  maxPageSize: 100,
  /** Longest accepted suppressionGroupId and search text. */
  referenceLength: 255,
} as const

export interface ContactList {
  readonly id: ListId
  readonly accountId: AccountId
  readonly name: string
  readonly description: string | null
  readonly type: ListType
  /** The rules of a DYNAMIC list; always null for a STATIC one. */
  readonly segmentRules: SegmentRules | null
  /** The topic the list is tagged with (rule 6). */
  readonly suppressionGroupId: string | null
  readonly trackingEnabled: boolean
  readonly isArchived: boolean
  readonly createdAt: Date
  readonly updatedAt: Date
  /** When the members of a DYNAMIC list were last read (evaluated); null before that and for STATIC lists. */
  readonly lastSyncedAt: Date | null
}

/** A list with the number of its current members: the members of a STATIC list whose membership is not removed, the
 *  matching contacts of a DYNAMIC one. */
export interface ListWithCount {
  readonly list: ContactList
  readonly contactCount: number
}

/** The name of a list: trimmed, then 1-255 characters. */
export const ListName = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "name must not be empty" }),
  Schema.maxLength(listLimits.nameLength, { message: () => `name is at most ${listLimits.nameLength} characters` }),
)

export const ListDescription = Schema.String.pipe(
  Schema.maxLength(listLimits.descriptionLength, {
    message: () => `description is at most ${listLimits.descriptionLength} characters`,
  }),
)

/** A topic id as a list refers to it. Whether the topic exists is the Lists service's check, not the schema's. */
export const SuppressionGroupRef = Schema.String.pipe(
  Schema.minLength(1, { message: () => "suppressionGroupId must not be empty; send null to untag the list" }),
  Schema.maxLength(listLimits.referenceLength, {
    message: () => `suppressionGroupId is at most ${listLimits.referenceLength} characters`,
  }),
)

/** Body of POST /contacts/lists. */
export const CreateListInput = Schema.Struct({
  name: ListName,
  description: Schema.optional(Schema.NullOr(ListDescription)),
  type: Schema.optional(ListType),
  segmentRules: Schema.optional(Schema.NullOr(SegmentRules)),
  suppressionGroupId: Schema.optional(Schema.NullOr(SuppressionGroupRef)),
  trackingEnabled: Schema.optional(Schema.Boolean),
})
export type CreateListInput = typeof CreateListInput.Type

/** Body of PATCH /contacts/lists/{id}: only sent fields change; the type of a list is fixed at creation. */
export const UpdateListInput = Schema.Struct({
  name: Schema.optional(ListName),
  description: Schema.optional(Schema.NullOr(ListDescription)),
  segmentRules: Schema.optional(Schema.NullOr(SegmentRules)),
  isArchived: Schema.optional(Schema.Boolean),
  suppressionGroupId: Schema.optional(Schema.NullOr(SuppressionGroupRef)),
  trackingEnabled: Schema.optional(Schema.Boolean),
})
export type UpdateListInput = typeof UpdateListInput.Type

/** A DYNAMIC list needs rules and a STATIC list takes none. */
export const checkSegmentRules = (
  type: ListType,
  segmentRules: SegmentRules | null,
): Either.Either<SegmentRules | null, ValidationFailed> =>
  type === "DYNAMIC" && segmentRules === null
    ? Either.left(new ValidationFailed({ field: "segmentRules", detail: "a DYNAMIC list needs segmentRules" }))
    : type === "STATIC" && segmentRules !== null
    ? Either.left(new ValidationFailed({ field: "segmentRules", detail: "only DYNAMIC lists take segmentRules" }))
    : Either.right(segmentRules)

export const listTypeFilters = ["STATIC", "DYNAMIC", "ALL"] as const
export type ListTypeFilter = (typeof listTypeFilters)[number]

const ListSearch = Schema.String.pipe(Schema.maxLength(listLimits.referenceLength, {
  message: () => `must be at most ${listLimits.referenceLength} characters`,
}))

/** GET /contacts/lists as typed values (the Lists service and the facade): page 1.., limit 1-100 (default 20), type
 *  STATIC|DYNAMIC|ALL (default ALL), isArchived (default false), search on name or description. */
export const ListQueryOptions = Schema.Struct({
  page: Schema.optionalWith(integerBetween("page", 1, Number.MAX_SAFE_INTEGER), { default: () => 1 }),
  limit: Schema.optionalWith(integerBetween("limit", 1, listLimits.maxPageSize), { default: () => listLimits.pageSize }),
  type: Schema.optionalWith(Schema.Literal("STATIC", "DYNAMIC", "ALL"), { default: () => "ALL" as const }),
  isArchived: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  search: Schema.optional(ListSearch),
})
export type ListQueryInput = typeof ListQueryOptions.Encoded

/** The same from a query string (GET /contacts/lists). */
export const ListsParams = Schema.Struct({
  page: Schema.optionalWith(PageParam, { default: () => 1 }),
  limit: Schema.optionalWith(limitParam(listLimits.maxPageSize), { default: () => listLimits.pageSize }),
  type: Schema.optionalWith(Schema.Literal("STATIC", "DYNAMIC", "ALL"), { default: () => "ALL" as const }),
  isArchived: Schema.optionalWith(Schema.BooleanFromString, { default: () => false }),
  search: Schema.optional(ListSearch),
})

/** The parameters of GET /contacts/lists after defaults. */
export interface ListQuery {
  readonly page: number
  readonly limit: number
  readonly type: ListTypeFilter
  readonly isArchived: boolean
  readonly search?: string | undefined
}

/** The texts list search reads, folded (core's foldText): the name and the description (absent reads as ""). SQL
 *  backends store them as name_folded and description_folded. */
export const listSearchText = (list: Pick<ContactList, "name" | "description">): ReadonlyArray<string> =>
  [foldText(list.name), foldText(list.description ?? "")]

/** The filter every backend implements: type (ALL is any), archived or not, and `search` as a substring of the name or
 *  the description, ignoring case (core's foldText, which SQL backends store beside the text). */
export const matchesListQuery = (list: ContactList, query: ListQuery): boolean => {
  if (query.type !== "ALL" && list.type !== query.type) return false
  if (list.isArchived !== query.isArchived) return false
  if (query.search !== undefined && query.search !== "") {
    const needle = foldText(query.search)
    if (!listSearchText(list).some((text) => matchesLike(text, needle, "contains"))) return false
  }
  return true
}

/** The order of GET /contacts/lists: newest first, ties broken by id, also descending. */
export const compareLists = (a: ContactList, b: ContactList): number => {
  const byCreation = b.createdAt.getTime() - a.createdAt.getTime()
  return byCreation !== 0 ? byCreation : a.id < b.id ? 1 : a.id > b.id ? -1 : 0
}
