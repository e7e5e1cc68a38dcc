/** `mailroom.accounts`: the operator API for code, with the same validation and errors as /admin. */
import {
  type Account, Accounts, type ApiKey, type AppCredential,
} from "@mailroom/core"
import {
  CreateAccountBody, CreateApiKeyBody, CreateAppCredentialBody, decodeInput, UpdateAccountBody,
} from "@mailroom/http"
import { Effect } from "effect"
import type { RunPromise } from "./promise-runner.js"

export interface AccountsApi {
  /** A new account and its full-access `svc_live_` key, shown only here. */
  readonly create: (input?: typeof CreateAccountBody.Encoded) => Promise<{ readonly account: Account; readonly apiKey: string }>
  readonly get: (accountId: string) => Promise<Account>
  readonly update: (accountId: string, patch: typeof UpdateAccountBody.Encoded) => Promise<Account>
  /** A new key; scopes omitted means full access. `key` is shown only here. */
  readonly createApiKey: (accountId: string, input?: typeof CreateApiKeyBody.Encoded) => Promise<{ readonly apiKey: ApiKey; readonly key: string }>
  /** From then on the key answers 401. */
  readonly revokeApiKey: (accountId: string, keyId: string) => Promise<void>
  readonly createAppCredential: (accountId: string, input: typeof CreateAppCredentialBody.Encoded) => Promise<{ readonly credential: AppCredential; readonly key: string }>
  /** The account and key behind a bearer token, as the API middleware resolves them. */
  readonly authenticate: (bearer: string | undefined) => Promise<{ readonly account: Account; readonly apiKey: ApiKey }>
}

export const makeAccountsApi = (run: RunPromise): AccountsApi => ({
  create: (input = {}) =>
    run(Effect.gen(function* () {
      const body = yield* decodeInput(CreateAccountBody, input)
      return yield* (yield* Accounts).create(body)
    })),
  get: (accountId) => run(Effect.flatMap(Accounts, (accounts) => accounts.get(accountId))),
  update: (accountId, patch) =>
    run(Effect.gen(function* () {
      const body = yield* decodeInput(UpdateAccountBody, patch)
      return yield* (yield* Accounts).update(accountId, body)
    })),
  createApiKey: (accountId, input = {}) =>
    run(Effect.gen(function* () {
      const body = yield* decodeInput(CreateApiKeyBody, input)
      return yield* (yield* Accounts).createApiKey(accountId, body)
    })),
  revokeApiKey: (accountId, keyId) => run(Effect.flatMap(Accounts, (accounts) => accounts.revokeApiKey(accountId, keyId))),
  createAppCredential: (accountId, input) =>
    run(Effect.gen(function* () {
      const body = yield* decodeInput(CreateAppCredentialBody, input)
      return yield* (yield* Accounts).createAppCredential(accountId, body)
    })),
  authenticate: (bearer) => run(Effect.flatMap(Accounts, (accounts) => accounts.authenticate(bearer))),
})
