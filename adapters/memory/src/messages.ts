/** Messages in memory: each message with its recipients as one immutable row, and the events of each message in
 *  append order. */
import type { AccountId, MessageEvent, MessageId, MessageRepository, RecipientUpdate, StoredMessage } from "@mailroom/core"
import { Option } from "effect"
import type { MemoryDb } from "./db.js"

const copyMessage = (message: StoredMessage): StoredMessage => structuredClone(message)

export type MessageTable = ReturnType<typeof makeMessageTable>
export const makeMessageTable = (db: MemoryDb) => db.table<string, StoredMessage>()

export const makeMessageRepository = (db: MemoryDb, messages: MessageTable = makeMessageTable(db)): MessageRepository => {
  const events = db.table<string, ReadonlyArray<MessageEvent>>()
  const owned = (accountId: AccountId, id: MessageId) => {
    const message = messages.get(id)
    return message !== undefined && message.accountId === accountId ? message : undefined
  }
  return {
    insertMany: (rows) =>
      db.atomic(() => {
        for (const message of rows) messages.set(message.id, copyMessage(message))
      }),

    findById: (accountId, id) => db.atomic(() => Option.map(Option.fromNullable(owned(accountId, id)), copyMessage)),

    findByIds: (accountId, ids) => db.atomic(() => ids.flatMap((id) => {
      const message = owned(accountId, id)
      return message === undefined ? [] : [copyMessage(message)]
    })),

    updateRecipients: (accountId, updates) =>
      db.atomic(() => {
        const byMessage = new Map<MessageId, Map<number, RecipientUpdate>>()
        for (const u of updates) byMessage.set(u.messageId, (byMessage.get(u.messageId) ?? new Map<number, RecipientUpdate>()).set(u.position, u))
        for (const [id, byPosition] of byMessage) {
          const message = owned(accountId, id)
          if (message === undefined) continue
          const recipients = message.recipients.map((recipient) => {
            const update = byPosition.get(recipient.position)
            return update === undefined ? recipient : {
              ...recipient,
              status: update.status,
              attempts: recipient.attempts + update.addAttempts,
              lastResponse: update.lastResponse,
              updatedAt: new Date(update.at.getTime()),
            }
          })
          messages.set(id, { ...message, recipients })
        }
      }),

    moveScheduled: (accountId, id, to) =>
      db.atomic(() => {
        const message = owned(accountId, id)
        if (message === undefined || message.state !== "scheduled") return false
        messages.set(id, { ...message, state: to })
        return true
      }),

    dueScheduled: (at, limit) =>
      db.atomic(() =>
        [...messages.values()]
          .filter((m) => m.state === "scheduled" && m.scheduledFor !== null && m.scheduledFor.getTime() <= at.getTime())
          .sort((a, b) => a.scheduledFor!.getTime() - b.scheduledFor!.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .slice(0, limit)
          .map((m) => ({ accountId: m.accountId, id: m.id, scheduledFor: new Date(m.scheduledFor!.getTime()) }))),

    recipientsWithStatus: (accountId, status, limit) =>
      db.atomic(() =>
        [...messages.values()]
          .filter((m) => m.accountId === accountId)
          .flatMap((m) => m.recipients.filter((r) => r.status === status).map((recipient) => ({ messageId: m.id, recipient })))
          .sort((a, b) =>
            a.recipient.updatedAt.getTime() - b.recipient.updatedAt.getTime()
            || (a.messageId < b.messageId ? -1 : a.messageId > b.messageId ? 1 : 0)
            || a.recipient.position - b.recipient.position)
          .slice(0, limit)
          .map((entry) => structuredClone(entry))),

    appendEvents: (appended) =>
      db.atomic(() => {
        for (const event of appended) events.set(event.messageId, [...(events.get(event.messageId) ?? []), structuredClone(event)])
      }),

    // Array.prototype.sort is stable, so events of the same instant stay in append order.
    events: (accountId, id) =>
      db.atomic(() =>
        (events.get(id) ?? [])
          .filter((event) => event.accountId === accountId)
          .slice()
          .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime())
          .map((event) => structuredClone(event))),
  }
}
