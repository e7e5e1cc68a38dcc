// The public surface of @mailroom/sqlite, listed by name.
export { MailroomSqlite } from "./sqlite.js"
export type { MailroomSqliteOptions } from "./sqlite.js"
