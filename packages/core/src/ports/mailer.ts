/** The Mailer port: submits one message to a relay (or the dev outbox) and reports, per recipient, what the receiving
 *  server answered. Engines: SMTP over nodemailer (@mailroom/smtp) and the dev outbox. */
import { Context, type Effect, Schema } from "effect"

export interface MailAddress {
  readonly email: string
  /** Display name, when there is one. */
  readonly name?: string | undefined
}

export interface MailAttachment {
  readonly filename: string
  /** The bytes, base64-encoded. */
  readonly contentBase64: string
  readonly contentType: string
}

/** A DKIM key to sign this message with (the domains work picks it from the sender's verified domain). */
export interface DkimKey {
  readonly domainName: string
  readonly keySelector: string
  /** PEM-encoded private key. */
  readonly privateKey: string
}

export interface OutgoingMessage {
  /** SMTP envelope sender (MAIL FROM, later the Return-Path): where bounces go. Independent of the From: header. */
  readonly envelopeFrom: string
  /** SMTP envelope recipients (RCPT TO): every address the message goes to, Bcc included. */
  readonly envelopeTo: ReadonlyArray<string>
  /** The From: header. */
  readonly from: MailAddress
  /** The To: and Cc: headers. Bcc is only in the envelope. */
  readonly to: ReadonlyArray<MailAddress>
  readonly cc?: ReadonlyArray<MailAddress> | undefined
  readonly replyTo?: MailAddress | undefined
  readonly subject: string
  readonly html?: string | undefined
  readonly text?: string | undefined
  /** Extra headers (List-Unsubscribe, …), by name. */
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly attachments?: ReadonlyArray<MailAttachment> | undefined
  /** The Message-ID to use, `<id@domain>`; the mailer makes one when absent. */
  readonly messageId?: string | undefined
  readonly dkim?: DkimKey | undefined
}

/** What happened to one envelope recipient.
 *  - accepted: the server answered 2xx to RCPT TO and to the end of DATA;
 *  - deferred: a 4xx (at RCPT TO or at the end of DATA): try again later;
 *  - bounced: a 5xx: permanent;
 *  - unknown: the connection broke after the message was sent and before the server's answer: the message may or may
 *    not have been accepted, and re-sending it could deliver it twice. */
export interface RecipientOutcome {
  readonly recipient: string
  readonly status: "accepted" | "deferred" | "bounced" | "unknown"
  /** The SMTP reply code (250, 451, 550, …) when the server answered. */
  readonly code?: number | undefined
  /** The enhanced status code (RFC 3463: 5.1.1, …) when the reply carried one. */
  readonly enhancedCode?: string | undefined
  /** The server's reply text, or what went wrong when it did not answer. */
  readonly reply: string
}

export interface MailResult {
  /** The Message-ID the message was sent with. */
  readonly messageId: string
  /** One outcome per envelope recipient, in envelope order. */
  readonly recipients: ReadonlyArray<RecipientOutcome>
}

/** Nothing was submitted: the relay could not be reached, refused the connection, the login or the sender, or the
 *  message could not be built. Safe to retry: no recipient can have received it. */
export class MailerError extends Schema.TaggedError<MailerError>()("MailerError", {
  detail: Schema.String,
  cause: Schema.Defect,
}) {}

export class Mailer extends Context.Tag("@mailroom/core/Mailer")<Mailer, {
  readonly send: (message: OutgoingMessage) => Effect.Effect<MailResult, MailerError>
}>() {}
