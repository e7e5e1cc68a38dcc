/** Tokens: makes and checks the signed, expiring tokens of mail links, and builds the links. The secret is read once,
 *  when the service is built (MAILROOM_SECRET, or the one generated and kept in settings); a key per purpose is derived
 *  from it then. Links: confirmation `{APP_URL}/c/<token>`, unsubscribe `{TRACK_URL}/u/<token>`, preferences
 *  `{APP_URL}/p/<token>` (CONTRACT.md). */
import { Clock, Context, Effect } from "effect"
import {
  deriveTokenKey, signToken, type TokenClaims, tokenLifetimesMs, type TokenPurpose, tokenPurposes, verifyToken,
} from "../domain/token.js"
import type { TrackingLinkSet } from "../domain/track-links.js"
import { Accounts } from "./accounts.js"

export interface LinkOrigins {
  /** Origin of hosted pages: confirmation and preference links. */
  readonly appUrl: string
  /** Origin of tracking and unsubscribe links; APP_URL when unset. */
  readonly trackUrl?: string | undefined
}

/** Where links point; the facade provides it from its appUrl and trackUrl. */
export class LinksConfig extends Context.Reference<LinksConfig>()("@mailroom/core/LinksConfig", {
  defaultValue: (): LinkOrigins => ({ appUrl: "http://localhost:3000" }),
}) {}

/** What a link is about: the account and recipient always; a list, topic, campaign or confirmation nonce when known. */
export interface LinkSubject {
  readonly accountId: string
  readonly recipient: string
  readonly listId?: string | undefined
  readonly topicId?: string | undefined
  readonly campaignId?: string | undefined
  readonly nonce?: string | undefined
  /** The origin of a brand's verified tracking domain (`https://<hostname>`): it replaces TRACK_URL's origin, and
   *  APP_URL's for the preference link, in the links made for this subject. Never signed into a token. */
  readonly origin?: string | undefined
}

const origin = (url: string) => url.replace(/\/+$/, "")

export class Tokens extends Effect.Service<Tokens>()("@mailroom/core/Tokens", {
  effect: Effect.gen(function* () {
    const accounts = yield* Accounts
    const links = yield* LinksConfig
    const secret = yield* accounts.secret
    const keys = Object.fromEntries(tokenPurposes.map((purpose) => [purpose, deriveTokenKey(secret, purpose)])) as
      Record<TokenPurpose, Buffer>
    const appUrl = origin(links.appUrl)
    const trackUrl = origin(links.trackUrl ?? links.appUrl)

    /** A token of `purpose` about `subject`, valid for the purpose's lifetime from now. */
    const make = (purpose: TokenPurpose, subject: LinkSubject) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const claims: TokenClaims = {
          p: purpose,
          a: subject.accountId,
          r: subject.recipient,
          ...(subject.listId !== undefined ? { l: subject.listId } : {}),
          ...(subject.topicId !== undefined ? { t: subject.topicId } : {}),
          ...(subject.campaignId !== undefined ? { c: subject.campaignId } : {}),
          ...(subject.nonce !== undefined ? { n: subject.nonce } : {}),
          e: now + tokenLifetimesMs[purpose],
        }
        return { token: signToken(keys[purpose], claims), expiresAt: new Date(claims.e) }
      })

    /** The claims of a token of `purpose`, or INVALID_TOKEN (forged, malformed, truncated, expired, other purpose). */
    const verify = (purpose: TokenPurpose, token: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => verifyToken(keys[purpose], purpose, token, now))

    /** The claims of a genuine token of `purpose` whether or not it has expired, with `expired` telling which: for a page
     *  that explains an expired link and offers a new one. INVALID_TOKEN when forged, malformed or of another purpose. */
    const inspect = (purpose: TokenPurpose, token: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.map(verifyToken(keys[purpose], purpose, token, Number.NEGATIVE_INFINITY), (claims) =>
          ({ claims, expired: claims.e <= now })))

    const confirmationUrl = (subject: LinkSubject) =>
      Effect.map(make("confirm", subject), ({ token, expiresAt }) => ({ url: `${appUrl}/c/${token}`, expiresAt }))
    const unsubscribeUrl = (subject: LinkSubject) =>
      Effect.map(make("unsubscribe", subject), ({ token }) => `${subject.origin ?? trackUrl}/u/${token}`)
    const preferencesUrl = (subject: LinkSubject) =>
      Effect.map(make("preferences", subject), ({ token }) => `${subject.origin ?? appUrl}/p/${token}`)

    /** The links of tracked mail for one recipient of a message (`{TRACK_URL}/o/<token>`, `{TRACK_URL}/l/<token>`,
     *  CONTRACT.md "Tracking links"; on the subject's tracking-domain origin when it has one), signed now; `keep` lists the link prefixes that are never rewritten. */
    const trackingLinks = (subject: LinkSubject & { readonly messageId: string }) =>
      Effect.map(Clock.currentTimeMillis, (now): TrackingLinkSet => {
        const base = {
          a: subject.accountId,
          r: subject.recipient,
          m: subject.messageId,
          ...(subject.campaignId !== undefined ? { c: subject.campaignId } : {}),
          s: now,
        }
        const track = subject.origin ?? trackUrl
        const app = subject.origin ?? appUrl
        const sign = (purpose: "open" | "click", extra: Partial<TokenClaims>) =>
          signToken(keys[purpose], { p: purpose, ...base, ...extra, e: now + tokenLifetimesMs[purpose] })
        return {
          pixel: `${track}/o/${sign("open", {})}`,
          click: (target, position) => `${track}/l/${sign("click", { u: target, i: position })}`,
          honeypot: `${track}/l/${sign("click", { h: 1 })}`,
          keep: [...new Set([track, trackUrl])].flatMap((at) => [`${at}/u/`, `${at}/o/`, `${at}/l/`])
            .concat([...new Set([app, appUrl])].flatMap((at) => [`${at}/p/`, `${at}/c/`])),
        }
      })

    return { make, verify, inspect, confirmationUrl, unsubscribeUrl, preferencesUrl, trackingLinks } as const
  }),
  dependencies: [Accounts.Default],
}) {}
