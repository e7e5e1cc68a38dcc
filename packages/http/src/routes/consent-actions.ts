/** What the public consent routes ask of the Subscriptions service: unsubscribe a recipient (method `link` or
 *  `one_click`), confirm a double opt-in by its token, and send a new confirmation link. The rules and their events
 *  live in the service; this module only translates its answers for the pages. */
import type { Account, EmailAddress, UnsubscribeScope } from "@mailroom/core"
import { Effect } from "effect"

export interface PublicUnsubscribe {
  readonly email: EmailAddress
  readonly scope: UnsubscribeScope
  readonly listId: string | null
  readonly topicId: string | null
  readonly reason: string | null
  readonly campaignId: string | null
}

/** What following a confirmation link did. `replaced`: a newer link was sent since; `none`: the address is no longer
 *  waiting for a confirmation. */
export type ConfirmOutcome =
  | { readonly kind: "confirmed"; readonly redirectUrl: string | null }
  | { readonly kind: "already" }
  | { readonly kind: "replaced" }
  | { readonly kind: "none" }

const notWired = (what: string) => Effect.dieMessage(`${what}: the Subscriptions service is not wired yet`)

export const unsubscribeRecipient = (
  _account: Account,
  _request: PublicUnsubscribe,
  _method: "link" | "one_click",
): Effect.Effect<{ readonly changed: boolean }> => notWired("unsubscribe")

export const confirmByToken = (_token: string): Effect.Effect<ConfirmOutcome> => notWired("confirm")

/** `sent`, `paused` (platform sending is paused: nothing sent) or `nothing` (no confirmation outstanding). */
export const resendConfirmation = (
  _account: Account,
  _email: EmailAddress,
): Effect.Effect<"sent" | "paused" | "nothing"> => notWired("resend-confirmation")
