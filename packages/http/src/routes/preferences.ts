/** The hosted preference centre, `{APP_URL}/p/<token>` (the `{{preferences_url}}` of mail; Tokens.preferencesUrl). The
 *  signed token is the credential. GET shows the account's published topics in display order with their public labels
 *  and descriptions, the recipient's lists, and "unsubscribe from everything"; it never changes anything, so a link
 *  scanner that opens it does no harm. POST applies the changes through the Subscriptions service with the channel
 *  `preference_center`, so the same rules apply and the same events fire as through the API. docs/hosted-pages.md. */
import {
  Accounts, LinksConfig, type SubscriptionStatus, Subscriptions, Tokens, type Topic, Topics,
} from "@mailroom/core"
import { Effect, Exit } from "effect"
import { Hono, type Context } from "hono"
import { readBody } from "../body.js"
import type { HttpServices, MailroomEnv } from "../env.js"
import { accountLook } from "../pages/brand-look.js"
import { consentPageResponse, invalidLinkPage } from "../pages/consent-pages.js"
import { html, type SafeHtml } from "../pages/html.js"
import { checkboxField, fieldset, notice, type PageTheme, pageResponse, submitButton } from "../pages/layout.js"

const preferencesBodyLimitBytes = 16 * 1024

/** Who the link is for: the account and the address, or nothing for a forged, expired or foreign token. */
const recipientOf = (token: string) =>
  Effect.gen(function* () {
    const claims = yield* (yield* Tokens).verify("preferences", token)
    const account = yield* (yield* Accounts).get(claims.a)
    return { account, email: claims.r }
  })

const publishedTopics = (account: Parameters<Topics["list"]>[0]) =>
  Effect.map(
    Effect.flatMap(Topics, (topics) => topics.list(account, { page: 1, limit: 100, published: true })),
    (page): ReadonlyArray<Topic> => page.topics.map(({ topic }) => topic),
  )

const invalidLink = (theme: PageTheme) => consentPageResponse(invalidLinkPage("preferences"), theme)

interface View {
  readonly email: string
  readonly topics: ReadonlyArray<Topic>
  readonly status: SubscriptionStatus
  readonly message?: { readonly tone: "success" | "error"; readonly text: string } | undefined
}

const preferencesBody = (view: View): SafeHtml => {
  const subscribedTopics = new Set(view.status.topics.filter((t) => t.subscribed).map((t) => t.id))
  const everything = view.status.unsubscribedFromAll
  return html`<h1>Email preferences</h1>
<p>For <strong>${view.email}</strong></p>
${view.message && notice(view.message.tone, view.message.text)}
${everything && notice("info", "You are unsubscribed from all our mail. Ticking a topic or list does not change that.")}
<form method="post">
${view.topics.length > 0 && fieldset("Topics", view.topics.map((topic) => checkboxField({
    id: `topic-${topic.id}`, name: "topic", value: topic.id, label: topic.publicLabel ?? topic.name,
    hint: topic.publicDescription ?? undefined, checked: subscribedTopics.has(topic.id),
  })))}
${view.status.lists.length > 0 && fieldset("Lists", view.status.lists.map((list) => checkboxField({
    id: `list-${list.id}`, name: "list", value: list.id, label: list.name, checked: list.subscribed,
  })))}
${view.topics.length === 0 && view.status.lists.length === 0 && html`<p class="muted">There is nothing to choose from yet.</p>`}
<div class="actions">${submitButton("Save preferences", "primary", "action", "save")}</div>
<h2>Unsubscribe from everything</h2>
<p>Stop all marketing mail to this address.</p>
<div class="actions">${submitButton("Unsubscribe from everything", "danger", "action", "unsubscribe_all")}</div>
</form>`
}

export interface PreferenceOptions {
  readonly theme: PageTheme
}

