/** The public consent routes that mail links reach, without an API key: the signed token is the credential. Spec:
 *  audience "Public unsubscribe endpoints", "Authentication" 3, "Moves made by other operations" (the PENDING rows);
 *  CONTRACT.md "Streams and links in mail".
 *
 *  - POST /v1/unsubscribe: JSON { token, scope, listId, topicId, reason } (method `link`).
 *  - POST /v1/unsubscribe/one-click?token=: RFC 8058; unsubscribes from all marketing mail (method `one_click`).
 *  - GET /v1/unsubscribe/one-click?token=: never unsubscribes; 303 to the unsubscribe page.
 *  - GET /u/<token>: the unsubscribe page; POST /u/<token> (its button, or a mailbox provider's one-click POST to the
 *    List-Unsubscribe URL) unsubscribes from what the token names (method `one_click`).
 *  - GET /c/<token>: a person's browser confirms the double opt-in at once and is redirected to the subscription's
 *    redirectUrl or shown the confirmed page; HEAD, prefetches and automated clients (and everyone when the host
 *    chose `confirmation: "button"`) get the page whose button, POST /c/<token>, confirms. POST /c/<token>/resend
 *    sends a new link.
 *
 *  Apart from a person's GET of a confirmation link, a GET or HEAD never changes anything, so link scanners that
 *  fetch links ahead of the recipient neither unsubscribe nor confirm anyone (docs/consent.md, "Link scanners"). */
import {
  Accounts, type Account, confirmsOnVisit, type EmailAddress, InvalidToken, LinksConfig, Lists, parseEmail, type TokenClaims,
  Tokens, Topics, type UnsubscribeScope, UnsubscribeScopeInput, ValidationFailed,
} from "@mailroom/core"
import { Effect, Schema } from "effect"
import { type Context, Hono } from "hono"
import { readBody } from "../body.js"
import type { MailroomEnv } from "../env.js"
import {
  confirmedPage, confirmPage, consentPageResponse, invalidLinkPage, type Leaving, newLinkPage, nothingToConfirmPage,
  type PageContent, staleConfirmationPage, unsubscribedPage, unsubscribePage,
} from "../pages/consent-pages.js"
import type { PageTheme } from "../pages/layout.js"
import { decodeInput, readJson } from "../validation.js"
import { type ConfirmationState, confirmationLink, resendConfirmation, unsubscribeRecipient } from "./consent-actions.js"

/** Form bodies of one-click POSTs are a single short field; anything larger is not read. */
const formBodyLimitBytes = 64 * 1024

/** POST /unsubscribe's body. `suppressionGroupId` and `category` are legacy names of `topicId`. Unknown fields, a
 *  bare `contactId` among them, are refused. */
export const PublicUnsubscribeBody = Schema.Struct({
  token: Schema.String.pipe(Schema.minLength(1, { message: () => "is required" })),
  scope: Schema.optional(UnsubscribeScopeInput),
  listId: Schema.optional(Schema.String),
  topicId: Schema.optional(Schema.String),
  suppressionGroupId: Schema.optional(Schema.String),
  category: Schema.optional(Schema.String),
  reason: Schema.optional(Schema.String.pipe(Schema.maxLength(500, { message: () => "is at most 500 characters" }))),
})

/** What a verified unsubscribe token resolves to: the account it names and the recipient's address. */
interface Resolved {
  readonly account: Account
  readonly email: EmailAddress
  readonly claims: TokenClaims
}

/** The account and recipient of a genuine, unexpired token of `purpose`, or INVALID_TOKEN: forged, malformed,
 *  truncated, expired, of another purpose, or naming an account or address that does not exist (unmatched). */
const resolveToken = (purpose: "unsubscribe" | "confirm", token: string) =>
  Effect.gen(function* () {
    const tokens = yield* Tokens
    const claims = yield* tokens.verify(purpose, token)
    return yield* resolveClaims(claims)
  })

const resolveClaims = (claims: TokenClaims) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const account = yield* accounts.get(claims.a).pipe(
      Effect.catchTag("ResourceNotFound", () => Effect.fail(new InvalidToken({ detail: "the link matches no account" }))),
    )
    const email = parseEmail(claims.r)
    if (email === undefined) return yield* Effect.fail(new InvalidToken({ detail: "the link matches no address" }))
    return { account, email, claims } satisfies Resolved
  })

/** Which topic id the body names, under any of its three names; they must agree when several are sent. */
const topicOf = (body: typeof PublicUnsubscribeBody.Type): Effect.Effect<string | undefined, ValidationFailed> => {
  const named = (["topicId", "suppressionGroupId", "category"] as const).filter((field) => body[field] !== undefined)
  const values = new Set(named.map((field) => body[field]))
  if (values.size > 1) {
    return Effect.fail(new ValidationFailed({
      field: named[1]!,
      detail: `names another topic than ${named[0]}; send one of topicId, suppressionGroupId, category`,
    }))
  }
  return Effect.succeed(named.length === 0 ? undefined : body[named[0]!])
}

