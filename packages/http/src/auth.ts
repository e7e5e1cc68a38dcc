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

/** Middleware that resolves the API key to its account and key (`c.get("account")`, `c.get("apiKey")`); 401 when
 *  missing, invalid or revoked. It keeps the app's Accounts service once a request has resolved it, so that later
 *  requests ask its cache of recent lookups directly and enter the runtime only when the cache does not know the key. */
export const authenticate = () => {
  let known: Accounts | undefined
  return createMiddleware<MailroomEnv>(async (c, next) => {
    const bearer = bearerOf(c.req.header("authorization"))
    let authentication = bearer === undefined ? undefined : known?.cachedAuthentication(bearer, Date.now())
    if (authentication === undefined) {
      const exit = await c.get("runExit")(Effect.flatMap(Accounts, (accounts) => {
        known = accounts
        return accounts.authenticate(bearer)
      }))
      if (Exit.isFailure(exit)) return c.get("answerFailure")(exit.cause)
      authentication = exit.value
    }
    c.set("account", authentication.account)
    c.set("apiKey", authentication.apiKey)
    await next()
  })
}

/** 403 SCOPE_INSUFFICIENT unless the caller's key has `scope`. Full-access keys hold every scope. */
export const requireScope = (scope: Scope) =>
  createMiddleware<MailroomEnv>(async (c, next) => {
    if (!hasScope(c.get("apiKey"), scope)) return errorResponse(new ScopeInsufficient({ scope }))
    await next()
  })
