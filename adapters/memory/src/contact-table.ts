/** The contacts of every account in memory: rows by id and ids by address, per account. Other repositories of this
 *  backend read contacts through it (members of a DYNAMIC list are the contacts matching its rules). Call its methods
 *  only inside a `MemoryDb` atomic step, and never mutate a row it answers. */
import { type AccountId, type Contact, type ContactId, DuplicateContact, StoreError } from "@mailroom/core"
import { Either } from "effect"
import type { MemoryDb, MemoryTable } from "./db.js"

interface AccountContacts {
  readonly byId: MemoryTable<ContactId, Contact>
  readonly idByEmail: MemoryTable<string, ContactId>
}

const copyDate = (date: Date | null): Date | null => (date === null ? null : new Date(date.getTime()))

/** A deep copy, so that neither the caller's object nor the stored row can change the other. */
export const copyContact = (contact: Contact): Contact => ({
  ...contact,
  metadata: contact.metadata === null ? null : structuredClone(contact.metadata),
  subscribedAt: new Date(contact.subscribedAt.getTime()),
  unsubscribedAt: copyDate(contact.unsubscribedAt),
  confirmedAt: copyDate(contact.confirmedAt),
  consentAt: copyDate(contact.consentAt),
  createdAt: new Date(contact.createdAt.getTime()),
  updatedAt: new Date(contact.updatedAt.getTime()),
  tags: contact.tags.map((tag) => ({ ...tag })),
  customFields: contact.customFields.map((field) => ({ ...field })),
})

/** The resource name under which deletions of contacts are announced (`MemoryDb.onDelete`), so that dependent tables
 *  such as list memberships drop their rows in the same step. */
export const contactResource = "contact"

export interface ContactTable {
  /** The account's contacts, in no particular order. */
  readonly rowsOf: (accountId: AccountId) => ReadonlyArray<Contact>
  readonly find: (accountId: AccountId, id: string) => Contact | undefined
  readonly findByEmail: (accountId: AccountId, email: string) => Contact | undefined
  /** Stores a copy of the contact unless its address (DuplicateContact) or its id (StoreError) is taken. */
  readonly put: (contact: Contact) => Either.Either<void, DuplicateContact | StoreError>
  /** Replaces the row with `f(row)`, moving the address index when the address changes; false when there is no row.
   *  `f` must not hand back an address another contact holds. */
  readonly change: (accountId: AccountId, id: string, f: (contact: Contact) => Contact) => boolean
  /** Deletes the account's contacts among `ids` and announces them; answers the ids deleted. */
  readonly remove: (accountId: AccountId, ids: ReadonlyArray<string>) => ReadonlyArray<ContactId>
}

export const makeContactTable = (db: MemoryDb): ContactTable => {
  const accounts = db.table<AccountId, AccountContacts>()

  const tablesOf = (accountId: AccountId): AccountContacts => {
    const existing = accounts.get(accountId)
    if (existing !== undefined) return existing
    const created = { byId: db.table<ContactId, Contact>(), idByEmail: db.table<string, ContactId>() }
    accounts.set(accountId, created)
    return created
  }
  const find = (accountId: AccountId, id: string) => accounts.get(accountId)?.byId.get(id as ContactId)

  return {
    rowsOf: (accountId) => [...(accounts.get(accountId)?.byId.values() ?? [])],
    find,
    findByEmail: (accountId, email) => {
      const id = accounts.get(accountId)?.idByEmail.get(email)
      return id === undefined ? undefined : find(accountId, id)
    },
    put: (contact) => {
      const tables = tablesOf(contact.accountId)
      if (tables.idByEmail.has(contact.email)) return Either.left(new DuplicateContact({ email: contact.email }))
      if (tables.byId.has(contact.id)) {
        return Either.left(new StoreError({ operation: "contacts.insert", cause: `contact id ${contact.id} is taken` }))
      }
      tables.byId.set(contact.id, copyContact(contact))
      tables.idByEmail.set(contact.email, contact.id)
      return Either.void
    },
    change: (accountId, id, f) => {
      const current = find(accountId, id)
      if (current === undefined) return false
      const tables = accounts.get(accountId)!
      const next = f(current)
      if (next.email !== current.email) {
        tables.idByEmail.delete(current.email)
        tables.idByEmail.set(next.email, current.id)
      }
      tables.byId.set(current.id, next)
      return true
    },
    remove: (accountId, ids) => {
      const tables = accounts.get(accountId)
      const removed: Array<ContactId> = []
      for (const id of new Set(ids)) {
        const contact = tables?.byId.get(id as ContactId)
        if (contact === undefined) continue
        tables!.byId.delete(contact.id)
        tables!.idByEmail.delete(contact.email)
        removed.push(contact.id)
      }
      db.deleted(contactResource, accountId, removed)
      return removed
    },
  }
}