/** The scope and its id for an unsubscribe: the body's, or else the list or topic the token names. */
const scopeOf = (scope: UnsubscribeScope, listId: string | undefined, topicId: string | undefined) => {
  if (scope === "list" && listId === undefined) {
    return Effect.fail(new ValidationFailed({ field: "listId", detail: "is required when scope is list" }))
  }
  if (scope === "topic" && topicId === undefined) {
    return Effect.fail(new ValidationFailed({ field: "topicId", detail: "is required when scope is topic" }))
  }
  return Effect.succeed({
    scope,
    listId: scope === "list" ? listId! : null,
    topicId: scope === "topic" ? topicId! : null,
  })
}

const messageOf = (scope: UnsubscribeScope, changed: boolean) => {
  const what = scope === "all" ? "all mail" : scope === "list" ? "the list" : "the topic"
  return changed ? `Unsubscribed from ${what}.` : `Already unsubscribed from ${what}.`
}

/** What the token of an unsubscribe link makes the recipient leave: its topic, else its list, else everything. */
const linkScope = (claims: TokenClaims) =>
  claims.t !== undefined ? { scope: "topic" as const, listId: null, topicId: claims.t }
  : claims.l !== undefined ? { scope: "list" as const, listId: claims.l, topicId: null }
  : { scope: "all" as const, listId: null, topicId: null }

const leaving = (value: Leaving): Leaving => value

/** How the unsubscribe page names what the link leaves; the topic's public label when it has one. */
const leavingOf = (resolved: Resolved) =>
  Effect.gen(function* () {
    const { scope, listId, topicId } = linkScope(resolved.claims)
    if (scope === "topic") {
      const { topic } = yield* (yield* Topics).get(resolved.account, topicId)
      return leaving({ kind: "topic", name: topic.publicLabel ?? topic.name, description: topic.publicDescription })
    }
    if (scope === "list") return leaving({ kind: "list", name: (yield* (yield* Lists).get(resolved.account, listId)).list.name })
    return leaving({ kind: "all", sender: resolved.account.name })
  })

/** A page for a link whose token failed, or whose list or topic is gone. */
const brokenLink = (kind: "confirm" | "unsubscribe") => () => Effect.succeed(invalidLinkPage(kind))

/** The page of a confirmation link in `state`; an expired or replaced link offers a new one through `<token>/resend`. */
const confirmationPage = (state: ConfirmationState, token: string) => {
  switch (state.kind) {
    case "pending":
      return confirmPage(state.email)
    case "confirmed":
      return confirmedPage(state.email, false)
    case "already":
      return confirmedPage(state.email, true)
    case "expired":
    case "replaced":
      return staleConfirmationPage(state.email, state.kind, `${token}/resend`)
    case "none":
      return nothingToConfirmPage()
    case "invalid":
      return invalidLinkPage("confirm")
  }
}

/** Reads a one-click POST body, `List-Unsubscribe=One-Click` as application/x-www-form-urlencoded or multipart/form-data
 *  (RFC 8058 names the first; mailbox providers send both). The answer does not depend on it: a POST is a deliberate
 *  act that link scanners do not make, so a provider that sends another body or none still unsubscribes the
 *  recipient. A body that cannot be read is ignored. */
export const readOneClickBody = (request: Request): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const type = (request.headers.get("content-type") ?? "").toLowerCase()
    const bytes = yield* readBody(request, formBodyLimitBytes)
    if (bytes.length === 0) return false
    if (type.startsWith("multipart/form-data")) {
      const form = yield* Effect.tryPromise(() =>
        new Request("http://body.invalid/", { method: "POST", headers: { "content-type": type }, body: new Blob([bytes.slice().buffer]) }).formData())
      return form.get("List-Unsubscribe") === "One-Click"
    }
    return new URLSearchParams(new TextDecoder().decode(bytes)).get("List-Unsubscribe") === "One-Click"
  }).pipe(Effect.orElseSucceed(() => false))

/** The token of the one-click query string, or VALIDATION_ERROR naming `token`. */
const queryToken = (c: Context<MailroomEnv>) => {
  const token = c.req.query("token")
  return token === undefined || token === ""
    ? Effect.fail(new ValidationFailed({ field: "token", detail: "is required: pass the token of the unsubscribe link as ?token=" }))
    : Effect.succeed(token)
}

/** The preference centre's link for the recipient of an unsubscribe link, which the unsubscribe pages offer. */
const preferencesUrlOf = (resolved: Resolved) =>
  Effect.flatMap(Tokens, (tokens) => tokens.preferencesUrl({ accountId: resolved.account.id, recipient: resolved.email }))

export interface PublicRouteOptions {
  /** The look of the unsubscribe and confirmation pages (docs/hosted-pages.md). */
  readonly theme: PageTheme
}

