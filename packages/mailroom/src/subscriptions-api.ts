/** `mailroom.subscriptions`: the Subscriptions API for code. Each method takes the account id where the HTTP route takes
 *  an API key; the Subscriptions service decodes the input with the schemas the routes use, so the limits and errors
 *  are the same (VALIDATION_ERROR, RECIPIENT_UNSUBSCRIBED, …). */
import {
  type Account, Accounts, type ConfirmationLink, type ResendResult, type SubscribeContext, type SubscribeInput,
  type SubscribeResult, type SubscriptionStatus, Subscriptions, type UnsubscribeContext, type UnsubscribeInput,
  type UnsubscribeResult, type UpdateContext, type UpdateSubscriptionInput,
} from "@mailroom/core"
import { Effect } from "effect"
import type { RunPromise } from "./promise-runner.js"

export interface SubscriptionsApi {
  /** POST /subscriptions: `created` tells 201 from 200. Pass `{ clientAddress }` to record it on a resubscribe
   *  without consent. */
  readonly subscribe: (accountId: string, input: typeof SubscribeInput.Encoded, context?: SubscribeContext) => Promise<SubscribeResult>
  /** POST /subscriptions/unsubscribe; `method` defaults to api. */
  readonly unsubscribe: (accountId: string, input: typeof UnsubscribeInput.Encoded, context?: UnsubscribeContext) => Promise<UnsubscribeResult>
  /** GET /subscriptions/{email}. */
  readonly status: (accountId: string, email: string) => Promise<SubscriptionStatus>
  /** PATCH /subscriptions/{email}. */
  readonly update: (accountId: string, email: string, input: typeof UpdateSubscriptionInput.Encoded, context?: UpdateContext) => Promise<SubscriptionStatus>
  /** POST /subscriptions/{email}/resend-confirmation. */
  readonly resendConfirmation: (accountId: string, email: string) => Promise<ResendResult>
  /** What a confirmation link token is worth, changing nothing. */
  readonly confirmation: (token: string) => Promise<ConfirmationLink>
  /** Confirms the double opt-in of a confirmation link token. */
  readonly confirm: (token: string) => Promise<ConfirmationLink>
}

export const makeSubscriptionsApi = (run: RunPromise): SubscriptionsApi => {
  /** The account and the Subscriptions service; an unknown account id fails with RESOURCE_NOT_FOUND. */
  const withAccount = <A, E, R>(accountId: string, use: (account: Account, subscriptions: Subscriptions) => Effect.Effect<A, E, R>) =>
    Effect.gen(function* () {
      const account = yield* (yield* Accounts).get(accountId)
      return yield* use(account, yield* Subscriptions)
    })

  return {
    subscribe: (accountId, input, context = {}) =>
      run(withAccount(accountId, (account, subscriptions) => subscriptions.subscribe(account, input, context))),
    unsubscribe: (accountId, input, context = {}) =>
      run(withAccount(accountId, (account, subscriptions) => subscriptions.unsubscribe(account, input, context))),
    status: (accountId, email) => run(withAccount(accountId, (account, subscriptions) => subscriptions.status(account, email))),
    update: (accountId, email, input, context = {}) =>
      run(withAccount(accountId, (account, subscriptions) => subscriptions.update(account, email, input, context))),
    resendConfirmation: (accountId, email) =>
      run(withAccount(accountId, (account, subscriptions) => subscriptions.resendConfirmation(account, email))),
    confirmation: (token) => run(Effect.flatMap(Subscriptions, (subscriptions) => subscriptions.confirmation(token))),
    confirm: (token) => run(Effect.flatMap(Subscriptions, (subscriptions) => subscriptions.confirm(token))),
  }
}
