/** The operator API under /admin (CONTRACT.md, "Operator API"): accounts, API keys, application credentials and the
 *  dev outbox. Mounted only when an admin token is configured; every request must carry it as a Bearer token. */
import { createHash, timingSafeEqual } from "node:crypto"
import {
  type Account, Accounts, Canary, CreateAccountBody, CreateApiKeyBody, CreateAppCredentialBody, devOutboxLimits,
  EmailAddress, type HeldRecipient, heldResolutions, InvalidCredentials, limitParam, MessageDelivery, ResourceNotFound,
  SendingPause, Store, UpdateAccountBody,
} from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { Hono } from "hono"
import { createMiddleware } from "hono/factory"
import { credentialOf, guardAttempt, refusalOf } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { errorResponse } from "../errors.js"
import { decodeJson, decodeQuery } from "../validation.js"
import { outboxEntriesJson } from "../outbox-message.js"
import { canaryRunJson, CanaryRunsParams } from "./canary.js"

export const OutboxParams = Schema.Struct({
  to: Schema.optional(EmailAddress),
  /** Only messages whose subject, from, recipients or text contain this (case-insensitive). */
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(devOutboxLimits.maxSearch))),
  limit: Schema.optionalWith(limitParam(devOutboxLimits.maxLimit), { default: () => devOutboxLimits.defaultLimit }),
})

/** Body of PUT /admin/sending and PUT /admin/accounts/{id}/sending. */
export const SendingPauseBody = Schema.Struct({ paused: Schema.Boolean })

export const HeldParams = Schema.Struct({
  limit: Schema.optionalWith(limitParam(100), { default: () => 25 }),
})

/** Body of POST /admin/accounts/{id}/messages/{messageId}/recipients/{email}/resolve. */
export const ResolveHeldBody = Schema.Struct({ action: Schema.Literal(...heldResolutions) })

const heldJson = ({ messageId, recipient }: HeldRecipient) => ({
  messageId,
  email: recipient.email,
  field: recipient.field,
  status: recipient.status,
  attempts: recipient.attempts,
  lastResponse: recipient.lastResponse,
  updatedAt: recipient.updatedAt.toISOString(),
})

const digest = (text: string) => createHash("sha256").update(text).digest()

/** 401 unless the request carries `Authorization: Bearer <adminToken>`; compared in constant time. Every attempt
 *  counts against the client's failed authentications (429 past them), like API keys on /v1. */
const requireAdminToken = (adminToken: string) => {
  const expected = digest(adminToken)
  return createMiddleware<MailroomEnv>(async (c, next) => {
    const outcome = await guardAttempt(c, async () => {
      const credential = credentialOf(c.req.header("authorization"))
      if (credential.kind !== "bearer") return errorResponse(refusalOf(credential, "ADMIN_TOKEN"), "envelope", "admin")
      if (!timingSafeEqual(digest(credential.token), expected)) {
        return errorResponse(new InvalidCredentials({ detail: "the admin token is not valid" }), "envelope", "admin")
      }
      return true
    })
    if (outcome !== true) return outcome
    await next()
  })
}

const accountJson = (account: Account) => ({
  id: account.id,
  name: account.name,
  plan: account.plan,
  ownerEmail: account.ownerEmail,
  createdAt: account.createdAt.toISOString(),
})

export interface AdminOptions {
  readonly adminToken: string
  /** Whether mail is kept in the dev outbox (no SMTP relay configured); GET and DELETE /outbox exist only then. */
  readonly devOutbox: boolean
}

