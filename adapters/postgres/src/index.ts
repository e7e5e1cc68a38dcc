// The public surface of @mailroom/postgres, listed by name.
export { MailroomPostgres } from "./postgres.js"
export type { MailroomPostgresOptions } from "./postgres.js"
export { PgBossJobQueue, makePgBossJobQueue } from "./job-queue.js"
export type { PgBossJobQueueOptions } from "./job-queue.js"
