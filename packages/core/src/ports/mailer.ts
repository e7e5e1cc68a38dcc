/** The Mailer port: sends one MIME message and reports what the receiving server answered. */
import { Context, type Effect, Schema } from "effect"

export interface OutgoingMessage {
  readonly from: string
  readonly to: ReadonlyArray<string>
  readonly cc?: ReadonlyArray<string>
  readonly bcc?: ReadonlyArray<string>
  readonly replyTo?: string
  readonly subject: string
  readonly html?: string
  readonly text?: string
  readonly headers?: Readonly<Record<string, string>>
}

/** accepted: 2xx; deferred: 4xx (retry later); bounced: 5xx (permanent). `reply` is the server's text. */
export interface MailResult {
  readonly status: "accepted" | "deferred" | "bounced"
  readonly reply: string
}

/** The relay could not be reached or the connection broke before a reply. */
export class MailerError extends Schema.TaggedError<MailerError>()("MailerError", {
  detail: Schema.String,
  cause: Schema.Defect,
}) {}

export class Mailer extends Context.Tag("@mailroom/core/Mailer")<Mailer, {
  readonly send: (message: OutgoingMessage) => Effect.Effect<MailResult, MailerError>
}>() {}
