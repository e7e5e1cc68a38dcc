/** The Mailer a Mailroom sends through: the host's own, the SMTP relay of `smtpUrl`, or the dev outbox. */
import type { Ids, Mailer, Store } from "@mailroom/core"
import { DevOutboxMailer, SmtpMailer } from "@mailroom/smtp"
import type { Layer } from "effect"
import type { MailroomSettings } from "./config.js"

/** Whether mail stays in the dev outbox: neither a relay nor the host's own Mailer is configured. */
export const sendsToDevOutbox = (config: MailroomSettings): boolean =>
  config.mailer === undefined && config.smtpUrl === undefined

/** The configured Mailer. Throws at once for a `smtpUrl` that cannot be used (SmtpUrlError, without the password), or
 *  when both `smtpUrl` and `mailer` are given. */
export const mailerLayer = (config: MailroomSettings): Layer.Layer<Mailer, unknown, Store | Ids> => {
  if (config.mailer !== undefined && config.smtpUrl !== undefined) {
    throw new Error("createMailroom takes smtpUrl or mailer, not both")
  }
  if (config.mailer !== undefined) return config.mailer
  if (config.smtpUrl !== undefined) return SmtpMailer.layerFromUrl(config.smtpUrl)
  return DevOutboxMailer.layer
}
