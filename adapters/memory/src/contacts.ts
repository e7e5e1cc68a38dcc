/** The contact repository in memory, over the contact table. Query semantics come from core's matchesContactFilter,
 *  compareContacts and slicePage, the same rules the SQL backends translate. */
import {
  compareContacts, type Contact, type ContactRepository, type ContactTag, DuplicateContact, matchesContactFilter,
  slicePage,
} from "@mailroom/core"
import { Either, Option } from "effect"
import { type ContactTable, copyContact } from "./contact-table.js"
import type { MemoryDb } from "./db.js"
import type { ListTable } from "./lists.js"
import { copySuppression, type SuppressionTable } from "./suppressions.js"

const byId = (a: Contact, b: Contact) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

export const makeContactRepository = (
  db: MemoryDb,
  table: ContactTable,
  suppressions: SuppressionTable,
  lists: ListTable,
): ContactRepository => ({
  insert: (contact) => db.atomicEither(() => table.put(contact)),

  insertMany: (contacts) =>
    db.atomicEither(() => {
      const inserted: Array<Contact> = []
      for (const contact of contacts) {
        const result = table.put(contact)
        if (Either.isRight(result)) inserted.push(copyContact(contact))
        else if (result.left._tag === "StoreError") return Either.left(result.left)
      }
      return Either.right(inserted)
    }),

  update: (contact, options) =>
    db.atomicEither((): Either.Either<boolean, DuplicateContact> => {
      const stored = table.find(contact.accountId, contact.id)
      if (stored === undefined) return Either.right(false)
      if (options?.expectedStatus !== undefined && stored.status !== options.expectedStatus) return Either.right(false)
      const holder = table.findByEmail(contact.accountId, contact.email)
      if (holder !== undefined && holder.id !== contact.id) return Either.left(new DuplicateContact({ email: contact.email }))
      table.change(contact.accountId, contact.id, (current) => ({
        ...copyContact(contact), tags: current.tags, customFields: current.customFields, createdAt: current.createdAt,
      }))
      return Either.right(true)
    }),

  replaceCustomFields: (accountId, contactId, fields) =>
    db.atomic(() => {
      table.change(accountId, contactId, (contact) => ({ ...contact, customFields: fields.map((field) => ({ ...field })) }))
    }),

  addTags: (accountId, contactId, tags) =>
    db.atomic(() => {
      table.change(accountId, contactId, (contact) => {
        const held = new Set(contact.tags.map((t) => t.tag))
        const added: Array<ContactTag> = []
        for (const tag of tags) {
          if (held.has(tag.tag)) continue
          held.add(tag.tag)
          added.push({ ...tag })
        }
        return { ...contact, tags: [...contact.tags, ...added] }
      })
    }),

  removeTag: (accountId, contactId, tag) =>
    db.atomic(() => {
      if (!table.find(accountId, contactId)?.tags.some((t) => t.tag === tag)) return false
      return table.change(accountId, contactId, (contact) => ({ ...contact, tags: contact.tags.filter((t) => t.tag !== tag) }))
    }),

  findById: (accountId, id) => db.atomic(() => Option.fromNullable(table.find(accountId, id)).pipe(Option.map(copyContact))),

  findByEmail: (accountId, email) =>
    db.atomic(() => Option.fromNullable(table.findByEmail(accountId, email)).pipe(Option.map(copyContact))),

  findAddress: (accountId, email, listIds = []) =>
    db.atomic(() => ({
      contact: Option.fromNullable(table.findByEmail(accountId, email)).pipe(Option.map(copyContact)),
      suppression: Option.fromNullable(suppressions.find(accountId, email)).pipe(Option.map(copySuppression)),
      listIds: [...new Set(listIds)].filter((id) => lists.find(accountId, id) !== undefined),
    })),

  findByEmails: (accountId, emails) =>
    db.atomic(() => {
      const found = new Map(emails.flatMap((email) => table.findByEmail(accountId, email) ?? []).map((c) => [c.id, c]))
      return [...found.values()].map(copyContact)
    }),

  findByIds: (accountId, ids) =>
    db.atomic(() => [...new Set(ids)].flatMap((id) => table.find(accountId, id) ?? []).map(copyContact)),

  list: (accountId, query) =>
    db.atomic(() => {
      const matching = table.rowsOf(accountId).filter((contact) => matchesContactFilter(contact, query))
        .sort(compareContacts(query.sortBy, query.sortOrder))
      return { contacts: slicePage(matching, query).map(copyContact), total: matching.length }
    }),

  listAfter: (accountId, filter, afterId, size) =>
    db.atomic(() =>
      table.rowsOf(accountId)
        .filter((contact) => (afterId === undefined || contact.id > afterId) && matchesContactFilter(contact, filter))
        .sort(byId)
        .slice(0, size)
        .map(copyContact)),

  delete: (accountId, id) => db.atomic(() => table.remove(accountId, [id]).length === 1),

  deleteMany: (accountId, ids) => db.atomic(() => table.remove(accountId, ids).length),

  countActive: (accountId) => db.atomic(() => table.rowsOf(accountId).filter((c) => c.status === "ACTIVE").length),

  tagCounts: (accountId) =>
    db.atomic(() => {
      const counts = new Map<string, number>()
      for (const contact of table.rowsOf(accountId)) {
        for (const { tag } of contact.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1)
      }
      return [...counts].map(([name, count]) => ({ name, count })).sort((a, b) => (a.name < b.name ? -1 : 1))
    }),
})
