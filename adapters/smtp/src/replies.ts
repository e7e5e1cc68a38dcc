/** Reading SMTP replies into the Mailer port's per-recipient outcomes. */
import type { RecipientOutcome } from "@mailroom/core"

/** The reply code that opens a reply (`250`, `451`, `550`), if any. */
export const replyCode = (reply: string): number | undefined => {
  const match = /^(\d{3})(?:[ -]|$)/.exec(reply.trim())
  return match === null ? undefined : Number(match[1])
}

/** The enhanced status code (RFC 3463) after the reply code, as in `550 5.1.1 No such user`, if any. */
export const enhancedCode = (reply: string): string | undefined =>
  /^\d{3}[ -]([245]\.\d{1,3}\.\d{1,3})(?=\s|$)/.exec(reply.trim())?.[1]

/** What a reply means for one recipient: 2xx accepted, 4xx deferred, 5xx bounced. A reply without a usable code
 *  (which a conforming relay never sends where an answer is due) counts as deferred: nothing says it is permanent. */
export const outcomeOf = (recipient: string, reply: string): RecipientOutcome => {
  const code = replyCode(reply)
  const status = code === undefined ? "deferred" : code < 300 && code >= 200 ? "accepted" : code >= 500 ? "bounced" : "deferred"
  const enhanced = enhancedCode(reply)
  return {
    recipient,
    status,
    ...(code === undefined ? {} : { code }),
    ...(enhanced === undefined ? {} : { enhancedCode: enhanced }),
    reply,
  }
}

/** The recipient's message reached the relay, and the connection broke before the relay answered. */
export const unknownOutcome = (recipient: string, what: string): RecipientOutcome => ({
  recipient,
  status: "unknown",
  reply: `the connection broke after the message was sent and before the relay answered (${what})`,
})
