/** Reading messages back: GET /emails/{id} (not shown in the spec; rule 4 asks users to check a message's status
 *  before sending a replacement). The message with its derived status, its recipients and their events. */
import { Effect } from "effect"
import type { Account } from "../domain/account.js"
import type { MessageId } from "../domain/message.js"
import { type MessageEvent, messageStatus, type StoredMessage } from "../domain/message-record.js"
import { Store } from "../ports/store.js"
import { orNotFound } from "../internal/found.js"
import { serviceMethod } from "./tracing.js"

export interface MessageDetails {
  readonly message: StoredMessage
  /** scheduled, cancelled, queued, held, delivered, bounced, dropped or partially_delivered (messageStatus). */
  readonly status: string
  readonly events: ReadonlyArray<MessageEvent>
}

export class Messages extends Effect.Service<Messages>()("@mailroom/core/Messages", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const method = yield* serviceMethod

    /** The account's message, or RESOURCE_NOT_FOUND (also for another account's id). */
    const get = method("Messages.get")(function* (account: Account, id: string) {
      const message = yield* store.messages.findById(account.id, id as MessageId).pipe(orNotFound("message", id))
      const events = yield* store.messages.events(account.id, message.id)
      return { message, status: messageStatus(message.state, message.recipients), events } satisfies MessageDetails
    })

    return { get } as const
  }),
}) {}
