/** Accounts, API keys and application credentials: the operator API's service, and key authentication. */
import { Clock, Context, Deferred, Effect, Exit, Option, Runtime } from "effect"
import {
  type Account, type AccountId, type ApiKey, type ApiKeyId, type AppCredential, CreateAccountBody, CreateApiKeyBody,
  CreateAppCredentialBody, credentialKind, credentialSecretBytes, keyPrefixes, scopes, UpdateAccountBody,
} from "../domain/account.js"
import { decodeInput } from "../validation.js"
import { InvalidCredentials, ResourceNotFound, type StoreError, Unauthorized } from "../errors.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import { orNotFound } from "../internal/found.js"
import { serviceMethod } from "./tracing.js"
import { displayPrefix, hashCredential } from "../internal/hash.js"
import { currentDate } from "../internal/time.js"

/** What an application credential may do: read and change its application's templates, and send them. */
const applicationScopes = ["templates:read", "templates:write", "emails:send"] as const

/** The inputs of the operator API, as callers pass them; each method decodes its input with the schema. */
export type CreateAccountInput = typeof CreateAccountBody.Encoded
export type UpdateAccountInput = typeof UpdateAccountBody.Encoded
export type CreateApiKeyInput = typeof CreateApiKeyBody.Encoded
export type CreateAppCredentialInput = typeof CreateAppCredentialBody.Encoded

/** Where the generated MAILROOM_SECRET is kept in settings. */
const secretSetting = "mailroom_secret"

export interface AccountsOptions {
  /** How long a successful key lookup is reused, in milliseconds (default 2,000; 0 turns the cache off). A key in use
   *  is looked up again in the background during the last quarter of that time, once. A revocation or account change
   *  made through this process takes effect at once; one made by another process sharing the database takes effect
   *  within this time. */
  readonly authCacheTtlMs?: number | undefined
  /** The host's MAILROOM_SECRET. When unset, a secret is generated once and kept in the database. */
  readonly secret?: string | undefined
}

const defaultAuthCacheTtlMs = 2_000

/** Options of the Accounts service; the facade provides them, and the default applies when none are given. */
export class AccountsConfig extends Context.Reference<AccountsConfig>()("@mailroom/core/AccountsConfig", {
  defaultValue: (): AccountsOptions => ({}),
}) {}

export interface Authentication {
  readonly account: Account
  readonly apiKey: ApiKey
}

interface CachedAuthentication extends Authentication {
  readonly expiresAt: number
  /** Whether the lookup ahead of expiry has started for this entry (at most one does). */
  refreshing: boolean
}

