/** The one log line of each request: method, route pattern, status, duration, request id and account id. The route
 *  is the pattern that matched (`/v1/contacts/{id}`), never the path itself, so that no address, token or id a path
 *  carries reaches the log; the query string is never logged. */
import type { Account } from "@mailroom/core"
import { Effect, FiberRef, FiberRefs, LogLevel, Runtime } from "effect"
import type { RouterRoute } from "hono/types"
import type { HttpRuntime } from "./run.js"

/** A Hono pattern as OpenAPI writes it: `:id{regex}` and `:id` become `{id}`. */
export const patternOf = (honoPath: string): string => honoPath.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}")

/** The pattern of the route that matched the request: the last handler registered for its method (middleware is
 *  registered as ALL), or `unmatched` when none did (a 404 of an unknown path). */
export const routeOf = (matched: ReadonlyArray<RouterRoute>): string => {
  const routes = matched.filter((route) => route.method !== "ALL")
  const last = routes[routes.length - 1]
  return last === undefined ? "unmatched" : patternOf(last.path)
}

/** Health checks are polled every few seconds by load balancers: their lines are kept for debug. */
const quietRoutes: ReadonlySet<string> = new Set(["/api/health"])

export interface RequestFacts {
  readonly method: string
  /** The routes that matched, as Hono's matchedRoutes answers them. */
  readonly matched: ReadonlyArray<RouterRoute>
  readonly status: number
  readonly requestId: string
  readonly account: Account | undefined
  /** performance.now() when the request came in. */
  readonly startedAt: number
}

/** Each runtime once built: its minimum log level (Logger.minimumLogLevel sets it in its FiberRefs) and a synchronous
 *  runner. A request's line below the level is dropped here, as the runtime would drop it, without running a fiber;
 *  one at or above it is written by a fiber run synchronously on the built runtime, without a Promise or a scheduled
 *  step (a log line needs neither). Until the runtime is built, lines go through runPromise, which waits for it. */
interface BuiltLog {
  readonly minimum: LogLevel.LogLevel
  readonly runSync: (effect: Effect.Effect<void>) => void
}

const builtLogs = new WeakMap<HttpRuntime, BuiltLog>()

const builtLogOf = (runtime: HttpRuntime): BuiltLog | undefined => {
  const known = builtLogs.get(runtime)
  if (known === undefined) {
    runtime.runtime().then(
      (built) => builtLogs.set(runtime, {
        minimum: FiberRefs.getOrDefault(built.fiberRefs, FiberRef.currentMinimumLogLevel),
        runSync: Runtime.runSync(built),
      }),
      () => undefined,
    )
  }
  return known
}

export const logRequest = (runtime: HttpRuntime, request: RequestFacts): void => {
  const built = builtLogOf(runtime)
  const route = routeOf(request.matched)
  const level = quietRoutes.has(route) ? LogLevel.Debug : LogLevel.Info
  if (built !== undefined && LogLevel.greaterThan(built.minimum, level)) return
  const line = Effect.logWithLevel(level, "request").pipe(Effect.annotateLogs({
    method: request.method,
    route,
    status: request.status,
    durationMs: Math.round((performance.now() - request.startedAt) * 10) / 10,
    requestId: request.requestId,
    accountId: request.account?.id ?? null,
  }))
  // Not awaited: the answer does not wait for its log line. A runtime that failed to start has no logger to write to;
  // a logger that throws loses its line, never the answer.
  if (built === undefined) runtime.runPromise(line).catch(() => undefined)
  else {
    try {
      built.runSync(line)
    } catch {
      // The line is lost; the request was answered.
    }
  }
}
