/** GET /api/health (sending spec, "What the service does"): 200 while the database answers, 503 when it does not.
 *  Public: no API key, and nothing about the failure is revealed. */
import { Store } from "@mailroom/core"
import { Clock, Duration, Effect, Exit } from "effect"
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
    // The time of the answer is read from Mailroom's Clock once the ping has answered (or timed out); from Effect's
    // default Clock when the runtime itself could not start (its database unreachable at boot).
    const exit = await c.get("runExit")(Effect.zip(Effect.exit(ping), Clock.currentTimeMillis))
    const [pinged, now]: readonly [Exit.Exit<unknown, unknown>, number] = Exit.isSuccess(exit)
      ? exit.value
      : [exit, Effect.runSync(Clock.currentTimeMillis)]
    const timestamp = new Date(now).toISOString()
    if (Exit.isSuccess(pinged)) return c.json({ status: "ok", database: "connected", timestamp })
    await c.get("runExit")(Effect.logWarning("health check: the database did not answer", pinged.cause))
    return c.json({ status: "error", database: "disconnected", timestamp }, 503)
  })
