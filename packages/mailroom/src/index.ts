// The public surface of mailroom, listed by name.
export { createMailroom } from "./create-mailroom.js"
export type { Mailroom, MailroomConfig, FetchOptions, TrustProxy } from "./create-mailroom.js"
export { defaultDatabase, parseDatabase } from "./config.js"
export type { MailroomSettings, DatabaseChoice } from "./config.js"
export type { AccountsApi } from "./accounts-api.js"
export type { ContactsApi, TagCount } from "./contacts-api.js"
export { SmtpMailer, DevOutboxMailer, parseSmtpUrl, redactUrl, SmtpUrlError } from "@mailroom/smtp"
export type { SmtpOptions } from "@mailroom/smtp"
