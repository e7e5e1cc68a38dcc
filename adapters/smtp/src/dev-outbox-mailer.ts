/** The Mailer of development (CONTRACT.md, "Mail in development"): with no SMTP relay configured, every message is
 *  built exactly as it would be sent, kept in the Store's dev outbox, and counts as delivered to every recipient. */
import { Ids, Mailer, MailerError, type MailResult, type OutgoingMessage, Store } from "@mailroom/core"
import { Clock, Effect, Layer } from "effect"
import { composeMessage, readHeaders } from "./compose.js"

/** The reply every recipient of a kept message gets. */
export const devOutboxReply = "250 2.0.0 Kept in the dev outbox"

export const makeDevOutboxMailer = Effect.gen(function* () {
  const store = yield* Store
  const ids = yield* Ids

  const send = (message: OutgoingMessage) =>
    Effect.gen(function* () {
      const createdAt = new Date(yield* Clock.currentTimeMillis)
      const composed = yield* composeMessage(message, createdAt)
      yield* store.devOutbox.insert({
        id: ids.make("outboxMessage", createdAt),
        from: message.from.email,
        to: [...message.envelopeTo],
        subject: message.subject,
        html: message.html ?? null,
        text: message.text ?? null,
        headers: readHeaders(composed.raw),
        raw: composed.raw.toString("utf8"),
        createdAt,
      }).pipe(Effect.mapError((cause) => new MailerError({ detail: "the dev outbox could not keep the message", cause })))
      return {
        messageId: composed.messageId,
        recipients: message.envelopeTo.map((recipient) => ({
          recipient, status: "accepted" as const, code: 250, enhancedCode: "2.0.0", reply: devOutboxReply,
        })),
      } satisfies MailResult
    })

  return Mailer.of({ send })
})

export const DevOutboxMailer = {
  /** The dev outbox over the Store and Ids in context. */
  layer: Layer.effect(Mailer, makeDevOutboxMailer) satisfies Layer.Layer<Mailer, never, Store | Ids>,
} as const
