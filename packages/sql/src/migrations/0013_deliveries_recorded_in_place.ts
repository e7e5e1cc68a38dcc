/** Postgres: recording an attempt, the write every delivery makes, costs the server less. Measured with
 *  pg_stat_statements in the delivery benchmark, the record statement (attempts inserted, their deliveries moved) took
 *  about half of the server's statement time, eleven WAL records per attempt:
 *  - Deliveries leave room on their pages (fillfactor 50), so that the update that records a delivery's attempt stays
 *    on its page (a HOT update): the new row version needs no entries in the table's three indexes. Every delivery is
 *    updated at least once (its first attempt), and on full pages none of those updates were HOT. The table takes up to
 *    twice the space on disk.
 *  - Attempts no longer reference their delivery by foreign key: the check locked the delivery row for every attempt (a
 *    WAL record of its own) while the same statement updates that row. Nothing needed it: an attempt is only written
 *    with its delivery's update, and deliveries are deleted only with their endpoint, whose key on attempts deletes the
 *    attempts too (ON DELETE CASCADE).
 *  - The index on attempts' start time goes, as on SQLite (migration 12): the daily purge goes endpoint by endpoint
 *    through (endpoint_id, started_at).
 *  The record statement's server time fell from about 68 to 28 ms per 1,000 deliveries, its WAL records from eleven
 *  per attempt to five. SQLite keeps its schema: its checks run in process, with no round trip or WAL record of
 *  their own. */
import type { Migration } from "./migration.js"

export const deliveriesRecordedInPlace: Migration = {
  id: 13,
  name: "deliveries_recorded_in_place",
  sqlite: [],
  pg: [
    `ALTER TABLE webhook_deliveries SET (fillfactor = 50)`,
    `ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_delivery_id_fkey`,
    `DROP INDEX webhook_attempts_started`,
  ],
}
