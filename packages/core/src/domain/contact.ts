/** A contact: one recipient address in an account, with status and consent evidence. Spec: audience, "Contact". */
import { Either, Schema } from "effect"
import { InvalidStatusTransition, TagLimitExceeded } from "../errors.js"
import { AccountId } from "./account.js"
import { EmailAddress } from "./email.js"
import { foldText, matchesLike } from "./text.js"

export const ContactId = Schema.String.pipe(Schema.brand("ContactId"))
export type ContactId = typeof ContactId.Type

export const contactStatuses = ["PENDING", "ACTIVE", "UNSUBSCRIBED", "BOUNCED", "COMPLAINED", "CLEANED"] as const
export const ContactStatus = Schema.Literal(...contactStatuses)
export type ContactStatus = typeof ContactStatus.Type

export const contactSources = ["MANUAL", "CSV_IMPORT", "API", "FORM", "SYNC"] as const
export const ContactSource = Schema.Literal(...contactSources)
export type ContactSource = typeof ContactSource.Type

export const contactLimits = {
  nameLength: 100,
  metadataBytes: 4096,
  tags: 50,
  tagLength: 50,
  customFieldKeyLength: 100,
  customFieldValueLength: 1000,
  customFields: 100,
} as const

export const PersonName = Schema.String.pipe(
  Schema.maxLength(contactLimits.nameLength, { message: () => `must be at most ${contactLimits.nameLength} characters` }),
)

/** E.164: a plus, a country code that does not start with 0, at most 15 digits in all. */
export const PhoneE164 = Schema.String.pipe(
  Schema.pattern(/^\+[1-9]\d{1,14}$/, { message: () => "must be an E.164 phone number such as +14155550123" }),
)

const jsonBytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length

/** Arbitrary JSON object, at most 4 KB once serialised. */
export const Metadata = Schema.Record({ key: Schema.String, value: Schema.Unknown }).pipe(
  Schema.filter((value) =>
    jsonBytes(value) <= contactLimits.metadataBytes || `must be at most ${contactLimits.metadataBytes} bytes of JSON`),
)
export type Metadata = typeof Metadata.Type

/** A tag name: trimmed and lower-cased on input, then lowercase letters, digits, - and _, 1-50 characters. */
export const TagName = Schema.transform(
  Schema.String,
  Schema.String.pipe(
    Schema.pattern(/^[a-z0-9_-]+$/, { message: () => "tags hold only lowercase letters, digits, - and _" }),
    Schema.minLength(1, { message: () => "a tag must not be empty" }),
    Schema.maxLength(contactLimits.tagLength, { message: () => `a tag is at most ${contactLimits.tagLength} characters` }),
  ),
  { strict: true, decode: (tag) => tag.trim().toLowerCase(), encode: (tag) => tag },
)

export const CustomFields = Schema.Record({
  key: Schema.String.pipe(
    Schema.minLength(1, { message: () => "a custom field key must not be empty" }),
    Schema.maxLength(contactLimits.customFieldKeyLength, {
      message: () => `a custom field key is at most ${contactLimits.customFieldKeyLength} characters`,
    }),
  ),
  value: Schema.String.pipe(Schema.maxLength(contactLimits.customFieldValueLength, {
    message: () => `a custom field value is at most ${contactLimits.customFieldValueLength} characters`,
  })),
}).pipe(Schema.filter((fields) =>
  Object.keys(fields).length <= contactLimits.customFields || `at most ${contactLimits.customFields} custom fields`))

export interface ContactTag {
  readonly id: string
  readonly contactId: ContactId
  readonly tag: string
}

export interface CustomField {
  readonly id: string
  readonly contactId: ContactId
  readonly key: string
  readonly value: string
}

