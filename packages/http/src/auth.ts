/** API-key authentication and scopes. Spec: audience "Authentication" (scope table, 401 and 403) and sending
 *  "Authentication" (codes UNAUTHORIZED and INVALID_CREDENTIALS). The one credential is `Authorization: Bearer <key>`;
 *  query strings, cookies, Proxy-Authorization and bodies are never read for one. */
import {
  Accounts, credentialKind, hasScope, InvalidCredentials, type Scope, ScopeInsufficient, Unauthorized,
} from "@mailroom/core"
import { type Clock, Effect, Exit } from "effect"
import type { Context } from "hono"
import { createMiddleware } from "hono/factory"
import type { MailroomEnv } from "./env.js"
import { errorResponse } from "./errors.js"
import { authenticationGate } from "./rate-limit.js"

/** What an Authorization header holds. */
export type Credential =
  | { readonly kind: "none" }
  | { readonly kind: "malformed" }
  | { readonly kind: "bearer"; readonly token: string }

/** `Bearer`, in any case, then one or more spaces, then a token without whitespace, and nothing after it. */
const bearerPattern = /^bearer +(\S+)$/i
/** `Bearer` with nothing after it: no credential at all. */
const emptyBearerPattern = /^bearer *$/i

/** The credential of an Authorization header: `none` when no header (or an empty `Bearer`) was sent, `bearer` for
 *  `Bearer <token>`, and `malformed` for anything else: a bare key, another scheme (Basic, Token), junk after the
 *  token or a space inside it. */
export const credentialOf = (header: string | undefined): Credential => {
  if (header === undefined) return { kind: "none" }
  // Header values reach here without their surrounding whitespace (the Fetch API trims them).
  const value = header.trim()
  if (value === "" || emptyBearerPattern.test(value)) return { kind: "none" }
  const match = bearerPattern.exec(value)
  return match === null ? { kind: "malformed" } : { kind: "bearer", token: match[1]! }
}

/** The refusal of a credential that is not `Bearer <token>`, in the words of the credential asked for. */
export const refusalOf = (credential: Exclude<Credential, { kind: "bearer" }>, what: "API_KEY" | "ADMIN_TOKEN") =>
  credential.kind === "none"
    ? new Unauthorized({ detail: `missing ${what === "API_KEY" ? "API key" : "admin token"}: send Authorization: Bearer <${what}>` })
    : new InvalidCredentials({ detail: `the Authorization header is malformed: send Authorization: Bearer <${what}>` })

/** Runs `check` as one authentication attempt of the request's client: 429 when the client's address has used up its
 *  failed authentications, before anything is looked up; the attempt counts as failed when `check` answers 401. */
export const guardAttempt = async (
  c: Context<MailroomEnv>,
  check: () => Promise<Response | true>,
): Promise<Response | true> => {
  try {
    const gate = await authenticationGate(c.get("limiters"), c.get("clientAddress"))
    if (gate.exceeded !== undefined) return errorResponse(gate.exceeded)
    const outcome = await check()
    // Only a refused credential counts: a lookup that failed on the database's side (500) says nothing of the client.
    if (outcome !== true && outcome.status === 401) await gate.failed()
    return outcome
  } catch (cause) {
    // The limiter's store failed (a check's own failures are answers, never thrown).
    return c.get("run")(Effect.die(cause))
  }
}

/** Middleware that resolves the API key to its account and key (`c.get("account")`, `c.get("apiKey")`); 401 when
 *  missing, malformed, unknown or revoked, 429 when the client's address has failed too often. A key that
 *  authenticated recently is answered from the Accounts service's cache without touching the limiter or the runtime;
 *  every other attempt first checks the address's failed authentications, and a key that cannot be one Mailroom
 *  issued (prefix, length, alphabet) is refused by Accounts.authenticate without a lookup. */
export const authenticate = () => {
  /** The Accounts service and the Clock of the runtime, from the first lookup on: the cache is read against the same
   *  clock that stamped its entries (Effect's Clock, a TestClock under test), read synchronously. */
  let known: { readonly accounts: Accounts; readonly clock: Clock.Clock } | undefined
  return createMiddleware<MailroomEnv>(async (c, next) => {
    const credential = credentialOf(c.req.header("authorization"))
    const cached = credential.kind === "bearer" && known !== undefined
      ? known.accounts.cachedAuthentication(credential.token, known.clock.unsafeCurrentTimeMillis())
      : undefined
    if (cached !== undefined) {
      c.set("account", cached.account)
      c.set("apiKey", cached.apiKey)
      return next()
    }
    const outcome = await guardAttempt(c, async () => {
      if (credential.kind !== "bearer") return errorResponse(refusalOf(credential, "API_KEY"))
      if (credentialKind(credential.token) === "app" && isTemplateApi(c.req.path)) {
        const exit = await c.get("runExit")(Effect.flatMap(Accounts, (accounts) => accounts.authenticateApplication(credential.token)))
        if (Exit.isFailure(exit)) return c.get("answerFailure")(exit.cause)
        c.set("account", exit.value.account)
        c.set("apiKey", exit.value.apiKey)
        c.set("application", exit.value.application)
        return true
      }
      // Accounts.authenticate refuses a token that is no key Mailroom could have issued before any lookup.
      const exit = await c.get("runExit")(Effect.gen(function* () {
        const accounts = yield* Accounts
        known = { accounts, clock: yield* Effect.clock }
        return yield* accounts.authenticate(credential.token)
      }))
      if (Exit.isFailure(exit)) return c.get("answerFailure")(exit.cause)
      c.set("account", exit.value.account)
      c.set("apiKey", exit.value.apiKey)
      return true
    })
    if (outcome !== true) return outcome
    await next()
  })
}

/** The routes an application credential (svc_app_) reaches: the template API, /designs and /capabilities. Spec:
 *  sending "Authentication" 3 and 6. Anywhere else it answers 401 INVALID_CREDENTIALS. */
export const isTemplateApi = (path: string): boolean => /^\/v1\/(designs|capabilities)(\/|$)/.test(path)

/** 403 SCOPE_INSUFFICIENT unless the caller's key has `scope`. Full-access keys hold every scope. */
export const requireScope = (scope: Scope) =>
  createMiddleware<MailroomEnv>(async (c, next) => {
    if (!hasScope(c.get("apiKey"), scope)) return errorResponse(new ScopeInsufficient({ scope }))
    await next()
  })
