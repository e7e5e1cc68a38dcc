/** Confirmation links of double opt-in, `{APP_URL}/c/<token>`: what a link is worth, confirming it, and the answers of
 *  its page. Following the link confirms at once in a person's browser (the default `link` mode) and shows the page
 *  whose button confirms to automated fetches, and to everyone in `button` mode: the rule is `classifyLinkVisit` in
 *  domain/link-visit.ts. Spec: audience "Moves made by other operations" (the PENDING rows); CONTRACT.md "Confirmation
 *  links". */
import { Effect, Either, Option } from "effect"
import type { AccountId } from "../domain/account.js"
import type { EmailAddress } from "../domain/email.js"
import { classifyLinkVisit, confirmsOnFollow, type LinkRequest } from "../domain/link-visit.js"
import { confirmedEvent } from "../domain/subscription.js"
import { linkTokens } from "../internal/link-tokens.js"
import { subscriptionSteps } from "../internal/subscription-steps.js"
import { currentDate } from "../internal/time.js"
import { Store } from "../ports/store.js"
import { SendingPause } from "./sending-pause.js"
import { SubscriptionsConfig } from "./subscriptions-config.js"
import { Tokens } from "./tokens.js"
import { serviceMethod } from "./tracing.js"

/** What a confirmation link is worth, for the `/c/<token>` page:
 *  - pending: genuine and outstanding (the page shows its button; nothing changed);
 *  - confirmed: this call confirmed the contact;
 *  - already_confirmed: the contact was confirmed before (a second click);
 *  - expired: genuine but past its 7 days, or replaced by a newer link: the page offers a new one (resendConfirmation
 *    with `via: "link"` for `accountId` and `email`);
 *  - invalid: forged, malformed, of an unknown account or contact, or the double opt-in was withdrawn. */
export interface ConfirmationLink {
  readonly state: "pending" | "confirmed" | "already_confirmed" | "expired" | "invalid"
  readonly accountId: AccountId | null
  readonly email: string | null
  /** Where the browser goes after confirming (https only), or null for the plain confirmation page. */
  readonly redirectUrl: string | null
  /** The reason in plain words, for the page. */
  readonly detail: string
}

/** What the confirmation page shows for a link. `pending`: the button may confirm; `confirmed`: it just did; `already`:
 *  the link was used; `expired`: older than 7 days; `replaced`: a newer link was sent since; `none`: the address is no
 *  longer waiting for a confirmation; `invalid`: not a genuine confirmation token. */
export type ConfirmationPageState =
  | { readonly kind: "pending" | "already" | "expired" | "replaced"; readonly email: string }
  | { readonly kind: "confirmed"; readonly email: string; readonly redirectUrl: string | null }
  | { readonly kind: "none" | "invalid" }

/** What "Send me a new link" did: `sent`, `paused` (platform sending is paused: nothing sent) or `nothing` (no
 *  confirmation outstanding for the address). */
export interface RenewedLink {
  readonly email: EmailAddress
  readonly outcome: "sent" | "paused" | "nothing"
}

const pageState = (value: ConfirmationPageState): ConfirmationPageState => value

/** Whether following the link with `request` confirms, in the host's mode; logs at debug which signal marked an
 *  automated fetch. */
export const confirmsOnVisit = (request: LinkRequest) =>
  Effect.gen(function* () {
    const mode = (yield* SubscriptionsConfig).confirmation ?? "link"
    const visit = classifyLinkVisit(request)
    if (visit.kind === "automated") yield* Effect.logDebug(`confirmation link fetched by an automated client (${visit.signal}): the button is shown`)
    return confirmsOnFollow(mode, visit)
  })