/** The operator routes, guarded by the admin token. Paths are relative to /admin. */
export const adminRoutes = (options: AdminOptions) => {
  const routes = new Hono<MailroomEnv>()
    .use("*", requireAdminToken(options.adminToken))
    .post("/accounts", (c) =>
      c.get("run")(Effect.gen(function* () {
        const body = yield* decodeJson(c, CreateAccountBody)
        const accounts = yield* Accounts
        const { account, apiKey } = yield* accounts.create(body)
        return c.json({ id: account.id, name: account.name, plan: account.plan, ownerEmail: account.ownerEmail, apiKey }, 201)
      })))
    .get("/accounts/:id", (c) =>
      c.get("run")(Effect.gen(function* () {
        const accounts = yield* Accounts
        return c.json(accountJson(yield* accounts.get(c.req.param("id"))))
      })))
    .patch("/accounts/:id", (c) =>
      c.get("run")(Effect.gen(function* () {
        const body = yield* decodeJson(c, UpdateAccountBody)
        const accounts = yield* Accounts
        return c.json(accountJson(yield* accounts.update(c.req.param("id"), body)))
      })))
    .post("/accounts/:id/api-keys", (c) =>
      c.get("run")(Effect.gen(function* () {
        const body = yield* decodeJson(c, CreateApiKeyBody)
        const accounts = yield* Accounts
        const { apiKey, key } = yield* accounts.createApiKey(c.req.param("id"), body)
        return c.json({ id: apiKey.id, key, scopes: apiKey.scopes, mode: apiKey.mode }, 201)
      })))
    .delete("/accounts/:id/api-keys/:keyId", (c) =>
      c.get("run")(Effect.gen(function* () {
        const keyId = c.req.param("keyId")
        const accounts = yield* Accounts
        yield* accounts.revokeApiKey(c.req.param("id"), keyId)
        return c.json({ id: keyId, revoked: true })
      })))
    .post("/accounts/:id/app-credentials", (c) =>
      c.get("run")(Effect.gen(function* () {
        const body = yield* decodeJson(c, CreateAppCredentialBody)
        const accounts = yield* Accounts
        const { credential, key } = yield* accounts.createAppCredential(c.req.param("id"), body)
        return c.json({ id: credential.id, key }, 201)
      })))
    // Pausing platform sending (docs/consent.md): for every account, or for one.
    .get("/sending", (c) =>
      c.get("run")(Effect.gen(function* () {
        const pause = yield* SendingPause
        return c.json({ paused: yield* pause.get({ platform: true }) })
      })))
    .put("/sending", (c) =>
      c.get("run")(Effect.gen(function* () {
        const body = yield* decodeJson(c, SendingPauseBody)
        const pause = yield* SendingPause
        return c.json({ paused: yield* pause.set({ platform: true }, body.paused) })
      })))
    .get("/accounts/:id/sending", (c) =>
      c.get("run")(Effect.gen(function* () {
        const account = yield* (yield* Accounts).get(c.req.param("id"))
        const pause = yield* SendingPause
        return c.json({ accountId: account.id, paused: yield* pause.get({ accountId: account.id }) })
      })))
    .put("/accounts/:id/sending", (c) =>
      c.get("run")(Effect.gen(function* () {
        const body = yield* decodeJson(c, SendingPauseBody)
        const account = yield* (yield* Accounts).get(c.req.param("id"))
        const pause = yield* SendingPause
        return c.json({ accountId: account.id, paused: yield* pause.set({ accountId: account.id }, body.paused) })
      })))
    // Review of held recipients: submissions whose outcome is unknown (docs/sending.md, "Held recipients").
    .get("/accounts/:id/held-recipients", (c) =>
      c.get("run")(Effect.gen(function* () {
        const query = yield* decodeQuery(c, HeldParams)
        const account = yield* (yield* Accounts).get(c.req.param("id"))
        const held = yield* (yield* MessageDelivery).listHeld(account.id, query.limit)
        return c.json({ data: held.map(heldJson) })
      })))
    .post("/accounts/:id/messages/:messageId/recipients/:email/resolve", (c) =>
      c.get("run")(Effect.gen(function* () {
        const body = yield* decodeJson(c, ResolveHeldBody)
        const account = yield* (yield* Accounts).get(c.req.param("id"))
        const resolved = yield* (yield* MessageDelivery).resolveHeld(account.id, c.req.param("messageId"), c.req.param("email"), body.action)
        return c.json(heldJson(resolved))
      })))
    // The delivery canary's last runs, the latest first (docs/canary.md).
    .get("/canary/runs", (c) =>
      c.get("run")(Effect.gen(function* () {
        const query = yield* decodeQuery(c, CanaryRunsParams)
        const canary = yield* Canary
        return c.json({ data: (yield* canary.list(query.limit)).map(canaryRunJson) })
      })))
  if (!options.devOutbox) return routes
  return routes
    .get("/outbox", (c) =>
      c.get("run")(Effect.gen(function* () {
        const query = yield* decodeQuery(c, OutboxParams)
        const store = yield* Store
        const entries = yield* store.devOutbox.list(query)
        return c.json({ data: yield* outboxEntriesJson(entries) })
      })))
    .delete("/outbox", (c) =>
      c.get("run")(Effect.gen(function* () {
        const store = yield* Store
        return c.json({ deleted: yield* store.devOutbox.clear() })
      })))
    // The message exactly as it would have gone to a relay (headers, DKIM signature and body), for checking it with
    // mail tools (docs/domains.md: the DKIM signature).
    .get("/outbox/:id/raw", (c) =>
      c.get("run")(Effect.gen(function* () {
        const store = yield* Store
        const id = c.req.param("id")
        const entry = yield* store.devOutbox.get(id)
        const raw = Option.getOrUndefined(entry)?.raw
        if (raw === undefined || raw === null) return yield* new ResourceNotFound({ resource: "outbox entry", id })
        return c.body(raw, 200, { "content-type": "message/rfc822" })
      })))
}

export { CreateAccountBody, CreateApiKeyBody, CreateAppCredentialBody, UpdateAccountBody } from "@mailroom/core"
