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

const encode = Schema.encode(ContactResponse)

/** The JSON form of a contact. A failure here is a bug in the stored data, not bad input: it dies. */
export const encodeContact = (contact: Contact): Effect.Effect<ContactResponse> =>
  encode({ ...contact, userId: null, confirmationFormId: null }).pipe(Effect.orDie)

export const encodeContacts = (contacts: ReadonlyArray<Contact>): Effect.Effect<ReadonlyArray<ContactResponse>> =>
  Effect.forEach(contacts, encodeContact)
