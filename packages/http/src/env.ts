/** The Hono environment every Mailroom route shares: the request's runner, its caller and its limits. */
import type {
  Account, ApiKey, ImageProcessor, Ids, Mailer, MailroomError, MailroomServices, Store, TemplateApplication, TemplateEngine,
} from "@mailroom/core"
import type { Cause, Effect, Exit } from "effect"
import type { ErrorShape } from "./errors.js"
import type { RateLimiters } from "./rate-limit.js"

/** What the runtime behind the router provides: every service, the Store, Ids, the Mailer (SMTP or the dev
 *  outbox, as the host configured it) and the TemplateEngine. */
export type HttpServices = MailroomServices | Store | Ids | Mailer | TemplateEngine | ImageProcessor

export interface RunOptions {
  /** The body shape of error answers: the standard envelope (default) or `{ error }` (CSV import). */
  readonly shape?: ErrorShape
}

/** Runs a route's effect on Mailroom's runtime; every failure is answered through `errors.ts`. */
export type Run = <E extends MailroomError>(
  effect: Effect.Effect<Response, E, HttpServices>,
  options?: RunOptions,
) => Promise<Response>

/** Runs an effect and hands back its Exit, for the rare route that answers failures itself (health). */
export type RunExit = <A, E>(effect: Effect.Effect<A, E, HttpServices>) => Promise<Exit.Exit<A, unknown>>

/** Answers a failed run: a domain error through the error table, anything else logged and answered 500. */
export type AnswerFailure = (cause: Cause.Cause<unknown>, options?: RunOptions) => Promise<Response>

/** Routes and middleware read these with `c.get("x")` rather than `c.var.x`: `c.var` builds an object of all of them
 *  on each read. */
export interface MailroomEnv {
  Variables: {
    readonly requestId: string
    readonly run: Run
    readonly runExit: RunExit
    readonly answerFailure: AnswerFailure
    /** Largest JSON body accepted, in bytes. */
    readonly bodyLimitBytes: number
    readonly limiters: RateLimiters
    /** The client's IP address as far as it can be known (consent evidence, per-address limits); null when the
     *  transport does not tell it. */
    readonly clientAddress: string | null
    /** The connection came from a proxy the host trusts (trustProxy): headers it adds are believed. */
    readonly trustedProxy: boolean
    /** Set by the API-key middleware on /v1 routes. */
    readonly account: Account
    readonly apiKey: ApiKey
    /** Set when the caller is an application credential (svc_app_, template API only): its application and allowed
     *  senders. Unset for API keys. */
    readonly application: TemplateApplication
  }
}