export const preferenceRoutes = ({ theme }: PreferenceOptions) => {
  const show = (token: string, message?: View["message"], statusCode = 200) =>
    Effect.gen(function* () {
      const { account, email } = yield* recipientOf(token)
      const status = yield* (yield* Subscriptions).status(account, email)
      const topics = yield* publishedTopics(account)
      return pageResponse({
        title: "Email preferences", status: statusCode, theme: (yield* accountLook(theme, account.id)).theme,
        body: preferencesBody({ email, topics, status, message }),
      })
    })

  const answer = async (c: Context<MailroomEnv>, effect: Effect.Effect<Response, unknown, HttpServices>) => {
    const exit = await c.get("runExit")(effect)
    if (Exit.isSuccess(exit)) return exit.value
    const failure = exit.cause._tag === "Fail" ? exit.cause.error as { _tag?: string } : undefined
    if (failure?._tag === "InvalidToken" || failure?._tag === "ResourceNotFound") return invalidLink(theme)
    return c.get("answerFailure")(exit.cause)
  }

  return new Hono<MailroomEnv>()
    .get("/p/:token", (c) => {
      const saved = c.req.query("saved")
      const message = saved === "1" ? { tone: "success" as const, text: "Your preferences are saved." }
        : saved === "all" ? { tone: "success" as const, text: "You are unsubscribed from all our marketing mail." }
        : undefined
      return answer(c, show(c.req.param("token"), message))
    })
    .post("/p/:token", (c) => {
      const token = c.req.param("token")
      // Only the page itself posts here: a post from another site is refused before anything is read.
      const origin = c.req.header("origin")
      return answer(c, Effect.gen(function* () {
        const { account, email } = yield* recipientOf(token)
        const own = new URL((yield* LinksConfig).appUrl).origin
        if (origin !== undefined && origin !== own && origin !== "null") {
          return pageResponse({
            title: "Email preferences", status: 403, theme: (yield* accountLook(theme, account.id)).theme,
            body: html`<h1>Email preferences</h1>${notice("error", "Change your preferences on this page itself.")}`,
          })
        }
        const bytes = yield* readBody(c.req.raw, preferencesBodyLimitBytes)
        const form = new URLSearchParams(new TextDecoder().decode(bytes))
        const subscriptions = yield* Subscriptions
        const context = { channel: "preference_center" as const, clientAddress: c.get("clientAddress") }
        if (form.get("action") === "unsubscribe_all") {
          yield* subscriptions.update(account, email, { unsubscribeAll: true }, context)
          return Response.redirect(`${own}/p/${token}?saved=all`, 303)
        }
        const status = yield* subscriptions.status(account, email)
        const topicIds = new Set(form.getAll("topic"))
        const listIds = new Set(form.getAll("list"))
        // Only what the person changed is sent: a topic or list left as it was is no change and fires nothing.
        const subscribed = new Map(status.topics.map((t) => [t.id, t.subscribed]))
        const topics = Object.fromEntries((yield* publishedTopics(account))
          .filter((topic) => subscribed.get(topic.id) !== topicIds.has(topic.id))
          .map((topic) => [topic.id, topicIds.has(topic.id)]))
        const lists = Object.fromEntries(status.lists
          .filter((list) => list.subscribed !== listIds.has(list.id))
          .map((list) => [list.id, listIds.has(list.id)]))
        if (Object.keys(topics).length > 0 || Object.keys(lists).length > 0) {
          const changed = yield* Effect.either(subscriptions.update(account, email, { topics, lists }, context))
          if (changed._tag === "Left") {
            const refused = changed.left as { _tag: string; message: string }
            if (refused._tag === "StoreError") return yield* Effect.fail(changed.left)
            return yield* show(token, {
              tone: "error",
              text: refused._tag === "RecipientUnsubscribed"
                ? "You unsubscribed from everything, so lists cannot be joined here. Subscribe again through a signup form."
                : "Your preferences could not be saved. Please try again.",
            }, 409)
          }
        }
        return Response.redirect(`${own}/p/${token}?saved=1`, 303)
      }))
    })
}
