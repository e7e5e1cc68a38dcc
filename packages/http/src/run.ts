/** Running route effects on Mailroom's ManagedRuntime, and answering their failures: domain errors through the error
 *  table, everything else (StoreError, defects, a runtime that failed to start) logged with the request id and
 *  answered 500 without detail. Every run decodes the route's path parameters first. */
import { StoreError, unstorableText, type ValidationFailed } from "@mailroom/core"
import { Cause, Effect, Exit, FiberRef, HashMap, type ManagedRuntime, Option } from "effect"
import type { AnswerFailure, HttpServices, Run, RunExit } from "./env.js"
import { errorResponse, internalErrorResponse, isDomainError } from "./errors.js"

/** The runtime the facade builds. Its error is whatever building the backend can fail with. */
export type HttpRuntime = ManagedRuntime.ManagedRuntime<HttpServices, unknown>

export interface Runner {
  readonly run: Run
  readonly runExit: RunExit
  readonly answerFailure: AnswerFailure
}

/** What the operator needs beyond the cause's trace: the failed storage operation and the driver's own error. */
const storeDetails = (cause: Cause.Cause<unknown>): Record<string, string> => {
  const failure = Cause.failureOption(cause)
  if (Option.isNone(failure) || !(failure.value instanceof StoreError)) return {}
  const inner = failure.value.cause
  return { operation: failure.value.operation, storeCause: inner instanceof Error ? inner.stack ?? inner.message : String(inner) }
}

const logInternal = (runtime: HttpRuntime, requestId: string, cause: Cause.Cause<unknown>): Promise<void> =>
  runtime.runPromise(
    Effect.logError("request failed with an internal error", cause).pipe(
      Effect.annotateLogs({ requestId, ...storeDetails(cause) }),
    ),
  ).catch(() => {
    // The runtime itself could not start, so its logger is unavailable.
    console.error(`[mailroom] request ${requestId} failed:`, Cause.pretty(cause))
  })

/** The path parameters of a route, decoded as every input is (core's unstorableText): one holding text that cannot be
 *  stored as sent, a NUL from `%00` above all, fails with VALIDATION_ERROR naming the parameter, so that no service or
 *  backend sees it and every backend answers alike (Postgres text cannot hold a NUL). */
export const decodePathParams = (params: Readonly<Record<string, string>>): Effect.Effect<void, ValidationFailed> => {
  const refused = unstorableText(params)
  return refused === undefined ? Effect.void : Effect.fail(refused)
}

/** The runner of one request. `signal` interrupts the running effect when the client goes away. `pathParams` answers
 *  the parameters of the route that runs an effect: each run decodes them first (decodePathParams), so that every
 *  route gets the same answer without reading them itself. */
export const makeRunner = (
  runtime: HttpRuntime,
  requestId: string,
  signal: AbortSignal | undefined,
  pathParams: () => Readonly<Record<string, string>>,
): Runner => {
  // Every log line of the request carries its id. Each run is a fiber of its own, so the annotation is set on that
  // fiber rather than scoped with Effect.annotateLogs, which also restores it afterwards at several µs per run.
  // A failed run is answered here: a client error (4xx) is not logged at all, a server fault once by answerFailure.
  // Without this, the runtime would also log each failure as "Fiber terminated with an unhandled error", with a trace.
  const annotate = Effect.zipRight(
    FiberRef.set(FiberRef.unhandledErrorLogLevel, Option.none()),
    FiberRef.update(FiberRef.currentLogAnnotations, HashMap.set<string, unknown>("requestId", requestId)),
  )
  const runExit: RunExit = (effect) =>
    runtime.runPromiseExit(
      Effect.zipRight(annotate, Effect.zipRight(decodePathParams(pathParams()), effect)),
      signal ? { signal } : undefined,
    )

  const answerFailure: AnswerFailure = async (cause, options = {}) => {
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure) && isDomainError(failure.value)) return errorResponse(failure.value, options.shape)
    // An interrupted request means the client left: nobody reads the answer and nothing went wrong on our side.
    if (!Cause.isInterruptedOnly(cause)) await logInternal(runtime, requestId, cause)
    return internalErrorResponse(requestId, options.shape)
  }

  const run: Run = async (effect, options) => {
    const exit = await runExit(effect)
    return Exit.isSuccess(exit) ? exit.value : answerFailure(exit.cause, options)
  }

  return { run, runExit, answerFailure }
}
