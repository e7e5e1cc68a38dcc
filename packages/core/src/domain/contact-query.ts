/** The inputs of GET /contacts, GET /contacts/export and the bulk routes, with their limits. Spec: audience
 *  "Contacts" (GET /contacts query parameters, POST and DELETE /contacts/bulk) and "Limits". Two forms share the same
 *  rules: query strings (HTTP) and typed values (the Promise facade and the services). */
import { Schema } from "effect"
import { ContactSource, contactSortKeys, ContactStatus, CreateContactInput, TagName } from "./contact.js"
import { limitParam, PageParam } from "./paging.js"

export const contactListLimits = { defaultLimit: 100, maxLimit: 1000, searchLength: 254 } as const

/** Bulk create and bulk delete: 1-1,000 items (spec, Limits). */
export const bulkLimits = { min: 1, max: 1000 } as const

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

/** The filters of GET /contacts and GET /contacts/export. */
export const ContactFilterParams = Schema.Struct(filterFields)
export type ContactFilterInput = typeof ContactFilterParams.Encoded

/** GET /contacts from its query string: page 1.., limit 1-1000 (default 100), sortBy createdAt|email|subscribedAt,
 *  sortOrder asc|desc (default createdAt desc). */
export const ContactListParams = Schema.Struct({
  ...filterFields,
  page: Schema.optionalWith(PageParam, { default: () => 1 }),
  limit: Schema.optionalWith(limitParam(contactListLimits.maxLimit), { default: () => contactListLimits.defaultLimit }),
  sortBy: Schema.optionalWith(SortBy, { default: () => "createdAt" as const }),
  sortOrder: Schema.optionalWith(SortOrder, { default: () => "desc" as const }),
})

/** A whole number between `min` and `max`, as typed values carry page numbers and limits. */
export const integerBetween = (name: string, min: number, max: number) =>
  Schema.Number.pipe(
    Schema.int({ message: () => `${name} must be an integer` }),
    Schema.between(min, max, { message: () => `${name} must be between ${min} and ${max}` }),
  )

/** The same parameters as typed values, for code that calls Mailroom without HTTP (and the Contacts service). */
export const ContactListOptions = Schema.Struct({
  ...filterFields,
  page: Schema.optionalWith(integerBetween("page", 1, Number.MAX_SAFE_INTEGER), { default: () => 1 }),
  limit: Schema.optionalWith(integerBetween("limit", 1, contactListLimits.maxLimit), {
    default: () => contactListLimits.defaultLimit,
  }),
  sortBy: Schema.optionalWith(SortBy, { default: () => "createdAt" as const }),
  sortOrder: Schema.optionalWith(SortOrder, { default: () => "desc" as const }),
})
export type ContactListInput = typeof ContactListOptions.Encoded

const countMessages = (what: string) => ({
  min: { message: () => `give at least ${bulkLimits.min} ${what}` },
  max: { message: () => `give at most ${bulkLimits.max} ${what}` },
})
const contactsCount = countMessages("contacts")
const idsCount = countMessages("contact ids")

/** POST /contacts/bulk: 1-1,000 contacts with the fields of POST /contacts; skipDuplicates defaults to true. */
export const BulkCreateInput = Schema.Struct({
  contacts: Schema.Array(CreateContactInput).pipe(
    Schema.minItems(bulkLimits.min, contactsCount.min),
    Schema.maxItems(bulkLimits.max, contactsCount.max),
  ),
  skipDuplicates: Schema.optionalWith(Schema.Boolean, { default: () => true }),
})

/** DELETE /contacts/bulk: 1-1,000 contact ids. */
export const BulkDeleteInput = Schema.Struct({
  contactIds: Schema.Array(Schema.NonEmptyString).pipe(
    Schema.minItems(bulkLimits.min, idsCount.min),
    Schema.maxItems(bulkLimits.max, idsCount.max),
  ),
})

/** A tag named in a path (DELETE /contacts/{id}/tags/{tag}). */
export const TagParam = Schema.Struct({ tag: TagName })
