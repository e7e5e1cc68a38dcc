/** Pending double opt-in confirmations in memory, one per contact; they go with their contact. */
import type { AccountId, ConfirmationRepository, ContactId, PendingConfirmation } from "@mailroom/core"
import { Option } from "effect"
import { contactResource } from "./contact-table.js"
import type { MemoryDb } from "./db.js"

const copy = (confirmation: PendingConfirmation): PendingConfirmation => ({
  ...confirmation,
  listIds: [...confirmation.listIds],
  topicIds: [...confirmation.topicIds],
  expiresAt: new Date(confirmation.expiresAt.getTime()),
  createdAt: new Date(confirmation.createdAt.getTime()),
})

export const makeConfirmationRepository = (db: MemoryDb): ConfirmationRepository => {
  const rows = db.table<ContactId, PendingConfirmation>()
  db.onDelete(contactResource, (accountId, contactIds) => {
    for (const contactId of contactIds) {
      if (rows.get(contactId as ContactId)?.accountId === accountId) rows.delete(contactId as ContactId)
    }
  })
  const find = (accountId: AccountId, contactId: ContactId) => {
    const row = rows.get(contactId)
    return row?.accountId === accountId ? row : undefined
  }
  return {
    put: (confirmation) => db.atomic(() => rows.set(confirmation.contactId, copy(confirmation))),
    find: (accountId, contactId) => db.atomic(() => Option.map(Option.fromNullable(find(accountId, contactId)), copy)),
    delete: (accountId, contactId) => db.atomic(() => find(accountId, contactId) !== undefined && rows.delete(contactId)),
  }
}
