/** The operator's switch on platform sending: sending can be paused for the whole platform or for one account. While it
 *  is paused, mail the platform sends on its own behalf (double opt-in confirmations) is not sent: POST /subscriptions
 *  answers `confirmationSent: false` and the customer resends once sending resumes. The switch is kept in the settings
 *  table, so it survives restarts and every instance sharing the database sees it. Operators flip it through
 *  PUT /admin/sending and PUT /admin/accounts/{id}/sending (docs/consent.md, "Pausing platform sending"). */
import { Effect, Option } from "effect"
import type { AccountId } from "../domain/account.js"
import { Store } from "../ports/store.js"

const platformKey = "sending_paused"
const accountKey = (accountId: string) => `sending_paused:${accountId}`

/** Where a pause applies: every account, or one. */
export type PauseScope = { readonly platform: true } | { readonly accountId: AccountId }

const keyOf = (scope: PauseScope) => ("accountId" in scope ? accountKey(scope.accountId) : platformKey)

export class SendingPause extends Effect.Service<SendingPause>()("@mailroom/core/SendingPause", {
  effect: Effect.gen(function* () {
    const store = yield* Store

    const read = (key: string) =>
      Effect.map(store.settings.get(key), (value) => Option.getOrElse(value, () => "false") === "true")

    /** Whether this scope itself is paused (the platform switch, or the account's own switch). */
    const get = (scope: PauseScope) => read(keyOf(scope))

    /** Pauses (true) or resumes (false) sending for the scope; answers the new state. */
    const set = (scope: PauseScope, paused: boolean) =>
      Effect.as(store.settings.set(keyOf(scope), paused ? "true" : "false"), paused)

    /** Whether the account may not send now: the platform or the account is paused. */
    const isPaused = (accountId: AccountId) =>
      Effect.flatMap(read(platformKey), (platform) => (platform ? Effect.succeed(true) : read(accountKey(accountId))))

    return { get, set, isPaused } as const
  }),
}) {}
