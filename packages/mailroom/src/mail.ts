/** The Mailer a Mailroom sends through: the host's own, the SMTP relay of `smtpUrl`, or the dev outbox. */
import { Alerts, CanaryConfig, type Ids, type Mailbox, type Mailer, type MessageAuthenticator, notifyingAlerts, type Store } from "@mailroom/core"
import { DevOutboxMailer, devOutboxMailbox, ImapMailbox, MailauthAuthenticator, SmtpMailer } from "@mailroom/smtp"
import { Layer } from "effect"
import { webhookAlertNotifier } from "./alert-webhook.js"
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

/** The delivery canary's parts: its settings, the mailbox it reads (IMAP when `canary.imapUrl` is set, else the dev
 *  outbox while mail stays there, else none: its runs then fail saying so), mailauth over the configured DNS servers,
 *  and the alerts (logged, and handed to `alerts.notify` or POSTed to `alerts.webhook`). Throws ImapUrlError at once
 *  for an unusable imapUrl, AlertWebhookError for an unusable alert webhook. */
export const canaryLayer = (
  config: MailroomSettings,
  dnsServers: ReadonlyArray<string> | undefined,
): Layer.Layer<CanaryConfig | MessageAuthenticator, never, Store> => {
  const { imapUrl, ...options } = config.canary ?? {}
  // Mailbox and Alerts are references: a layer left empty keeps their defaults (no mailbox; alerts that only log).
  const mailbox: Layer.Layer<Mailbox, never, Store> | Layer.Layer<never> = imapUrl !== undefined
    ? ImapMailbox.layerFromUrl(imapUrl)
    : sendsToDevOutbox(config) ? devOutboxMailbox : Layer.empty
  return Layer.mergeAll(
    Layer.succeed(CanaryConfig, { ...options, enabled: config.cronToken !== undefined && config.cronToken !== "" }),
    mailbox,
    MailauthAuthenticator.layer({ servers: dnsServers, timeoutMs: config.dns?.timeoutMs }),
    config.alerts === undefined ? Layer.empty : Layer.succeed(Alerts, notifyingAlerts(
      "notify" in config.alerts ? config.alerts.notify : webhookAlertNotifier(config.alerts.webhook),
    )),
  )
}
