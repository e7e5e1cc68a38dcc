/** Counts the queries the pg driver is asked to send (each a round trip to the server), for as long as the scope is
 *  open: tests that a Postgres statement path takes as many round trips as it should. */
import { Effect } from "effect"
import pg from "pg"

/** Starts counting; answers how many queries were sent since. The driver is restored when the scope closes. */
export const countSentQueries = Effect.gen(function* () {
  let sent = 0
  const prototype = pg.Client.prototype as unknown as { query: (this: pg.Client, ...args: Array<unknown>) => unknown }
  const { query } = prototype
  yield* Effect.acquireRelease(
    Effect.sync(() => {
      prototype.query = function (...args) {
        sent += 1
        return query.apply(this, args)
      }
    }),
    () => Effect.sync(() => { prototype.query = query }),
  )
  return () => sent
})
