/** The unsubscribe links of mail, without an API key (the signed token is the credential): POST /unsubscribe, the
 *  RFC 8058 one-click POST, and the unsubscribe page `{TRACK_URL}/u/<token>` with its button. Each resolves the token
 *  to its account and recipient and unsubscribes through the Subscriptions service with the path's method, so every
 *  path applies the same rules and fires the same events. Spec: audience "Public unsubscribe endpoints",
 *  "Authentication" 3; docs/consent.md "Links in mail". */
import { Effect } from "effect"
import type { EmailAddress } from "../domain/email.js"
import type { UnsubscribeScope } from "../domain/subscription.js"
import { linkScope, type PublicUnsubscribeBody, scopeOf, topicOf } from "../domain/unsubscribe-link.js"
import { linkTokens, type ResolvedToken } from "../internal/link-tokens.js"
import { Lists } from "./lists.js"
import { Subscriptions } from "./subscriptions.js"
import { Tokens } from "./tokens.js"
import { Topics } from "./topics.js"
import { serviceMethod } from "./tracing.js"

/** What an unsubscribe link makes the recipient leave, as its page names it: everything the account sends, a list by
 *  its name, or a topic by its public label (else its name) and description. */
export type Leaving =
  | { readonly kind: "all"; readonly sender: string | null }
  | { readonly kind: "list"; readonly name: string }
  | { readonly kind: "topic"; readonly name: string; readonly description: string | null }

/** What the unsubscribe page shows: the recipient, what the link leaves, and the recipient's preference centre. */
export interface UnsubscribePage {
  readonly email: EmailAddress
  readonly leaving: Leaving
  readonly preferencesUrl: string
}

const leaving = (value: Leaving): Leaving => value

export class LinkUnsubscribes extends Effect.Service<LinkUnsubscribes>()("@mailroom/core/LinkUnsubscribes", {
  effect: Effect.gen(function* () {
    const method = yield* serviceMethod
    const tokens = yield* Tokens
    const subscriptions = yield* Subscriptions
    const lists = yield* Lists
    const topics = yield* Topics
    const resolver = yield* linkTokens

    /** Unsubscribes through the service, with the path's method and the campaign the token names. */
    const unsubscribeRecipient = (
      resolved: ResolvedToken,
      target: { readonly scope: UnsubscribeScope; readonly listId: string | null; readonly topicId: string | null },
      reason: string | null,
      via: "link" | "one_click",
    ) =>
      subscriptions.unsubscribe(resolved.account, {
        email: resolved.email,
        scope: target.scope,
        listId: target.listId,
        topicId: target.topicId,
        reason,
      }, { method: via, ...(resolved.claims.c === undefined ? {} : { campaignId: resolved.claims.c }) })

    /** How the unsubscribe page names what the link leaves; the topic's public label when it has one. */
    const leavingOf = (resolved: ResolvedToken) =>
      Effect.gen(function* () {
        const { scope, listId, topicId } = linkScope(resolved.claims)
        if (scope === "topic") {
          const { topic } = yield* topics.get(resolved.account, topicId)
          return leaving({ kind: "topic", name: topic.publicLabel ?? topic.name, description: topic.publicDescription })
        }
        if (scope === "list") return leaving({ kind: "list", name: (yield* lists.get(resolved.account, listId)).list.name })
        return leaving({ kind: "all", sender: resolved.account.name })
      })

    /** The preference centre's link for the recipient of an unsubscribe link, which the unsubscribe pages offer. */
    const preferencesUrlOf = (resolved: ResolvedToken) =>
      tokens.preferencesUrl({ accountId: resolved.account.id, recipient: resolved.email })

    /** POST /unsubscribe (method `link`): the body's scope, list and topic (under any of the topic's names), else the
     *  list or topic the token names. INVALID_TOKEN for a token that is not a valid unsubscribe token. */
    const unsubscribe = method("LinkUnsubscribes.unsubscribe")(function* (body: typeof PublicUnsubscribeBody.Type) {
      const resolved = yield* resolver.resolveToken("unsubscribe", body.token)
      const target = yield* scopeOf(
        body.scope ?? "all",
        body.listId ?? resolved.claims.l,
        (yield* topicOf(body)) ?? resolved.claims.t,
      )
      const { changed } = yield* unsubscribeRecipient(resolved, target, body.reason ?? null, "link")
      return { scope: target.scope, changed }
    })

    /** POST /unsubscribe/one-click?token= (RFC 8058, method `one_click`): unsubscribes from all marketing mail. A token
     *  that cannot be resolved changes nothing and is not reported: the caller learns nothing about which tokens hold. */
    const oneClick = method("LinkUnsubscribes.oneClick")(function* (token: string) {
      yield* resolver.resolveToken("unsubscribe", token).pipe(
        Effect.flatMap((resolved) => unsubscribeRecipient(resolved, { scope: "all", listId: null, topicId: null }, null, "one_click")),
        Effect.catchTag("InvalidToken", () => Effect.void),
      )
    })

    /** GET /u/<token>: what the page shows; changes nothing. */
    const page = method("LinkUnsubscribes.page")(function* (token: string) {
      const resolved = yield* resolver.resolveToken("unsubscribe", token)
      return { email: resolved.email, leaving: yield* leavingOf(resolved), preferencesUrl: yield* preferencesUrlOf(resolved) } satisfies UnsubscribePage
    })

    /** POST /u/<token>, the page's button or a mailbox provider's one-click POST to the List-Unsubscribe URL: leaves
     *  what the token names (its topic, else its list, else everything), method `one_click`. */
    const press = method("LinkUnsubscribes.press")(function* (token: string) {
      const resolved = yield* resolver.resolveToken("unsubscribe", token)
      const left = yield* leavingOf(resolved)
      const { changed } = yield* unsubscribeRecipient(resolved, linkScope(resolved.claims), null, "one_click")
      return { email: resolved.email, leaving: left, preferencesUrl: yield* preferencesUrlOf(resolved), changed }
    })

    return { unsubscribe, oneClick, page, press } as const
  }),
}) {}
