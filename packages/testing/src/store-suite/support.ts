/** Helpers shared by the sections of the store contract suite. */
import type { Vitest } from "@effect/vitest"
import { type AccountId, type Contact, type DomainEvent, Store } from "@mailroom/core"
import { Effect } from "effect"
import { type ContactOverrides, makeAccount, makeContact } from "../fixtures.js"

/** The `it` of a suite section: tests whose effects may require the Store. */
export type StoreTester = Vitest.MethodsNonLive<Store>

/** Inserts a fresh account and answers its id. Other backends have foreign keys from every row to its account. */
export const insertAccount = Effect.gen(function* () {
  const store = yield* Store
  const account = makeAccount()
  yield* store.accounts.insert(account)
  return account.id
})

/** Builds and inserts contacts one by one, in order, and answers them as built. */
export const insertContacts = (accountId: AccountId, overrides: ReadonlyArray<Omit<ContactOverrides, "accountId">>) =>
  Effect.gen(function* () {
    const store = yield* Store
    const contacts = overrides.map((fields) => makeContact({ ...fields, accountId }))
    for (const contact of contacts) yield* store.contacts.insert(contact)
    return contacts
  })

const time = (date: Date | null) => (date === null ? null : date.getTime())

/** A contact as plain data two backends agree on: dates as epoch milliseconds, tags ordered by name and custom
 *  fields by key (the port promises no order for either). */
export const comparable = (contact: Contact) => ({
  ...contact,
  subscribedAt: time(contact.subscribedAt),
  unsubscribedAt: time(contact.unsubscribedAt),
  confirmedAt: time(contact.confirmedAt),
  consentAt: time(contact.consentAt),
  createdAt: time(contact.createdAt),
  updatedAt: time(contact.updatedAt),
  tags: [...contact.tags].sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0)).map((t) => ({ ...t })),
  customFields: [...contact.customFields].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((f) => ({ ...f })),
})

export const comparableEvent = (event: DomainEvent) => ({ ...event, occurredAt: event.occurredAt.getTime() })

/** Ids in the order given, for comparing result sets that have no defined order. */
export const sortedIds = (rows: ReadonlyArray<{ readonly id: string }>): Array<string> =>
  rows.map((row) => row.id).sort()

/** The tag names a contact holds, sorted. */
export const tagNames = (contact: Contact): Array<string> => contact.tags.map((t) => t.tag).sort()

/** A fixed instant plus `seconds`, for timestamps whose order a test depends on. */
export const at = (seconds: number): Date => new Date(Date.UTC(2024, 0, 1) + seconds * 1000)
