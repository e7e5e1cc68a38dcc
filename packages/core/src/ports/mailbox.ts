/** The Mailbox port: where the delivery canary reads its message back. Engines: the dev outbox (development, no relay)
 *  and an IMAP mailbox (@mailroom/smtp's ImapMailbox, over imapflow). docs/canary.md. */
import { Context, Effect, type Option, Schema } from "effect"

/** A message found in the mailbox, as the receiving server stored it (its Received headers included). */
export interface ReceivedMessage {
  readonly raw: string
}

/** The mailbox could not be read: connection, login, or a mailbox that does not exist. */
export class MailboxError extends Schema.TaggedError<MailboxError>()("MailboxError", {
  detail: Schema.String,
  cause: Schema.optional(Schema.Defect),
}) {
  override get message() { return this.detail }
}

export interface MailboxService {
  /** The message with the header `X-Mailroom-Canary: <token>` addressed to `address`, if it has arrived. A message
   *  found is removed from the mailbox where the engine can, so that the mailbox does not fill up. */
  readonly take: (address: string, token: string) => Effect.Effect<Option.Option<ReceivedMessage>, MailboxError>
}

/** Until a host provides one, reading fails saying so: the canary's run then fails with that reason. */
export class Mailbox extends Context.Reference<Mailbox>()("@mailroom/core/Mailbox", {
  defaultValue: (): MailboxService => ({
    take: () => Effect.fail(new MailboxError({ detail: "no canary mailbox is configured: set CANARY_IMAP_URL (createMailroom's canary.imapUrl)" })),
  }),
}) {}

/** Reads SPF, DKIM and DMARC results of a received message, as a receiver would (mailauth in @mailroom/smtp). */
export interface MessageAuthenticatorService {
  readonly authenticate: (raw: string) => Effect.Effect<{ readonly spf: string; readonly dkim: string; readonly dmarc: string }>
}

/** Until a host provides one, every result is `none`. */
export class MessageAuthenticator extends Context.Reference<MessageAuthenticator>()("@mailroom/core/MessageAuthenticator", {
  defaultValue: (): MessageAuthenticatorService => ({ authenticate: () => Effect.succeed({ spf: "none", dkim: "none", dmarc: "none" }) }),
}) {}
