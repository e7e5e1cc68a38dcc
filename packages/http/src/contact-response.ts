/** A contact as the API answers it: exactly the fields of the spec's Contact table, dates as ISO 8601 strings.
 *  Spec: audience "Resources and their fields", "Contact". The account id stays internal. */
import type { Contact } from "@mailroom/core"
import { Effect, Schema } from "effect"

const ContactTagResponse = Schema.Struct({ id: Schema.String, contactId: Schema.String, tag: Schema.String })
const CustomFieldResponse = Schema.Struct({
  id: Schema.String,
  contactId: Schema.String,
  key: Schema.String,
  value: Schema.String,
})

export const ContactResponse = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  firstName: Schema.NullOr(Schema.String),
  lastName: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String),
  metadata: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  source: Schema.String,
  status: Schema.String,
  subscribedAt: Schema.Date,
  unsubscribedAt: Schema.NullOr(Schema.Date),
  confirmedAt: Schema.NullOr(Schema.Date),
  consentSource: Schema.NullOr(Schema.String),
  consentAt: Schema.NullOr(Schema.Date),
  consentIp: Schema.NullOr(Schema.String),
  consentUserAgent: Schema.NullOr(Schema.String),
  consentText: Schema.NullOr(Schema.String),
  tags: Schema.Array(ContactTagResponse),
  customFields: Schema.Array(CustomFieldResponse),
  // Carried by the spec's Contact without a type: contacts made through this API belong to no user and no form.
  userId: Schema.Null,
  confirmationFormId: Schema.Null,
  createdAt: Schema.Date,
  updatedAt: Schema.Date,
})
export type ContactResponse = typeof ContactResponse.Encoded

const isoOrNull = (date: Date | null): string | null => (date === null ? null : date.toISOString())

/** The JSON form of a contact, field for field what `Schema.encode(ContactResponse)` makes of it (a test holds the two
 *  together). Written out because every contact of every answer goes through it, and the Schema walk costs several
 *  times the copy. An invalid date is a bug in the stored data, not bad input: it dies. */
export const encodeContact = (contact: Contact): Effect.Effect<ContactResponse> =>
  Effect.sync(() => ({
    id: contact.id,
    email: contact.email,
    firstName: contact.firstName,
    lastName: contact.lastName,
    phone: contact.phone,
    metadata: contact.metadata === null ? null : { ...contact.metadata },
    source: contact.source,
    status: contact.status,
    subscribedAt: contact.subscribedAt.toISOString(),
    unsubscribedAt: isoOrNull(contact.unsubscribedAt),
    confirmedAt: isoOrNull(contact.confirmedAt),
    consentSource: contact.consentSource,
    consentAt: isoOrNull(contact.consentAt),
    consentIp: contact.consentIp,
    consentUserAgent: contact.consentUserAgent,
    consentText: contact.consentText,
    tags: contact.tags.map(({ id, contactId, tag }) => ({ id, contactId, tag })),
    customFields: contact.customFields.map(({ id, contactId, key, value }) => ({ id, contactId, key, value })),
    userId: null,
    confirmationFormId: null,
    createdAt: contact.createdAt.toISOString(),
    updatedAt: contact.updatedAt.toISOString(),
  }))

export const encodeContacts = (contacts: ReadonlyArray<Contact>): Effect.Effect<ReadonlyArray<ContactResponse>> =>
  Effect.forEach(contacts, encodeContact)
