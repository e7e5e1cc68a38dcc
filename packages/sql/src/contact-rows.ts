/** How a contact maps to its rows (contacts, contact_tags, contact_custom_fields), and how a set of contact rows is
 *  completed with tags and custom fields in two queries whatever the number of contacts. */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import {
  AccountId, type Contact, ContactId, ContactSource, ContactStatus, type ContactTag, type CustomField, foldNullable,
  foldText,
} from "@mailroom/core"
import { Effect, type ParseResult, Schema } from "effect"
import { chunksOf, maxInList } from "./internal/batch.js"
import { EpochMillis, JsonColumn, toJson, toMillis, toMillisOrNull } from "./internal/columns.js"

/** Addresses were validated and lower-cased before they were stored; reading them back does not check them again. */
const StoredEmail = Schema.String.pipe(Schema.brand("EmailAddress"))

const ContactRow = Schema.Struct({
  id: ContactId,
  account_id: AccountId,
  email: StoredEmail,
  first_name: Schema.NullOr(Schema.String),
  last_name: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String),
  metadata: Schema.NullOr(JsonColumn(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  source: ContactSource,
  status: ContactStatus,
  subscribed_at: EpochMillis,
  unsubscribed_at: Schema.NullOr(EpochMillis),
  confirmed_at: Schema.NullOr(EpochMillis),
  consent_source: Schema.NullOr(Schema.String),
  consent_at: Schema.NullOr(EpochMillis),
  consent_ip: Schema.NullOr(Schema.String),
  consent_user_agent: Schema.NullOr(Schema.String),
  consent_text: Schema.NullOr(Schema.String),
  created_at: EpochMillis,
  updated_at: EpochMillis,
})
export type ContactRow = typeof ContactRow.Type

export const decodeContactRows = Schema.decodeUnknown(Schema.Array(ContactRow))

const TagRow = Schema.Struct({ id: Schema.String, contact_id: ContactId, tag: Schema.String })
const FieldRow = Schema.Struct({ id: Schema.String, contact_id: ContactId, key: Schema.String, value: Schema.String })
const decodeTagRows = Schema.decodeUnknown(Schema.Array(TagRow))
const decodeFieldRows = Schema.decodeUnknown(Schema.Array(FieldRow))

/** The columns of the contacts table that `update` rewrites: all but id, account_id and created_at. The folded
 *  columns hold core's foldText of their text, which search and segment conditions compare. */
export const scalarColumns = (contact: Contact) => ({
  email: contact.email,
  first_name: contact.firstName,
  first_name_folded: foldNullable(contact.firstName),
  last_name: contact.lastName,
  last_name_folded: foldNullable(contact.lastName),
  phone: contact.phone,
  phone_folded: foldNullable(contact.phone),
  metadata: contact.metadata === null ? null : toJson(contact.metadata),
  source: contact.source,
  status: contact.status,
  subscribed_at: toMillis(contact.subscribedAt),
  unsubscribed_at: toMillisOrNull(contact.unsubscribedAt),
  confirmed_at: toMillisOrNull(contact.confirmedAt),
  consent_source: contact.consentSource,
  consent_at: toMillisOrNull(contact.consentAt),
  consent_ip: contact.consentIp,
  consent_user_agent: contact.consentUserAgent,
  consent_text: contact.consentText,
  updated_at: toMillis(contact.updatedAt),
})

/** The contacts row of a contact, every column in a fixed order (multi-row inserts need the same keys per row). */
export const contactRow = (contact: Contact) => ({
  id: contact.id,
  account_id: contact.accountId,
  created_at: toMillis(contact.createdAt),
  ...scalarColumns(contact),
})

export const tagRow = (contact: Pick<Contact, "id" | "accountId">, tag: Pick<ContactTag, "id" | "tag">) => ({
  id: tag.id,
  account_id: contact.accountId,
  contact_id: contact.id,
  tag: tag.tag,
})

export const fieldRow = (contact: Pick<Contact, "id" | "accountId">, field: Pick<CustomField, "id" | "key" | "value">) => ({
  id: field.id,
  account_id: contact.accountId,
  contact_id: contact.id,
  key: field.key,
  value: field.value,
  value_folded: foldText(field.value),
})

const toContact = (row: ContactRow, tags: ReadonlyArray<ContactTag>, customFields: ReadonlyArray<CustomField>): Contact => ({
  id: row.id,
  accountId: row.account_id,
  email: row.email,
  firstName: row.first_name,
  lastName: row.last_name,
  phone: row.phone,
  metadata: row.metadata,
  source: row.source,
  status: row.status,
  subscribedAt: row.subscribed_at,
  unsubscribedAt: row.unsubscribed_at,
  confirmedAt: row.confirmed_at,
  consentSource: row.consent_source,
  consentAt: row.consent_at,
  consentIp: row.consent_ip,
  consentUserAgent: row.consent_user_agent,
  consentText: row.consent_text,
  tags,
  customFields,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const groupBy = <A extends { readonly contactId: string }>(items: ReadonlyArray<A>): Map<string, Array<A>> => {
  const groups = new Map<string, Array<A>>()
  for (const item of items) {
    const group = groups.get(item.contactId)
    if (group === undefined) groups.set(item.contactId, [item])
    else group.push(item)
  }
  return groups
}

/** The contacts of `rows`, in the same order, with their tags and custom fields in the order they were added. */
export const withChildren = (
  sql: SqlClient.SqlClient,
  accountId: AccountId,
  rows: ReadonlyArray<ContactRow>,
): Effect.Effect<ReadonlyArray<Contact>, SqlError | ParseResult.ParseError> => {
  if (rows.length === 0) return Effect.succeed([])
  const idChunks = chunksOf(rows.map((row) => row.id), maxInList)
  const tags = Effect.forEach(idChunks, (ids) =>
    sql`SELECT id, contact_id, tag FROM contact_tags
      WHERE account_id = ${accountId} AND contact_id IN ${sql.in(ids)} ORDER BY seq`.pipe(Effect.flatMap(decodeTagRows)))
  const fields = Effect.forEach(idChunks, (ids) =>
    sql`SELECT id, contact_id, key, value FROM contact_custom_fields
      WHERE account_id = ${accountId} AND contact_id IN ${sql.in(ids)} ORDER BY seq`.pipe(Effect.flatMap(decodeFieldRows)))
  return Effect.all([tags, fields], { concurrency: 2 }).pipe(Effect.map(([tagRows, fieldRows]) => {
    const tagsOf = groupBy(tagRows.flat().map((tag) => ({ id: tag.id, contactId: tag.contact_id, tag: tag.tag })))
    const fieldsOf = groupBy(fieldRows.flat().map((field) =>
      ({ id: field.id, contactId: field.contact_id, key: field.key, value: field.value })))
    return rows.map((row) => toContact(row, tagsOf.get(row.id) ?? [], fieldsOf.get(row.id) ?? []))
  }))
}
