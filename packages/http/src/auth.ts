/** API-key authentication and scopes. Spec: audience "Authentication" (scope table, 401 and 403) and sending
 *  "Authentication" (codes UNAUTHORIZED and INVALID_CREDENTIALS). */
import { Accounts, hasScope, type Scope, ScopeInsufficient } from "@mailroom/core"
import { Effect, Exit } from "effect"
import { createMiddleware } from "hono/factory"
import type { MailroomEnv } from "./env.js"
import { errorResponse } from "./errors.js"

/** The credential of an Authorization header: the token after `Bearer`, undefined when no header was sent, and the
 *  raw value for any other scheme (which then fails as a malformed key). */
export const bearerOf = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  const match = /^Bearer(?:\s+(.*))?$/i.exec(header.trim())
  return match ? (match[1] ?? "").trim() : header.trim()
}

/** The app's Accounts service, kept by the first request that authenticates: later requests ask its cache of recent
 *  lookups directly and enter the runtime only when it does not know the key. */
export interface KnownAccounts {
  current: Accounts | undefined
}

/** Resolves the API key to its account and key (`c.get("account")`, `c.get("apiKey")`); 401 when missing, invalid
 *  or revoked. */
export const authenticate = createMiddleware<MailroomEnv>(async (c, next) => {
  const bearer = bearerOf(c.req.header("authorization"))
  const known = c.get("knownAccounts")
  let authentication = bearer === undefined ? undefined : known.current?.cachedAuthentication(bearer, Date.now())
  if (authentication === undefined) {
    const exit = await c.get("runExit")(Effect.flatMap(Accounts, (accounts) => {
      known.current = accounts
      return accounts.authenticate(bearer)
    }))
    if (Exit.isFailure(exit)) return c.get("answerFailure")(exit.cause)
    authentication = exit.value
  }
  c.set("account", authentication.account)
  c.set("apiKey", authentication.apiKey)
  await next()
})

/** 403 SCOPE_INSUFFICIENT unless the caller's key has `scope`. Full-access keys hold every scope. */
export const requireScope = (scope: Scope) =>
  createMiddleware<MailroomEnv>(async (c, next) => {
    if (!hasScope(c.get("apiKey"), scope)) return errorResponse(new ScopeInsufficient({ scope }))
    await next()
  })