export class ConfirmationLinks extends Effect.Service<ConfirmationLinks>()("@mailroom/core/ConfirmationLinks", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const method = yield* serviceMethod
    const tokens = yield* Tokens
    const steps = yield* subscriptionSteps
    const resolver = yield* linkTokens
    const now = currentDate

    const invalid = (detail: string): ConfirmationLink => ({ state: "invalid", accountId: null, email: null, redirectUrl: null, detail })

    /** Reads a confirmation token and, with `apply`, confirms. */
    const follow = (token: string, apply: boolean) =>
      Effect.gen(function* () {
        const inspected = yield* Effect.either(tokens.inspect("confirm", token))
        if (Either.isLeft(inspected)) return invalid(inspected.left.detail)
        const { claims, expired } = inspected.right
        const accountId = claims.a as AccountId
        const email = claims.r
        const about = { accountId, email }
        const account = Option.getOrUndefined(yield* store.accounts.findById(accountId))
        if (account === undefined) return invalid("the account is unknown")
        const contact = Option.getOrUndefined(yield* store.contacts.findByEmail(accountId, email as EmailAddress))
        if (contact === undefined) return invalid("the address is no longer a contact")
        const pending = Option.getOrUndefined(yield* store.confirmations.find(accountId, contact.id))
        if (pending === undefined || pending.nonce !== claims.n) {
          if (contact.status === "ACTIVE" && contact.confirmedAt !== null) {
            return { state: "already_confirmed", ...about, redirectUrl: null, detail: "the subscription is confirmed already" } satisfies ConfirmationLink
          }
          if (pending !== undefined && contact.status === "PENDING") {
            return { state: "expired", ...about, redirectUrl: null, detail: "a newer confirmation link replaced this one" } satisfies ConfirmationLink
          }
          return invalid("this confirmation is no longer outstanding")
        }
        const at = yield* now
        if (expired || pending.expiresAt.getTime() <= at.getTime() || contact.status !== "PENDING") {
          return contact.status === "PENDING"
            ? { state: "expired", ...about, redirectUrl: null, detail: "the confirmation link has expired" } satisfies ConfirmationLink
            : invalid("this confirmation is no longer outstanding")
        }
        if (!apply) return { state: "pending", ...about, redirectUrl: pending.redirectUrl, detail: "the confirmation is outstanding" } satisfies ConfirmationLink
        yield* store.contacts.update({ ...contact, status: "ACTIVE", confirmedAt: at, updatedAt: at })
        yield* store.confirmations.delete(accountId, contact.id)
        yield* store.events.append([confirmedEvent(steps.event(accountId, at), {
          contactId: contact.id,
          email: contact.email,
          formId: pending.formId,
          listIds: pending.listIds,
          topicIds: pending.topicIds,
          confirmedAt: at,
        })])
        return { state: "confirmed", ...about, redirectUrl: pending.redirectUrl, detail: "the subscription is confirmed" } satisfies ConfirmationLink
      })

    /** What a confirmation link is worth without changing anything (state pending instead of confirmed): for the page
     *  that shows a button, so that a HEAD, a prefetch or a mail scanner never confirms. */
    const inspect = method("ConfirmationLinks.inspect")(function* (token: string) {
      return yield* follow(token, false)
    })

    /** Confirms a double opt-in from its link token: the PENDING contact becomes ACTIVE with confirmedAt, the pending
     *  confirmation goes and contact.confirmed fires, in one transaction. Never fails on a bad token: the answer's
     *  state says what the page should tell (confirmed, already_confirmed, expired, invalid). */
    const confirm = method("ConfirmationLinks.confirm")(function* (token: string) {
      return yield* follow(token, true)
    }, store.transaction)

    /** The page's state for a link, read (`apply` false) or followed (`apply` true). */
    const pageOf = (token: string, apply: boolean) =>
      Effect.gen(function* () {
        const inspected = yield* Effect.either(tokens.inspect("confirm", token))
        if (Either.isLeft(inspected)) return pageState({ kind: "invalid" })
        const link = yield* (apply ? confirm(token) : inspect(token))
        const email = link.email ?? inspected.right.claims.r
        switch (link.state) {
          case "pending":
            return pageState({ kind: "pending", email })
          case "confirmed":
            return pageState({ kind: "confirmed", email, redirectUrl: link.redirectUrl })
          case "already_confirmed":
            return pageState({ kind: "already", email })
          case "expired":
            // The service says "expired" for both; a token still within its 7 days was replaced by a newer one.
            return pageState({ kind: inspected.right.expired ? "expired" : "replaced", email })
          case "invalid":
            return pageState({ kind: "none" })
        }
      })

    /** GET (and HEAD) /c/<token>: a person's browser confirms at once in `link` mode; anything else reads the link. */
    const open = method("ConfirmationLinks.open")(function* (token: string, request: LinkRequest) {
      return yield* pageOf(token, yield* confirmsOnVisit(request))
    })

    /** POST /c/<token>, the page's button: confirms. */
    const press = method("ConfirmationLinks.press")(function* (token: string) {
      return yield* pageOf(token, true)
    })

    /** POST /c/<token>/resend, "Send me a new link" from an expired or replaced link, whose signature still says who
     *  asked: a new link, valid 7 days, for a PENDING contact of the API or a signup form. INVALID_TOKEN for a token
     *  that is not a genuine confirmation token or names an account or address that does not exist. */
    const renew = method("ConfirmationLinks.renew")(function* (token: string) {
      const { claims } = yield* tokens.inspect("confirm", token)
      const resolved = yield* resolver.resolveClaims(claims)
      const outcome = yield* steps.resend(resolved.account, resolved.email, true).pipe(
        Effect.map(({ confirmationSent }) => (confirmationSent ? "sent" : "paused") as RenewedLink["outcome"]),
        Effect.catchTags({
          NoPendingConfirmation: () => Effect.succeed("nothing" as const),
          ContactNotFound: () => Effect.succeed("nothing" as const),
        }),
      )
      return { email: resolved.email, outcome } satisfies RenewedLink
    })

    return { inspect, confirm, open, press, renew } as const
  }),
  dependencies: [SendingPause.Default],
}) {}
