/** `@mailroom/core/internal`: helpers that Mailroom's own backends (@mailroom/sql, @mailroom/memory,
 *  @mailroom/postgres) share with core, kept out of the public surface (`@mailroom/core`). They are not part of the API
 *  a host uses, and may change in any release. */
export { makeClaimWakeup, makeKeyedWakeSignals, makeKindWakeSignals } from "./internal/wake-signal.js"
export type { WakeSignal } from "./internal/wake-signal.js"
export { makeRecentCache } from "./internal/recent-cache.js"
