// The public surface of @mailroom/sql, listed by name.
export { SqlStore, makeSqlStore } from "./store.js"
export { applyMigrations, migrate, migrationsLayer } from "./migrate.js"
export { migrations } from "./migrations/index.js"
export type { Migration } from "./migrations/index.js"
export { SqlJobQueue, makeSqlJobQueue } from "./job-queue.js"
export type { SqlJobQueueOptions } from "./job-queue.js"
