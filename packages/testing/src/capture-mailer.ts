/** A Mailer for service tests: keeps every message it is given and answers as it is told, per recipient. Hosts can use
 *  it in their own tests too. Real SMTP is tested against a sink in @mailroom/smtp. */
import { Mailer, type MailResult, type OutgoingMessage, type RecipientOutcome } from "@mailroom/core"
import { Effect, Layer } from "effect"

/** How the capture mailer answers one recipient; `accepted` with a 250 unless `answer` says otherwise. */
export type CaptureAnswer = (recipient: string, message: OutgoingMessage) => Omit<RecipientOutcome, "recipient">

export interface CaptureMailer {
  /** Every message sent, oldest first. */
  readonly sent: ReadonlyArray<OutgoingMessage & { readonly messageId: string }>
  /** Messages sent to this address (envelope recipients), oldest first. */
  readonly sentTo: (address: string) => ReadonlyArray<OutgoingMessage & { readonly messageId: string }>
  /** Changes how later recipients are answered. */
  readonly answerWith: (answer: CaptureAnswer) => void
  readonly clear: () => void
  /** The Mailer layer over this capture. */
  readonly layer: Layer.Layer<Mailer>
}

const accepted: CaptureAnswer = () => ({ status: "accepted", code: 250, reply: "250 2.0.0 OK: queued" })

export const makeCaptureMailer = (): CaptureMailer => {
  const sent: Array<OutgoingMessage & { readonly messageId: string }> = []
  let answer = accepted
  let counter = 0
  const send = (message: OutgoingMessage) =>
    Effect.sync((): MailResult => {
      const messageId = message.messageId ?? `<capture-${++counter}@mailroom.test>`
      sent.push({ ...message, messageId })
      return {
        messageId,
        recipients: message.envelopeTo.map((recipient) => ({ recipient, ...answer(recipient, message) })),
      }
    })
  return {
    sent,
    sentTo: (address) => sent.filter((message) =>
      message.envelopeTo.some((recipient) => recipient.toLowerCase() === address.toLowerCase())),
    answerWith: (next) => { answer = next },
    clear: () => { sent.length = 0 },
    layer: Layer.succeed(Mailer, Mailer.of({ send })),
  }
}