export const publicRoutes = ({ theme }: PublicRouteOptions) => {
  const pageResponse = (page: PageContent) => consentPageResponse(page, theme)
  return new Hono<MailroomEnv>()
    .post("/v1/unsubscribe", (c) =>
      c.get("run")(Effect.gen(function* () {
        const json = yield* readJson<Record<string, unknown>>(c)
        if ("contactId" in json && !("token" in json)) {
          return yield* Effect.fail(new ValidationFailed({
            field: "contactId",
            detail: "is not accepted: send the token of the unsubscribe link as token",
          }))
        }
        const body = yield* decodeInput(PublicUnsubscribeBody, json, { onExcessProperty: "error" })
        const resolved = yield* resolveToken("unsubscribe", body.token)
        const target = yield* scopeOf(
          body.scope ?? "all",
          body.listId ?? resolved.claims.l,
          (yield* topicOf(body)) ?? resolved.claims.t,
        )
        const { changed } = yield* unsubscribeRecipient(resolved.account, {
          email: resolved.email,
          ...target,
          reason: body.reason ?? null,
          campaignId: resolved.claims.c ?? null,
        }, "link")
        return c.json({ success: true, message: messageOf(target.scope, changed), data: { scope: target.scope, changed } })
      })))
    .post("/v1/unsubscribe/one-click", (c) =>
      c.get("run")(Effect.gen(function* () {
        const token = yield* queryToken(c)
        yield* readOneClickBody(c.req.raw)
        // Always 200 once a token is present, with the same message whether or not anything changed: a caller learns
        // nothing about which tokens hold.
        yield* resolveToken("unsubscribe", token).pipe(
          Effect.flatMap((resolved) => unsubscribeRecipient(resolved.account, {
            email: resolved.email, scope: "all", listId: null, topicId: null, reason: null,
            campaignId: resolved.claims.c ?? null,
          }, "one_click")),
          Effect.catchTag("InvalidToken", () => Effect.void),
        )
        return c.json({ success: true, message: "The unsubscribe request was received." })
      })))
    .get("/v1/unsubscribe/one-click", (c) =>
      c.get("run")(Effect.gen(function* () {
        const token = yield* queryToken(c)
        const links = yield* LinksConfig
        const origin = (links.trackUrl ?? links.appUrl).replace(/\/+$/, "")
        return c.redirect(`${origin}/u/${encodeURIComponent(token)}`, 303)
      })))
    .get("/u/:token", (c) =>
      c.get("run")(Effect.gen(function* () {
        const resolved = yield* resolveToken("unsubscribe", c.req.param("token"))
        return pageResponse(unsubscribePage(resolved.email, yield* leavingOf(resolved), yield* preferencesUrlOf(resolved)))
      }).pipe(
        Effect.catchTags({ InvalidToken: brokenLink("unsubscribe"), ListNotFound: brokenLink("unsubscribe"),
          ResourceNotFound: brokenLink("unsubscribe") }),
        Effect.map((answer) => answer instanceof Response ? answer : pageResponse(answer)),
      )))
    .post("/u/:token", (c) =>
      c.get("run")(Effect.gen(function* () {
        yield* readOneClickBody(c.req.raw)
        const resolved = yield* resolveToken("unsubscribe", c.req.param("token"))
        const leaving = yield* leavingOf(resolved)
        const { changed } = yield* unsubscribeRecipient(resolved.account, {
          email: resolved.email, ...linkScope(resolved.claims), reason: null, campaignId: resolved.claims.c ?? null,
        }, "one_click")
        return pageResponse(unsubscribedPage(resolved.email, leaving, changed, yield* preferencesUrlOf(resolved)))
      }).pipe(
        Effect.catchTags({ InvalidToken: brokenLink("unsubscribe"), ListNotFound: brokenLink("unsubscribe"),
          ResourceNotFound: brokenLink("unsubscribe") }),
        Effect.map((answer) => answer instanceof Response ? answer : pageResponse(answer)),
      )))
    .get("/c/:token", (c) =>
      c.get("run")(Effect.gen(function* () {
        // A person's browser confirms on following the link; HEAD, prefetches and robots get the page with the button.
        const apply = yield* confirmsOnVisit(c.req.raw)
        const state = yield* confirmationLink(c.req.param("token"), apply)
        return state.kind === "confirmed" && state.redirectUrl !== null
          ? c.redirect(state.redirectUrl, 303)
          : pageResponse(confirmationPage(state, c.req.param("token")))
      })))
    .post("/c/:token", (c) =>
      c.get("run")(Effect.gen(function* () {
        yield* readOneClickBody(c.req.raw)
        const state = yield* confirmationLink(c.req.param("token"), true)
        return state.kind === "confirmed" && state.redirectUrl !== null
          ? c.redirect(state.redirectUrl, 303)
          : pageResponse(confirmationPage(state, c.req.param("token")))
      })))
    .post("/c/:token/resend", (c) =>
      c.get("run")(Effect.gen(function* () {
        yield* readOneClickBody(c.req.raw)
        // An expired link may ask for a new one: its signature still says who asked.
        const { claims } = yield* (yield* Tokens).inspect("confirm", c.req.param("token"))
        const resolved = yield* resolveClaims(claims)
        const outcome = yield* resendConfirmation(resolved.account, resolved.email)
        return outcome === "nothing" ? nothingToConfirmPage() : newLinkPage(resolved.email, outcome === "sent")
      }).pipe(
        Effect.catchTags({ InvalidToken: brokenLink("confirm") }),
        Effect.map(pageResponse),
      )))
}
