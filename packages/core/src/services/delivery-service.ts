/** The MessageDelivery service: registers the dispatching consumer and the delivery worker (message-delivery.ts) with
 *  Background, and answers the operator's review of held recipients. Spec: sending "Sending" rule 6. */
import { Clock, Context, Effect, Option } from "effect"
import type { AccountId } from "../domain/account.js"
import { type DeliveryVerdict, resolveRecipient } from "../domain/delivery-outcome.js"
import type { MessageId } from "../domain/message.js"
import type { MessageRecipient } from "../domain/message-record.js"
import { ResourceNotFound, ValidationFailed } from "../errors.js"
import { orNotFound } from "../internal/found.js"
import { Ids } from "../ports/ids.js"
import { JobQueue } from "../ports/job-queue.js"
import { Store } from "../ports/store.js"
import { TemplateEngine } from "../ports/template-engine.js"
import { Background } from "./background.js"
import { recordResolutions } from "./delivery-record.js"
import { Domains } from "./domains.js"
import { DeliveryConfig, deliverMessage, deliveryDispatchConsumer, dispatchQueuedMessages, messageDeliveryJob } from "./message-delivery.js"
import { Tokens } from "./tokens.js"

/** What an operator decides for a held recipient: it arrived, it did not (a soft bounce: nothing is suppressed), or
 *  send it again. */
export const heldResolutions = ["delivered", "bounced", "resend"] as const
export type HeldResolution = (typeof heldResolutions)[number]

export interface HeldRecipient {
  readonly messageId: MessageId
  readonly recipient: MessageRecipient
}

/** Registers the dispatching consumer and the delivery worker with Background, and answers the operator's review of
 *  held recipients. */
export class MessageDelivery extends Effect.Service<MessageDelivery>()("@mailroom/core/MessageDelivery", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const tokens = yield* Tokens
    const background = yield* Background
    const config = yield* DeliveryConfig
    const domains = yield* Domains
    const engine = yield* Effect.serviceOption(TemplateEngine)
    const context = Context.make(Store, store).pipe(
      Context.add(Ids, ids), Context.add(Tokens, tokens), Context.add(DeliveryConfig, config), Context.add(Domains, domains))

    yield* background.consume({ name: deliveryDispatchConsumer, handle: dispatchQueuedMessages, types: ["email.queued"] })
    yield* background.work(
      messageDeliveryJob,
      (payload, run) => Effect.provide(deliverMessage(payload, run), Option.isSome(engine)
        ? Context.add(context, TemplateEngine, engine.value)
        : context),
      { concurrency: config.concurrency ?? 8 },
    )

    /** Held recipients of the account, least recently updated first. */
    const listHeld = (accountId: AccountId, limit: number) => store.messages.recipientsWithStatus(accountId, "held", limit)

    /** Resolves one held recipient of the account's message. RESOURCE_NOT_FOUND when the message or the recipient is
     *  unknown; VALIDATION_ERROR when the recipient is not held. `resend` queues it again and enqueues the delivery. */
    const resolveHeld = (accountId: AccountId, messageId: string, email: string, resolution: HeldResolution) =>
      Effect.gen(function* () {
        const at = new Date(yield* Clock.currentTimeMillis)
        const updated = yield* store.transaction(Effect.gen(function* () {
          yield* store.accounts.lock(accountId)
          const message = yield* store.messages.findById(accountId, messageId as MessageId).pipe(orNotFound("message", messageId))
          const recipient = message.recipients.find((r) => r.email === email.trim().toLowerCase())
          if (recipient === undefined) return yield* Effect.fail(new ResourceNotFound({ resource: "recipient", id: email }))
          if (recipient.status !== "held") {
            return yield* Effect.fail(new ValidationFailed({ field: "email", detail: `is not held (its status is ${recipient.status})` }))
          }
          if (resolution === "resend") {
            yield* store.messages.updateRecipients(accountId, [{
              messageId: message.id, position: recipient.position, status: "queued", addAttempts: 0, lastResponse: "queued again by an operator", at,
            }])
            return { message, recipient: { ...recipient, status: "queued" as const } }
          }
          const verdict: DeliveryVerdict = resolution === "delivered"
            ? { status: "delivered", smtpResponse: "marked delivered by an operator" }
            : {
              status: "bounced", bounceType: "soft", bounceCode: "5.0.0",
              bounceReason: "marked not delivered by an operator", smtpResponse: "marked bounced by an operator",
            }
          const resolved = resolveRecipient(verdict, 1)
          yield* recordResolutions(message, [{ recipient, subject: message.content.subject, resolution: { ...resolved, suppression: null }, addAttempts: 0 }], at)
          return { message, recipient: { ...recipient, status: resolved.status } }
        }))
        if (resolution === "resend") {
          const queue = yield* Effect.serviceOption(JobQueue)
          if (Option.isSome(queue)) {
            yield* queue.value.enqueue(messageDeliveryJob, { accountId, messageId: updated.message.id }, { dedupeKey: updated.message.id })
          }
        }
        return { messageId: updated.message.id, recipient: updated.recipient }
      })

    return { listHeld, resolveHeld } as const
  }),
}) {}
