/** The one log line of each delivery outcome: the message, the recipient's domain (never the address), what became of
 *  the recipient and the relay's reply with any address in it masked. Written after the outcomes are committed. */
import { Effect } from "effect"
import { recipientDomain, redactLogText } from "../domain/redact.js"

export interface DeliveryLine {
  readonly messageId: string
  readonly recipient: string
  /** delivered, deferred, bounced, held, dropped, or not-sent (to be submitted again). */
  readonly outcome: string
  readonly reply: string | null
}

export const logDeliveries = (lines: ReadonlyArray<DeliveryLine>): Effect.Effect<void> =>
  Effect.forEach(lines, (line) =>
    Effect.logInfo("delivery").pipe(Effect.annotateLogs({
      messageId: line.messageId,
      recipientDomain: recipientDomain(line.recipient),
      outcome: line.outcome,
      reply: line.reply === null ? null : redactLogText(line.reply),
    })), { discard: true })
