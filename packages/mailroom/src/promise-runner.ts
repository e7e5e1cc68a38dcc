/** Runs service effects for Promise callers: a domain failure rejects with the tagged error itself (with its `code`
 *  and `_tag`), so that hosts can branch on it without Effect. */
import type { HttpRuntime, HttpServices } from "@mailroom/http"
import { Cause, type Effect, Exit } from "effect"

export type RunPromise = <A, E>(effect: Effect.Effect<A, E, HttpServices>) => Promise<A>

export const makeRunPromise = (runtime: HttpRuntime): RunPromise => async (effect) => {
  const exit = await runtime.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  throw Cause.squash(exit.cause)
}
