// The public surface of @mailroom/smtp, listed by name.
export { SmtpMailer, makeSmtpMailer } from "./smtp-mailer.js"
export { DevOutboxMailer, makeDevOutboxMailer, devOutboxReply } from "./dev-outbox-mailer.js"
export { parseSmtpUrl, redactUrl, SmtpUrlError } from "./smtp-options.js"
export type { SmtpOptions } from "./smtp-options.js"
export { composeMessage, readHeaders } from "./compose.js"
export type { ComposedMessage } from "./compose.js"
