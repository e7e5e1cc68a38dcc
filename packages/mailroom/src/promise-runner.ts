/** Runs service effects for Promise callers: a domain failure rejects with the tagged error itself (with its `code`
 *  and `_tag`), so that hosts can branch on it without Effect. */
import type { Ids, Mailer, MailroomServices, Store, TemplateEngine } from "@mailroom/core"
import { Cause, type Effect, Exit, type ManagedRuntime } from "effect"

/** What the services need: every service, the Store, Ids, the Mailer and the TemplateEngine (sends by template). */
export type ServiceContext = MailroomServices | Store | Ids | Mailer | TemplateEngine

export type ServiceRuntime = ManagedRuntime.ManagedRuntime<ServiceContext, unknown>

export type RunPromise = <A, E>(effect: Effect.Effect<A, E, ServiceContext>) => Promise<A>

export const makeRunPromise = (runtime: ServiceRuntime): RunPromise => async (effect) => {
  const exit = await runtime.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  throw Cause.squash(exit.cause)
}