export class Accounts extends Effect.Service<Accounts>()("@mailroom/core/Accounts", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const method = yield* serviceMethod
    const ids = yield* Ids
    const config = yield* AccountsConfig
    const now = currentDate
    const cacheTtlMs = config.authCacheTtlMs ?? defaultAuthCacheTtlMs
    /** How long before its expiry a key in use is looked up again, in the background: requests keep being answered
     *  from the cache meanwhile, instead of all missing it together at its expiry (each then checking the client's
     *  failed authentications and entering the runtime). */
    const refreshAheadMs = cacheTtlMs / 4
    /** Runs the lookups ahead of expiry: cachedAuthentication is called outside the runtime. */
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    /** Successful lookups by key hash. Entries of an account are dropped when it or one of its keys changes. */
    const authCache = new Map<string, CachedAuthentication>()
    /** Lookups under way by key hash: requests that miss the cache together (it expires under every request that is
     *  in flight at that moment) wait for one lookup instead of each making their own. */
    const lookups = new Map<string, Deferred.Deferred<Authentication, InvalidCredentials | StoreError>>()
    /** Counts changes to accounts and keys. A lookup that overlaps one answers its own request but is not cached: it
     *  may have read the row as it was before the change committed. */
    let changes = 0
    /** Drops what is known of the account once its change has committed (a pipeable after `store.transaction`):
     *  dropped any earlier, a concurrent lookup could still read and cache the old row. */
    const forgetAccountAfter = <A, E, R>(change: Effect.Effect<A, E, R>, accountId: string) =>
      Effect.tap(change, () => {
        changes++
        lookups.clear()
        for (const [hash, entry] of authCache) if (entry.account.id === accountId) authCache.delete(hash)
      })

    const find = (id: string) => store.accounts.findById(id as AccountId).pipe(orNotFound("account", id))

    const issueKey = (accountId: AccountId, input: typeof CreateApiKeyBody.Type, createdAt: Date) => {
      const mode = input.mode ?? "live"
      const key = `${keyPrefixes[mode]}${ids.token(credentialSecretBytes)}`
      const apiKey: ApiKey = {
        id: ids.make("apiKey", createdAt) as ApiKeyId,
        accountId,
        name: input.name ?? null,
        mode,
        scopes: input.scopes ?? scopes,
        prefix: displayPrefix(key, keyPrefixes[mode]),
        hash: hashCredential(key),
        createdAt,
        revokedAt: null,
      }
      return store.apiKeys.insert(apiKey).pipe(Effect.as({ apiKey, key }))
    }

    const create = method("Accounts.create")(function* (fields: CreateAccountInput = {}) {
      const input = yield* decodeInput(CreateAccountBody, fields)
      const createdAt = yield* now
      const account: Account = {
        id: ids.make("account", createdAt) as AccountId,
        name: input.name ?? null,
        plan: input.plan ?? "free",
        ownerEmail: input.ownerEmail ?? null,
        createdAt,
      }
      yield* store.accounts.insert(account)
      const { key } = yield* issueKey(account.id, { name: "default" }, createdAt)
      return { account, apiKey: key }
    }, store.transaction)

    const get = method("Accounts.get")(function* (id: string) {
      return yield* find(id)
    })

    const update = method("Accounts.update")(function* (id: string, fields: UpdateAccountInput) {
      const patch = yield* decodeInput(UpdateAccountBody, fields)
      const current = yield* find(id)
      const next: Account = {
        ...current,
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.plan !== undefined ? { plan: patch.plan } : {}),
        ...(patch.ownerEmail !== undefined ? { ownerEmail: patch.ownerEmail } : {}),
      }
      yield* store.accounts.update(next)
      return next
    }, store.transaction, forgetAccountAfter)

    const createApiKey = method("Accounts.createApiKey")(function* (accountId: string, fields: CreateApiKeyInput = {}) {
      const input = yield* decodeInput(CreateApiKeyBody, fields)
      const account = yield* find(accountId)
      return yield* issueKey(account.id, input, yield* now)
    }, store.transaction)

    const revokeApiKey = method("Accounts.revokeApiKey")(function* (accountId: string, keyId: string) {
      const account = yield* find(accountId)
      const revoked = yield* store.apiKeys.revoke(account.id, keyId as ApiKeyId, yield* now)
      if (!revoked) return yield* Effect.fail(new ResourceNotFound({ resource: "API key", id: keyId }))
    }, store.transaction, forgetAccountAfter)

    const createAppCredential = method("Accounts.createAppCredential")(
      function* (accountId: string, fields: CreateAppCredentialInput) {
        const input = yield* decodeInput(CreateAppCredentialBody, fields)
        const account = yield* find(accountId)
        const key = `${keyPrefixes.app}${ids.token(credentialSecretBytes)}`
        const createdAt = yield* now
        const credential: AppCredential = {
          id: ids.make("appCredential", createdAt),
          accountId: account.id,
          applicationKey: input.applicationKey,
          allowedSenders: [...input.allowedSenders],
          prefix: displayPrefix(key, keyPrefixes.app),
          hash: hashCredential(key),
          createdAt,
        }
        yield* store.appCredentials.insert(credential)
        return { credential, key }
      },
      store.transaction,
    )

    /** The account and key behind an `Authorization: Bearer` value. Spec: audience "Authentication" 1-2. */
    const authenticate = method("Accounts.authenticate")(function* (bearer: string | undefined) {
      if (bearer === undefined || bearer === "") {
        return yield* Effect.fail(new Unauthorized({ detail: "missing API key: send Authorization: Bearer <API_KEY>" }))
      }
      const kind = credentialKind(bearer)
      if (kind === undefined) {
        return yield* Effect.fail(new InvalidCredentials({ detail: "the API key is malformed: keys are svc_live_ or svc_test_ followed by 48 hex digits" }))
      }
      if (kind === "app") {
        return yield* Effect.fail(new InvalidCredentials({ detail: "application credentials (svc_app_) reach only the template API" }))
      }
      const hash = hashCredential(bearer)
      const at = yield* Clock.currentTimeMillis
      const cached = authCache.get(hash)
      if (cached !== undefined && cached.expiresAt > at) return { account: cached.account, apiKey: cached.apiKey }
      const shared = lookups.get(hash)
      if (shared !== undefined) return yield* Deferred.await(shared)
      // Uninterruptible: the requests waiting for this lookup need its answer even when this request's client leaves.
      return yield* Effect.uninterruptible(lookupAndShare(hash, at))
    })

    /** What a recent lookup of this key answered, without I/O or a fiber: undefined unless the cache holds the key
     *  (only keys that authenticated are cached). For the HTTP layer, which checks it before entering the runtime on
     *  every request; `nowMs` is the caller's clock. */
    const cachedAuthentication = (bearer: string, nowMs: number): Authentication | undefined => {
      const hash = hashCredential(bearer)
      const cached = authCache.get(hash)
      if (cached === undefined || cached.expiresAt <= nowMs) return undefined
      if (!cached.refreshing && cached.expiresAt - nowMs <= refreshAheadMs) {
        cached.refreshing = true
        runFork(refreshAhead(hash, cached, nowMs))
      }
      return { account: cached.account, apiKey: cached.apiKey }
    }

    /** Looks `hash` up again before its entry expires: a success replaces the entry (lookupAndShare), a refusal (the
     *  key revoked or deleted by another process) drops it at once, and a failure of the store leaves it to expire. */
    const refreshAhead = (hash: string, entry: CachedAuthentication, at: number) =>
      Effect.uninterruptible(lookupAndShare(hash, at)).pipe(
        Effect.catchTag("InvalidCredentials", () =>
          Effect.sync(() => {
            if (authCache.get(hash) === entry) authCache.delete(hash)
          })),
        Effect.ignore,
      )

    const lookup = (hash: string) =>
      Effect.gen(function* () {
        const apiKey = yield* store.apiKeys.findByHash(hash)
        if (Option.isNone(apiKey)) return yield* Effect.fail(new InvalidCredentials({ detail: "the API key is not valid" }))
        if (apiKey.value.revokedAt !== null) {
          return yield* Effect.fail(new InvalidCredentials({ detail: "the API key has been revoked" }))
        }
        const account = yield* store.accounts.findById(apiKey.value.accountId)
        if (Option.isNone(account)) return yield* Effect.fail(new InvalidCredentials({ detail: "the API key is not valid" }))
        return { account: account.value, apiKey: apiKey.value }
      })

    const lookupAndShare = (hash: string, at: number) =>
      Effect.gen(function* () {
        const shared = yield* Deferred.make<Authentication, InvalidCredentials | StoreError>()
        lookups.set(hash, shared)
        const changesBefore = changes
        const exit = yield* Effect.exit(lookup(hash))
        if (lookups.get(hash) === shared) lookups.delete(hash)
        yield* Deferred.done(shared, exit)
        if (Exit.isSuccess(exit) && cacheTtlMs > 0 && changes === changesBefore) {
          authCache.set(hash, { ...exit.value, expiresAt: at + cacheTtlMs, refreshing: false })
        }
        return yield* exit
      })

    /** The account and application credential behind a `svc_app_` bearer value: for the template API only (the HTTP
     *  layer asks this on /designs and /capabilities). The credential acts as a key with the template scopes and
     *  `emails:send` (for POST /designs/{id}/send), limited to its application and allowed senders. Spec: sending
     *  "Authentication" 3. Not cached: each request reads the credential. */
    const authenticateApplication = method("Accounts.authenticateApplication")(function* (bearer: string) {
      if (credentialKind(bearer) !== "app") {
        return yield* Effect.fail(new InvalidCredentials({ detail: "the application credential is malformed: svc_app_ followed by 48 hex digits" }))
      }
      const credential = yield* store.appCredentials.findByHash(hashCredential(bearer))
      if (Option.isNone(credential)) return yield* Effect.fail(new InvalidCredentials({ detail: "the application credential is not valid" }))
      const account = yield* store.accounts.findById(credential.value.accountId)
      if (Option.isNone(account)) return yield* Effect.fail(new InvalidCredentials({ detail: "the application credential is not valid" }))
      const { id, accountId, prefix, hash, createdAt, applicationKey, allowedSenders } = credential.value
      const apiKey: ApiKey = {
        id: id as ApiKeyId, accountId, name: null, mode: "live", prefix, hash, createdAt, revokedAt: null,
        scopes: applicationScopes,
      }
      return { account: account.value, apiKey, application: { key: applicationKey, allowedSenders } }
    })

    /** The signing secret: MAILROOM_SECRET when the host passes one, otherwise generated once and kept in settings. */
    const secret = config.secret !== undefined && config.secret !== ""
      ? Effect.succeed(config.secret)
      : store.settings.getOrInsert(secretSetting, ids.token(32))

    return {
      create, get, update, createApiKey, revokeApiKey, createAppCredential, authenticate, authenticateApplication,
      cachedAuthentication, secret,
    } as const
  }),
}) {}
