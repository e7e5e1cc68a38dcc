/** SQLite: the daily purge of webhook attempts finds them through (endpoint_id, started_at), the index that the
 *  24-hour stats use already (every attempt has its endpoint: they go with it), so the index on started_at alone goes:
 *  every recorded attempt wrote it, a tenth of the cost of recording one, and only the purge read it. Postgres keeps
 *  it: it has no skip scan, so without it the purge would read the whole table, and there its writes did not show in
 *  the delivery benchmark. */
import type { Migration } from "./migration.js"

export const attemptsPurgeByEndpoint: Migration = {
  id: 12,
  name: "attempts_purge_by_endpoint",
  sqlite: [`DROP INDEX webhook_attempts_started`],
  pg: [],
}
