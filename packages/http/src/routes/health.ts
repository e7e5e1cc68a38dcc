/** GET /api/health (sending spec, "What the service does"): 200 while the database answers, 503 when it does not.
 *  Public: no API key, and nothing about the failure is revealed. */
import { Store } from "@mailroom/core"
import { Duration, Effect, Exit } from "effect"
import { Hono } from "hono"
import type { MailroomEnv } from "../env.js"

/** How long the database may take to answer before it counts as disconnected. */
export const healthTimeout = Duration.seconds(5)

const ping = Effect.flatMap(Store, (store) => store.ping).pipe(Effect.timeoutFail({
  duration: healthTimeout,
  onTimeout: () => new Error("the database did not answer in time"),
}))

export const healthRoutes = new Hono<MailroomEnv>()
  .get("/api/health", async (c) => {
    const exit = await c.get("runExit")(ping)
    const timestamp = new Date().toISOString()
    if (Exit.isSuccess(exit)) return c.json({ status: "ok", database: "connected", timestamp })
    await c.get("runExit")(Effect.logWarning("health check: the database did not answer", exit.cause))
    return c.json({ status: "error", database: "disconnected", timestamp }, 503)
  })
