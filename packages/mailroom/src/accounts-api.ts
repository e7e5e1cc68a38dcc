/** `mailroom.accounts`: the operator API for code; the Accounts service validates the input as /admin does. */
import {
  type Account, Accounts, type ApiKey, type AppCredential, type CreateAccountInput, type CreateApiKeyInput,
  type CreateAppCredentialInput, type UpdateAccountInput,
} from "@mailroom/core"
import { Effect } from "effect"
import type { RunPromise } from "./promise-runner.js"

export interface AccountsApi {
  /** A new account and its full-access `svc_live_` key, shown only here. */
  readonly create: (input?: CreateAccountInput) => Promise<{ readonly account: Account; readonly apiKey: string }>
  readonly get: (accountId: string) => Promise<Account>
  readonly update: (accountId: string, patch: UpdateAccountInput) => Promise<Account>
  /** A new key; scopes omitted means full access. `key` is shown only here. */
  readonly createApiKey: (accountId: string, input?: CreateApiKeyInput) => Promise<{ readonly apiKey: ApiKey; readonly key: string }>
  /** From then on the key answers 401. */
  readonly revokeApiKey: (accountId: string, keyId: string) => Promise<void>
  readonly createAppCredential: (accountId: string, input: CreateAppCredentialInput) => Promise<{ readonly credential: AppCredential; readonly key: string }>
  /** The account and key behind a bearer token, as the API middleware resolves them. */
  readonly authenticate: (bearer: string | undefined) => Promise<{ readonly account: Account; readonly apiKey: ApiKey }>
}

export const makeAccountsApi = (run: RunPromise): AccountsApi => ({
  create: (input = {}) => run(Effect.flatMap(Accounts, (accounts) => accounts.create(input))),
  get: (accountId) => run(Effect.flatMap(Accounts, (accounts) => accounts.get(accountId))),
  update: (accountId, patch) => run(Effect.flatMap(Accounts, (accounts) => accounts.update(accountId, patch))),
  createApiKey: (accountId, input = {}) =>
    run(Effect.flatMap(Accounts, (accounts) => accounts.createApiKey(accountId, input))),
  revokeApiKey: (accountId, keyId) => run(Effect.flatMap(Accounts, (accounts) => accounts.revokeApiKey(accountId, keyId))),
  createAppCredential: (accountId, input) =>
    run(Effect.flatMap(Accounts, (accounts) => accounts.createAppCredential(accountId, input))),
  authenticate: (bearer) => run(Effect.flatMap(Accounts, (accounts) => accounts.authenticate(bearer))),
})