export interface Contact {
  readonly id: ContactId
  readonly accountId: AccountId
  readonly email: EmailAddress
  readonly firstName: string | null
  readonly lastName: string | null
  readonly phone: string | null
  readonly metadata: Metadata | null
  readonly source: ContactSource
  readonly status: ContactStatus
  readonly subscribedAt: Date
  readonly unsubscribedAt: Date | null
  readonly confirmedAt: Date | null
  readonly consentSource: string | null
  readonly consentAt: Date | null
  readonly consentIp: string | null
  readonly consentUserAgent: string | null
  readonly consentText: string | null
  readonly tags: ReadonlyArray<ContactTag>
  readonly customFields: ReadonlyArray<CustomField>
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** The fields a new contact is given unless its maker says otherwise: ACTIVE, source API, subscribed at creation, no
 *  consent evidence, no tags or custom fields. */
export const newContact = (
  base: { readonly id: ContactId; readonly accountId: AccountId; readonly email: EmailAddress; readonly at: Date },
  fields: Partial<Omit<Contact, "id" | "accountId" | "email" | "createdAt" | "updatedAt">> = {},
): Contact => ({
  id: base.id,
  accountId: base.accountId,
  email: base.email,
  firstName: null,
  lastName: null,
  phone: null,
  metadata: null,
  source: "API",
  status: "ACTIVE",
  subscribedAt: base.at,
  unsubscribedAt: null,
  confirmedAt: null,
  consentSource: null,
  consentAt: null,
  consentIp: null,
  consentUserAgent: null,
  consentText: null,
  tags: [],
  customFields: [],
  createdAt: base.at,
  updatedAt: base.at,
  ...fields,
})

const tagList = Schema.Array(TagName).pipe(Schema.maxItems(contactLimits.tags, {
  message: () => `at most ${contactLimits.tags} tags`,
}))

/** Fields of POST /contacts (and of each item of POST /contacts/bulk). */
export const CreateContactInput = Schema.Struct({
  email: EmailAddress,
  firstName: Schema.optional(Schema.NullOr(PersonName)),
  lastName: Schema.optional(Schema.NullOr(PersonName)),
  phone: Schema.optional(Schema.NullOr(PhoneE164)),
  metadata: Schema.optional(Schema.NullOr(Metadata)),
  source: Schema.optional(ContactSource),
  status: Schema.optional(ContactStatus),
  tags: Schema.optional(tagList),
  customFields: Schema.optional(CustomFields),
})
export type CreateContactInput = typeof CreateContactInput.Type

/** Fields of PATCH /contacts/{id}: only sent fields change; tags go through the tag routes. */
export const UpdateContactInput = Schema.Struct({
  email: Schema.optional(EmailAddress),
  firstName: Schema.optional(Schema.NullOr(PersonName)),
  lastName: Schema.optional(Schema.NullOr(PersonName)),
  phone: Schema.optional(Schema.NullOr(PhoneE164)),
  metadata: Schema.optional(Schema.NullOr(Metadata)),
  source: Schema.optional(ContactSource),
  status: Schema.optional(ContactStatus),
  customFields: Schema.optional(CustomFields),
})
export type UpdateContactInput = typeof UpdateContactInput.Type

export const TagsInput = Schema.Struct({
  tags: Schema.Array(TagName).pipe(
    Schema.minItems(1, { message: () => "give at least one tag" }),
    Schema.maxItems(contactLimits.tags, { message: () => `at most ${contactLimits.tags} tags at once` }),
  ),
})

/** Moves allowed by PATCH /contacts/{id}. Spec: audience, "Contact status changed with PATCH /contacts/{id}". */
export const allowedMoves: Record<ContactStatus, ReadonlyArray<ContactStatus>> = {
  PENDING: ["ACTIVE", "UNSUBSCRIBED", "CLEANED"],
  ACTIVE: ["UNSUBSCRIBED", "BOUNCED", "COMPLAINED", "CLEANED"],
  UNSUBSCRIBED: ["ACTIVE", "PENDING"],
  BOUNCED: ["ACTIVE"],
  COMPLAINED: [],
  CLEANED: [],
}

/** The status after a PATCH asking for `to`. Asking for the current status is no move and always allowed. */
export const moveStatus = (from: ContactStatus, to: ContactStatus): Either.Either<ContactStatus, InvalidStatusTransition> =>
  from === to || allowedMoves[from].includes(to) ? Either.right(to) : Either.left(new InvalidStatusTransition({ from, to }))

/** Tags after adding `added` to `existing`: existing kept, duplicates folded, at most `contactLimits.tags`. */
export const mergeTags = (
  existing: ReadonlyArray<string>,
  added: ReadonlyArray<string>,
): Either.Either<ReadonlyArray<string>, TagLimitExceeded> => {
  const merged = [...new Set([...existing, ...added])]
  return merged.length > contactLimits.tags
    ? Either.left(new TagLimitExceeded({ limit: contactLimits.tags, wouldHold: merged.length }))
    : Either.right(merged)
}

export const contactSortKeys = ["createdAt", "email", "subscribedAt"] as const
export type ContactSortKey = (typeof contactSortKeys)[number]

/** The filters shared by GET /contacts and GET /contacts/export. */
export interface ContactFilter {
  readonly status?: ContactStatus | undefined
  readonly source?: ContactSource | undefined
  readonly tag?: string | undefined
  readonly search?: string | undefined
}

export interface ContactQuery extends ContactFilter {
  readonly page: number
  readonly limit: number
  readonly sortBy: ContactSortKey
  readonly sortOrder: "asc" | "desc"
}

/** The texts contact search reads, folded (core's foldText): the address (ASCII and lower-case, so its own folding),
 *  the first name and the last name (absent reads as ""). SQL backends store the folded names beside the names. */
export const contactSearchText = (contact: Pick<Contact, "email" | "firstName" | "lastName">): ReadonlyArray<string> =>
  [contact.email, foldText(contact.firstName ?? ""), foldText(contact.lastName ?? "")]

/** The filter semantics every backend implements (SQL backends compile it in packages/sql/src/contact-query.ts):
 *  exact status, source and tag; `search` a substring of a search text, ignoring case (foldText on both sides). */
export const matchesContactFilter = (contact: Contact, filter: ContactFilter): boolean => {
  if (filter.status !== undefined && contact.status !== filter.status) return false
  if (filter.source !== undefined && contact.source !== filter.source) return false
  if (filter.tag !== undefined && !contact.tags.some((t) => t.tag === filter.tag)) return false
  if (filter.search !== undefined && filter.search !== "") {
    const needle = foldText(filter.search)
    if (!contactSearchText(contact).some((text) => matchesLike(text, needle, "contains"))) return false
  }
  return true
}

const sortValue = (contact: Contact, key: ContactSortKey): string | number =>
  key === "email" ? contact.email : key === "createdAt" ? contact.createdAt.getTime() : contact.subscribedAt.getTime()

/** The order of GET /contacts: by the sort key, ties broken by id in the same direction. */
export const compareContacts = (sortBy: ContactSortKey, sortOrder: "asc" | "desc") => (a: Contact, b: Contact): number => {
  const x = sortValue(a, sortBy)
  const y = sortValue(b, sortBy)
  const order = x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0
  return sortOrder === "asc" ? order : -order
}
