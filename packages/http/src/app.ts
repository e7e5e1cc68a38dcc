/** The router: /api/health, /admin (with an admin token) and /v1 behind API-key authentication and rate limits.
 *  Every failure, unknown routes included, is answered through errors.ts. */
import { RouteNotFound } from "@mailroom/core"
import { Effect } from "effect"
import { Hono } from "hono"
import { authenticate } from "./auth.js"
import { defaultBodyLimitBytes } from "./body.js"
import type { MailroomEnv } from "./env.js"
import { errorResponse, internalErrorResponse } from "./errors.js"
import { makeRateLimiters, rateLimit, type RateLimitOptions } from "./rate-limit.js"
import { adminRoutes } from "./routes/admin.js"
import { contactRoutes } from "./routes/contacts.js"
import { exportRoutes } from "./routes/export.js"
import { healthRoutes } from "./routes/health.js"
import { importRoutes } from "./routes/import.js"
import { listRoutes } from "./routes/lists.js"
import { suppressionRoutes } from "./routes/suppressions.js"
import { topicRoutes } from "./routes/topics.js"
import { type HttpRuntime, makeRunner } from "./run.js"

/** Route files under /v1: registering one is one line. `/contacts/{id}` refuses the fixed paths beside it (tags,
 *  bulk, export, import, lists), so the order of this list does not decide which route answers. */
const v1Routes: ReadonlyArray<Hono<MailroomEnv>> = [
  contactRoutes,
  exportRoutes,
  importRoutes,
  listRoutes,
  suppressionRoutes,
  topicRoutes,
]

export interface HttpAppOptions {
  /** Runs every route's effect; built by the `mailroom` facade from the chosen backend. */
  readonly runtime: HttpRuntime
  /** Enables /admin when set; requests must send it as `Authorization: Bearer <adminToken>`. */
  readonly adminToken?: string | undefined
  /** Whether mail is kept in the dev outbox (no SMTP relay); enables GET /admin/outbox. Default true. */
  readonly devOutbox?: boolean | undefined
  /** Largest JSON request body in bytes. Default 8 MiB. */
  readonly bodyLimitBytes?: number | undefined
  readonly rateLimits?: RateLimitOptions | undefined
}

export type HttpApp = Hono<MailroomEnv>

/** The peer address of the Node socket when @hono/node-server serves the app directly (it passes `{ incoming }`). */
const socketAddress = (env: unknown): string | null => {
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: unknown } } } | undefined)?.incoming
  const address = incoming?.socket?.remoteAddress
  return typeof address === "string" ? address : null
}

export const makeHttpApp = (options: HttpAppOptions): HttpApp => {
  const limiters = makeRateLimiters(options.rateLimits)
  const bodyLimitBytes = options.bodyLimitBytes ?? defaultBodyLimitBytes
  const app = new Hono<MailroomEnv>()

  app.use("*", async (c, next) => {
    const requestId = crypto.randomUUID()
    const runner = makeRunner(options.runtime, requestId, c.req.raw.signal)
    c.set("requestId", requestId)
    c.set("run", runner.run)
    c.set("runExit", runner.runExit)
    c.set("answerFailure", runner.answerFailure)
    c.set("bodyLimitBytes", bodyLimitBytes)
    c.set("limiters", limiters)
    c.set("clientAddress", socketAddress(c.env))
    // Set before the route answers, so that answers built with c.json carry it as they are made; adding a header to
    // a finished answer copies it (body stream included). Answers built elsewhere (the error table) get it after.
    c.header("x-request-id", requestId)
    await next()
    if (!c.res.headers.has("x-request-id")) c.header("x-request-id", requestId)
  })

  app.route("/", healthRoutes)
  if (options.adminToken !== undefined && options.adminToken !== "") {
    app.route("/admin", adminRoutes({ adminToken: options.adminToken, devOutbox: options.devOutbox ?? true }))
  }
  app.use("/v1/*", authenticate(), rateLimit("requests"))
  for (const routes of v1Routes) app.route("/v1", routes)

  app.notFound((c) => errorResponse(new RouteNotFound({ method: c.req.method, path: c.req.path })))
  // A handler threw instead of failing its effect: a bug, answered like any other defect.
  app.onError((error, c) =>
    c.get("run") === undefined ? internalErrorResponse("unknown") : c.get("run")(Effect.die(error)))
  return app
}
