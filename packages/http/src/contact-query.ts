/** Parameters of GET /contacts and GET /contacts/export. Spec: audience "Contacts", GET /contacts query parameters.
 *  Two forms share the same rules: query strings (HTTP) and typed values (the Promise facade). */
import {
  ContactSource, contactSortKeys, ContactStatus, limitParam, PageParam, TagName,
} from "@mailroom/core"
import { Schema } from "effect"

export const contactListLimits = { defaultLimit: 100, maxLimit: 1000, searchLength: 254 } as const

const Search = Schema.String.pipe(Schema.maxLength(contactListLimits.searchLength, {
  message: () => `must be at most ${contactListLimits.searchLength} characters`,
}))
const SortBy = Schema.Literal(...contactSortKeys)
const SortOrder = Schema.Literal("asc", "desc")

/** Filters shared by the list and the export. Status accepts all six statuses (the spec's table leaves out PENDING,
 *  which would make pending contacts impossible to find). */
const filterFields = {
  status: Schema.optional(ContactStatus),
  source: Schema.optional(ContactSource),
  tag: Schema.optional(TagName),
  search: Schema.optional(Search),
}

export const ContactFilterParams = Schema.Struct(filterFields)

/** GET /contacts from its query string: page 1.., limit 1-1000 (default 100), sortBy createdAt|email|subscribedAt,
 *  sortOrder asc|desc (default createdAt desc). */
export const ContactListParams = Schema.Struct({
  ...filterFields,
  page: Schema.optionalWith(PageParam, { default: () => 1 }),
  limit: Schema.optionalWith(limitParam(contactListLimits.maxLimit), { default: () => contactListLimits.defaultLimit }),
  sortBy: Schema.optionalWith(SortBy, { default: () => "createdAt" as const }),
  sortOrder: Schema.optionalWith(SortOrder, { default: () => "desc" as const }),
})

const integerBetween = (name: string, min: number, max: number) =>
  Schema.Number.pipe(
    Schema.int({ message: () => `${name} must be an integer` }),
    Schema.between(min, max, { message: () => `${name} must be between ${min} and ${max}` }),
  )

/** The same parameters as typed values, for code that calls Mailroom without HTTP. */
export const ContactListOptions = Schema.Struct({
  ...filterFields,
  page: Schema.optionalWith(integerBetween("page", 1, Number.MAX_SAFE_INTEGER), { default: () => 1 }),
  limit: Schema.optionalWith(integerBetween("limit", 1, contactListLimits.maxLimit), {
    default: () => contactListLimits.defaultLimit,
  }),
  sortBy: Schema.optionalWith(SortBy, { default: () => "createdAt" as const }),
  sortOrder: Schema.optionalWith(SortOrder, { default: () => "desc" as const }),
})
