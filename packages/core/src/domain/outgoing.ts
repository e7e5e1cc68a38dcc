/** The MIME message one recipient of a message receives: what the delivery job hands to the Mailer. Each recipient
 *  gets a submission of its own, so that a deferral retries only that recipient and marketing mail can carry that
 *  recipient's unsubscribe link. Spec: sending "Sending"; CONTRACT.md "Streams and links in mail"; RFC 8058. */
import { Either } from "effect"
import { ValidationFailed } from "../errors.js"
import type { MailAddress, OutgoingMessage } from "../ports/mailer.js"
import type { AcceptedMessage, EmailAddressInput } from "./message.js"
import type { RenderedInline } from "../ports/template-engine.js"

/** The links a marketing message carries for one recipient: made by the consent engine's Tokens service. */
export interface UnsubscribeLinks {
  /** `{TRACK_URL}/u/<token>`: the one-click URL of List-Unsubscribe and the value of {{unsubscribe_url}}. */
  readonly unsubscribeUrl: string
  /** The preference centre of the recipient, the value of {{preferences_url}}. */
  readonly preferencesUrl?: string | undefined
  /** The address of the mailto: entry of List-Unsubscribe (with an unsubscribe subject). */
  readonly mailto: string
}

export interface OutgoingInput {
  /** The stored message's id: the Message-ID is made from it and the recipient's position. */
  readonly messageId: string
  readonly message: AcceptedMessage
  /** The envelope recipient this submission goes to (one of message.envelope.recipients). */
  readonly recipient: string
  /** SMTP MAIL FROM: where bounces go. Apart from the From: header. */
  readonly envelopeFrom: string
  /** Domain part of the Message-ID; the From: address's domain when absent. */
  readonly messageIdDomain?: string | undefined
  /** Required for marketing mail; ignored for transactional mail, which carries no unsubscribe link. */
  readonly unsubscribe?: UnsubscribeLinks | undefined
  /** The content rendered for this recipient by the TemplateEngine (inline content or a release), with the
   *  recipient's pipeline values (`pipelineValues`): used as it is. */
  readonly rendered: RenderedInline
  /** Recipients the message no longer goes to (dropped at acceptance or at delivery: suppressed, opted out). They are
   *  left out of the To: and Cc: headers as they are out of the envelope. */
  readonly dropped?: ReadonlySet<string> | undefined
}

const address = (input: EmailAddressInput): MailAddress =>
  input.name === undefined ? { email: input.email } : { email: input.email, name: input.name }

const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1)

/** `<msg_…-3@example.com>`: unique per message and recipient, so that a bounce report naming it finds the recipient. */
export const recipientMessageId = (messageId: string, index: number, domain: string): string =>
  `<${messageId}-${index}@${domain}>`

/** The List-Unsubscribe header of RFC 2369 with the https link first (RFC 8058 one-click uses it). */
export const listUnsubscribeHeaders = (links: UnsubscribeLinks): Record<string, string> => ({
  "List-Unsubscribe": `<${links.unsubscribeUrl}>, <mailto:${links.mailto}?subject=unsubscribe>`,
  "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
})

/** The values the pipeline fills in a recipient's mail: {{unsubscribe_url}} and {{preferences_url}} in marketing mail
 *  (none in transactional mail). They win over variables of the same names. */
export const pipelineValues = (links: UnsubscribeLinks | undefined): Record<string, string> =>
  links === undefined
    ? {}
    : {
      unsubscribe_url: links.unsubscribeUrl,
      ...(links.preferencesUrl === undefined ? {} : { preferences_url: links.preferencesUrl }),
    }

/** Builds the submission for one recipient around its rendered content: headers, envelope, List-Unsubscribe in
 *  marketing mail. Fails for a recipient the message does not have, or marketing mail without its links. */
export const buildOutgoing = (input: OutgoingInput): Either.Either<OutgoingMessage, ValidationFailed> =>
  Either.gen(function* () {
    const { message } = input
    const index = message.envelope.recipients.findIndex((r) => r.email === input.recipient)
    if (index < 0) {
      return yield* Either.left(new ValidationFailed({ detail: `${input.recipient} is not a recipient of message ${input.messageId}` }))
    }
    if (message.stream === "marketing" && input.unsubscribe === undefined) {
      return yield* Either.left(new ValidationFailed({ detail: "marketing mail needs the recipient's unsubscribe links" }))
    }
    const links = message.stream === "marketing" ? input.unsubscribe : undefined
    const { rendered } = input
    const headerRecipients = (field: "to" | "cc") =>
      message.envelope.recipients.filter((r) => r.field === field && input.dropped?.has(r.email) !== true).map((r) => address(r))
    const to = headerRecipients("to")
    const cc = headerRecipients("cc")
    return {
      envelopeFrom: input.envelopeFrom,
      envelopeTo: [input.recipient],
      from: address(message.from),
      // A message with only Bcc recipients (or whose To recipients were all dropped) shows its sender as To, as mail
      // clients do, rather than no To: at all.
      to: to.length > 0 ? to : [address(message.from)],
      cc: cc.length > 0 ? cc : undefined,
      replyTo: message.replyTo === undefined ? undefined : address(message.replyTo),
      subject: rendered.subject,
      html: rendered.html,
      text: rendered.text,
      headers: links === undefined ? undefined : listUnsubscribeHeaders(links),
      attachments: message.attachments.length === 0
        ? undefined
        : message.attachments.map((a) => ({ filename: a.filename, contentBase64: a.content, contentType: a.contentType })),
      messageId: recipientMessageId(input.messageId, index, input.messageIdDomain ?? domainOf(message.from.email)),
    } satisfies OutgoingMessage
  })
