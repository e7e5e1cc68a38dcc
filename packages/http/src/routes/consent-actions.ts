/** What the public consent routes ask of the Subscriptions service: unsubscribe a recipient (method `link` or
 *  `one_click`), read or follow a confirmation link, and send a new confirmation link. The rules and their events live
 *  in the service; this module only translates its answers for the routes and pages. */
import {
  type Account, type EmailAddress, Subscriptions, Tokens, type UnsubscribeScope,
} from "@mailroom/core"
import { Effect } from "effect"

export interface PublicUnsubscribe {
  readonly email: EmailAddress
  readonly scope: UnsubscribeScope
  readonly listId: string | null
  readonly topicId: string | null
  readonly reason: string | null
  readonly campaignId: string | null
}

/** Unsubscribes through the service, with the path's method and the campaign the token names. */
export const unsubscribeRecipient = (account: Account, request: PublicUnsubscribe, method: "link" | "one_click") =>
  Effect.flatMap(Subscriptions, (subscriptions) =>
    subscriptions.unsubscribe(account, {
      email: request.email,
      scope: request.scope,
      listId: request.listId,
      topicId: request.topicId,
      reason: request.reason,
    }, { method, ...(request.campaignId === null ? {} : { campaignId: request.campaignId }) }))

/** What a confirmation link is worth, for its page. `pending`: the button may confirm; `confirmed`: it just did;
 *  `already`: the link was used; `expired`: older than 7 days; `replaced`: a newer link was sent since; `none`: the
 *  address is no longer waiting for a confirmation; `invalid`: not a genuine confirmation token. */
export type ConfirmationState =
  | { readonly kind: "pending" | "already" | "expired" | "replaced"; readonly email: string }
  | { readonly kind: "confirmed"; readonly email: string; readonly redirectUrl: string | null }
  | { readonly kind: "none" | "invalid" }

/** Reads (`apply` false) or follows (`apply` true) a confirmation link through the service. */
const state = (value: ConfirmationState): ConfirmationState => value

export const confirmationLink = (token: string, apply: boolean) =>
  Effect.gen(function* () {
    const tokens = yield* Tokens
    const inspected = yield* Effect.either(tokens.inspect("confirm", token))
    if (inspected._tag === "Left") return state({ kind: "invalid" })
    const subscriptions = yield* Subscriptions
    const link = yield* (apply ? subscriptions.confirm(token) : subscriptions.confirmation(token))
    const email = link.email ?? inspected.right.claims.r
    switch (link.state) {
      case "pending":
        return state({ kind: "pending", email })
      case "confirmed":
        return state({ kind: "confirmed", email, redirectUrl: link.redirectUrl })
      case "already_confirmed":
        return state({ kind: "already", email })
      case "expired":
        // The service says "expired" for both; a token still within its 7 days was replaced by a newer one.
        return state({ kind: inspected.right.expired ? "expired" : "replaced", email })
      case "invalid":
        return state({ kind: "none" })
    }
  })

/** "Send me a new link" from a confirmation page: `sent`, `paused` (platform sending is paused: nothing sent) or
 *  `nothing` (no confirmation outstanding for the address). */
export const resendConfirmation = (account: Account, email: EmailAddress) =>
  Effect.flatMap(Subscriptions, (subscriptions) => subscriptions.resendConfirmation(account, email, { via: "link" })).pipe(
    Effect.map(({ confirmationSent }) => (confirmationSent ? "sent" : "paused") as "sent" | "paused" | "nothing"),
    Effect.catchTags({
      NoPendingConfirmation: () => Effect.succeed("nothing" as const),
      ContactNotFound: () => Effect.succeed("nothing" as const),
    }),
  )
