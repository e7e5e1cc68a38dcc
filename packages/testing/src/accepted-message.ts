/** Accepted messages for delivery tests, stored as acceptance stores them: the queued message with its recipients, one
 *  email.queued message event and one email.queued outbox event per recipient, in one Store transaction. */
import {
  acceptSend, type AccountId, emailEvent, Ids, type MessageEvent, type MessageId, SendInput, Store, type StoredMessage,
  toStoredMessage,
} from "@mailroom/core"
import { Clock, Effect, Either, Schema } from "effect"

/** A send body with the given recipients (To only unless `body` says more). */
export const sendBodyTo = (to: ReadonlyArray<string>, body: Record<string, unknown> = {}) => ({
  from: { email: "news@example.com", name: "Example News" },
  to: to.map((email) => ({ email })),
  content: { subject: "Hello {{name}}", html: "<p>Hi {{name}}</p>" },
  variables: { name: "Ada <3" },
  metadata: { orderId: 42 },
  ...body,
})

/** Stores an accepted, queued message of `accountId` made from `body` (a POST /emails/send body), as acceptance
 *  does, and answers it. */
export const storeAcceptedMessage = (accountId: AccountId, body: unknown) =>
  Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const at = new Date(yield* Clock.currentTimeMillis)
    const accepted = Either.getOrThrow(acceptSend(Schema.decodeUnknownSync(SendInput)(body)))
    const message: StoredMessage = toStoredMessage({
      id: ids.make("message", at) as MessageId,
      accountId,
      batchId: null,
      message: accepted,
      scheduledFor: null,
      createdAt: at,
    })
    const records: Array<MessageEvent> = message.recipients.map((r) => ({
      id: ids.make("messageEvent", at), accountId, messageId: message.id, recipient: r.email, type: "email.queued",
      occurredAt: at, smtpResponse: null, bounceType: null, bounceCode: null, bounceReason: null,
    }))
    const events = message.recipients.map((r) => emailEvent({
      id: ids.make("event", at), accountId, type: "email.queued", messageId: message.id, recipient: r.email,
      sender: message.content.from.email, subject: message.content.subject, occurredAt: at,
      metadata: message.content.metadata,
    }))
    yield* store.transaction(Effect.gen(function* () {
      yield* store.messages.insertMany([message])
      yield* store.messages.appendEvents(records)
      yield* store.events.append(events)
    }))
    return message
  })
