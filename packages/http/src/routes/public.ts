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
  type ConfirmationPageState, ConfirmationLinks, LinkUnsubscribes, LinksConfig, PublicUnsubscribeBody, type UnsubscribeScope,
  ValidationFailed,
} from "@mailroom/core"
import { Effect } from "effect"
import { type Context, Hono } from "hono"
import { readBody } from "../body.js"
import type { MailroomEnv } from "../env.js"
import {
  confirmedPage, confirmPage, consentPageResponse, invalidLinkPage, newLinkPage, nothingToConfirmPage,
  type Leaving, type PageContent, staleConfirmationPage, unsubscribedPage, unsubscribePage,
} from "../pages/consent-pages.js"
import { type BrandLook, tokenLook } from "../pages/brand-look.js"
import type { PageTheme } from "../pages/layout.js"
import { decodeInput, readJson } from "../validation.js"

export { PublicUnsubscribeBody }

/** Form bodies of one-click POSTs are a single short field; anything larger is not read. */
const formBodyLimitBytes = 64 * 1024

const messageOf = (scope: UnsubscribeScope, changed: boolean) => {
  const what = scope === "all" ? "all mail" : scope === "list" ? "the list" : "the topic"
  return changed ? `Unsubscribed from ${what}.` : `Already unsubscribed from ${what}.`
}

/** A page for a link whose token failed, or whose list or topic is gone. */
const brokenLink = (kind: "confirm" | "unsubscribe") => () => Effect.succeed(invalidLinkPage(kind))

/** The page of a confirmation link in `state`; an expired or replaced link offers a new one through `<token>/resend`. */
const confirmationPage = (state: ConfirmationPageState, token: string) => {
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

export interface PublicRouteOptions {
  /** The look of the unsubscribe and confirmation pages (docs/hosted-pages.md). */
  readonly theme: PageTheme
}

export const publicRoutes = ({ theme }: PublicRouteOptions) => {
  const pageResponse = (page: PageContent, look: PageTheme = theme) => consentPageResponse(page, look)
  /** The page in the brand of the account the link's token names (the host's theme otherwise). */
  const lookOf = (purpose: "unsubscribe" | "confirm", c: Context<MailroomEnv>) => tokenLook(theme, purpose, c.req.param("token") ?? "")
  /** What an unsubscribe leaves, named by the brand when the account has one. */
  const branded = (leaving: Leaving, look: BrandLook): Leaving =>
    leaving.kind === "all" && look.brandName !== null ? { ...leaving, sender: look.brandName } : leaving
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
        const { scope, changed } = yield* (yield* LinkUnsubscribes).unsubscribe(body)
        return c.json({ success: true, message: messageOf(scope, changed), data: { scope, changed } })
      })))
    .post("/v1/unsubscribe/one-click", (c) =>
      c.get("run")(Effect.gen(function* () {
        const token = yield* queryToken(c)
        yield* readOneClickBody(c.req.raw)
        // Always 200 once a token is present, with the same message whether or not anything changed: a caller learns
        // nothing about which tokens hold.
        yield* (yield* LinkUnsubscribes).oneClick(token)
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
        const look = yield* lookOf("unsubscribe", c)
        const page = yield* (yield* LinkUnsubscribes).page(c.req.param("token"))
        return pageResponse(unsubscribePage(page.email, branded(page.leaving, look), page.preferencesUrl, look.unsubscribeMessage), look.theme)
      }).pipe(
        Effect.catchTags({ InvalidToken: brokenLink("unsubscribe"), ListNotFound: brokenLink("unsubscribe"),
          ResourceNotFound: brokenLink("unsubscribe") }),
        Effect.map((answer) => answer instanceof Response ? answer : pageResponse(answer)),
      )))
    .post("/u/:token", (c) =>
      c.get("run")(Effect.gen(function* () {
        yield* readOneClickBody(c.req.raw)
        const look = yield* lookOf("unsubscribe", c)
        const done = yield* (yield* LinkUnsubscribes).press(c.req.param("token"))
        return pageResponse(unsubscribedPage(done.email, branded(done.leaving, look), done.changed, done.preferencesUrl), look.theme)
      }).pipe(
        Effect.catchTags({ InvalidToken: brokenLink("unsubscribe"), ListNotFound: brokenLink("unsubscribe"),
          ResourceNotFound: brokenLink("unsubscribe") }),
        Effect.map((answer) => answer instanceof Response ? answer : pageResponse(answer)),
      )))
    .get("/c/:token", (c) =>
      c.get("run")(Effect.gen(function* () {
        // A person's browser confirms on following the link; HEAD, prefetches and robots get the page with the button.
        const state = yield* (yield* ConfirmationLinks).open(c.req.param("token"), c.req.raw)
        return state.kind === "confirmed" && state.redirectUrl !== null
          ? c.redirect(state.redirectUrl, 303)
          : pageResponse(confirmationPage(state, c.req.param("token")), (yield* lookOf("confirm", c)).theme)
      })))
    .post("/c/:token", (c) =>
      c.get("run")(Effect.gen(function* () {
        yield* readOneClickBody(c.req.raw)
        const state = yield* (yield* ConfirmationLinks).press(c.req.param("token"))
        return state.kind === "confirmed" && state.redirectUrl !== null
          ? c.redirect(state.redirectUrl, 303)
          : pageResponse(confirmationPage(state, c.req.param("token")), (yield* lookOf("confirm", c)).theme)
      })))
    .post("/c/:token/resend", (c) =>
      c.get("run")(Effect.gen(function* () {
        yield* readOneClickBody(c.req.raw)
        // An expired link may ask for a new one: its signature still says who asked.
        const look = yield* lookOf("confirm", c)
        const { email, outcome } = yield* (yield* ConfirmationLinks).renew(c.req.param("token"))
        return pageResponse(outcome === "nothing" ? nothingToConfirmPage() : newLinkPage(email, outcome === "sent"), look.theme)
      }).pipe(
        Effect.catchTags({ InvalidToken: brokenLink("confirm") }),
        Effect.map((answer) => answer instanceof Response ? answer : pageResponse(answer)),
      )))
}
