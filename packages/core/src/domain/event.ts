/** Domain events: appended to the outbox in the same transaction as the change they describe. */
import { Schema } from "effect"
import { AccountId } from "./account.js"

export const eventTypes = [
  "email.queued", "email.delivered", "email.bounced", "email.deferred", "email.dropped", "email.received",
  "email.opened", "email.clicked", "contact.subscribed", "contact.confirmed", "contact.unsubscribed",
  "list.member_added", "list.member_removed", "auth.success", "auth.failed",
] as const
export const EventType = Schema.Literal(...eventTypes)
export type EventType = typeof EventType.Type

export const DomainEvent = Schema.Struct({
  id: Schema.String,
  accountId: AccountId,
  type: EventType,
  recipient: Schema.NullOr(Schema.String),
  details: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  occurredAt: Schema.DateFromSelf,
})
export type DomainEvent = typeof DomainEvent.Type
