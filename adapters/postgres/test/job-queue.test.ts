/** The pg-boss JobQueue against the shared contract, in a scratch database. Several processes sharing the work, and a
 *  worker killed mid-run, are tested with real processes in job-queue-processes.test.ts. */
import { findTestPostgres, jobQueueSuite, jobQueueWakeSuite } from "@mailroom/testing"
import { Effect, Layer } from "effect"
import { describe } from "vitest"
import { PgBossJobQueue } from "../src/index.js"
import { scratchDatabase } from "./scratch-database.js"

const url = await findTestPostgres()

describe.skipIf(url === undefined)("postgres", () => {
  jobQueueSuite("pg-boss", Layer.unwrapScoped(Effect.map(scratchDatabase(url!), (database) =>
    PgBossJobQueue.layer({ url: database, shutdownGrace: "1 second", pollInterval: "200 millis", maintenanceInterval: "1 second", expiryMargin: "1 second" }))))
  // Idle workers poll once an hour here: whatever runs sooner was woken.
  jobQueueWakeSuite("pg-boss", () => Layer.unwrapScoped(Effect.map(scratchDatabase(url!), (database) =>
    PgBossJobQueue.layer({ url: database, shutdownGrace: "1 second", pollInterval: "1 hour" }))))
})
