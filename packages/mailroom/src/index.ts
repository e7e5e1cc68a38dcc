// The public surface of mailroom, listed by name.
export { createMailroom } from "./create-mailroom.js"
export type { Mailroom } from "./create-mailroom.js"
export { defaultDatabase, parseDatabase } from "./config.js"
export type { MailroomConfig, DatabaseChoice } from "./config.js"
export type { FetchOptions, TrustProxy } from "@mailroom/http"
export type { AccountsApi } from "./accounts-api.js"
export type { ContactsApi, TagCount } from "./contacts-api.js"
