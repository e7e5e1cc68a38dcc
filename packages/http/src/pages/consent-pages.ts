/** The bodies of the consent pages that mail links open: the unsubscribe page of `/u/<token>` and the confirmation
 *  page of `/c/<token>`, with the answers to their buttons and to expired, used or invalid links. Each function answers
 *  the page's title, its body and its HTTP status; the shared layout (layout.ts, with its theme hook) makes the
 *  document. Every value shown goes through `html`, which escapes it. No page needs JavaScript. Forms post to the
 *  page's own URL (or a path relative to it), so the pages work wherever the host mounts Mailroom. */
import { html, type SafeHtml } from "./html.js"
import { notice, type PageTheme, pageResponse, postForm, submitButton } from "./layout.js"

/** One page: what the layout puts into the document. */
export interface PageContent {
  readonly title: string
  readonly body: SafeHtml
  readonly status: 200 | 400 | 410
}

/** What an unsubscribe link makes the recipient leave. */
export type Leaving =
  | { readonly kind: "all"; readonly sender: string | null }
  | { readonly kind: "list"; readonly name: string }
  | { readonly kind: "topic"; readonly name: string; readonly description: string | null }

const leavingText = (leaving: Leaving): SafeHtml => {
  switch (leaving.kind) {
    case "all":
      return leaving.sender === null ? html`marketing mail from this sender` : html`marketing mail from <strong>${leaving.sender}</strong>`
    case "list":
      return html`the list <strong>${leaving.name}</strong>`
    case "topic":
      return html`<strong>${leaving.name}</strong>`
  }
}

/** A form that posts to `action` (relative to the page; empty for the page's own URL) with one button. */
const buttonForm = (action: string, label: string) =>
  postForm(action, html`<div class="actions">${submitButton(label)}</div>`)

/** The way to the recipient's preference centre (`/p/<token>`), where they choose topics and lists instead. */
const preferencesLink = (preferencesUrl: string, text: string) => html`<p><a href="${preferencesUrl}">${text}</a></p>`

/** What an unsubscribe does not stop: the page promises no more than it does. */
const stillArrives = html`<p class="muted">Mail you need about your account, such as receipts, security alerts and password resets, still arrives.</p>`

/** GET /u/<token>: names what the recipient leaves; nothing changes until the button is pressed. It offers the
 *  preference centre at `preferencesUrl`. `message` is the brand's own text for the page (docs/brands.md). */
export const unsubscribePage = (email: string, leaving: Leaving, preferencesUrl: string, message: string | null = null): PageContent => ({
  title: "Unsubscribe",
  status: 200,
  body: html`<h1>Unsubscribe</h1>
${message !== null && html`<p>${message}</p>`}
<p>Stop sending ${leavingText(leaving)} to <strong>${email}</strong>?</p>
${leaving.kind === "topic" && leaving.description !== null && html`<p class="muted">${leaving.description}</p>`}
${stillArrives}
${buttonForm("", "Unsubscribe")}
${preferencesLink(preferencesUrl, "Choose which mail you receive instead")}`,
})

/** The answer to the unsubscribe button (and to a mailbox provider's one-click POST on the same URL). */
export const unsubscribedPage = (email: string, leaving: Leaving, changed: boolean, preferencesUrl: string): PageContent => ({
  title: "Unsubscribed",
  status: 200,
  body: html`<h1>${changed ? "You are unsubscribed" : "You were already unsubscribed"}</h1>
${notice("success", html`<strong>${email}</strong> will no longer receive ${leavingText(leaving)}.`)}
${stillArrives}
${preferencesLink(preferencesUrl, "Manage your email preferences")}`,
})

/** GET /c/<token>: the button that confirms. A link scanner that fetches the link does not press it. */
export const confirmPage = (email: string): PageContent => ({
  title: "Confirm your subscription",
  status: 200,
  body: html`<h1>Confirm your subscription</h1>
<p>Press the button to confirm that <strong>${email}</strong> wants to receive this mail.</p>
${buttonForm("", "Confirm subscription")}`,
})

/** The answer to the confirm button when no redirect URL was given, and to a link already used. */
export const confirmedPage = (email: string, already: boolean): PageContent => ({
  title: already ? "Already confirmed" : "Subscription confirmed",
  status: 200,
  body: html`<h1>${already ? "Already confirmed" : "Subscription confirmed"}</h1>
${notice("success", already
    ? html`<strong>${email}</strong> was confirmed before: this link has been used, and there is nothing more to do.`
    : html`Thank you: <strong>${email}</strong> is confirmed.`)}`,
})

/** Why a confirmation link no longer confirms, each offering a new link. */
export type StaleConfirmation = "expired" | "replaced"

/** An expired confirmation link, or one a newer mail replaced: says so and offers a new link, sent by `resendAction`
 *  (a path relative to the page). */
export const staleConfirmationPage = (email: string, why: StaleConfirmation, resendAction: string): PageContent => ({
  title: why === "expired" ? "This link has expired" : "This link was replaced",
  status: 410,
  body: html`<h1>${why === "expired" ? "This link has expired" : "This link was replaced"}</h1>
${notice("error", why === "expired"
    ? "Confirmation links are valid for 7 days, and this one is older."
    : "A newer confirmation mail was sent since this one; only the link in the newest mail works.")}
<p>We can send a new confirmation link to <strong>${email}</strong>.</p>
${buttonForm(resendAction, "Send me a new link")}`,
})

/** The answer to "Send me a new link": sent, or not (platform sending is paused). */
export const newLinkPage = (email: string, sent: boolean): PageContent => ({
  title: sent ? "New link sent" : "No new link sent",
  status: 200,
  body: html`<h1>${sent ? "Check your inbox" : "No new link sent"}</h1>
${sent
    ? notice("success", html`A new confirmation link is on its way to <strong>${email}</strong>; it is valid for 7 days.`)
    : notice("error", "Mail cannot be sent right now. Please try again later.")}`,
})

/** A confirmation that no longer exists and cannot be renewed: the address is no longer waiting for one. */
export const nothingToConfirmPage = (): PageContent => ({
  title: "Nothing to confirm",
  status: 410,
  body: html`<h1>Nothing to confirm</h1>
<p>This subscription is no longer waiting for a confirmation. If you still want this mail, sign up again.</p>`,
})

/** What the invalid-link page tells the recipient to do, by the page the link was for. */
const invalidLinkAdvice = {
  confirm: "The confirmation link is incomplete, damaged or no longer valid. Open it from the newest mail, or copy the whole link into the address bar.",
  unsubscribe: "The unsubscribe link is incomplete, damaged or no longer valid. Use the unsubscribe link of a recent mail, or copy the whole link into the address bar.",
  preferences: "The link may have expired or been copied incompletely. Use the link in the most recent email you received from us.",
} as const

/** A link that is not one of ours (forged, truncated or mangled by a mail program), or one whose list, topic or
 *  account is gone. An unsubscribe or preferences link past its year of life is answered here too. It tells nothing
 *  about the address. */
export const invalidLinkPage = (kind: keyof typeof invalidLinkAdvice): PageContent => ({
  title: "This link is not valid",
  status: 400,
  body: html`<h1>This link is not valid</h1>
${notice("error", invalidLinkAdvice[kind])}`,
})

/** The page as an HTTP answer in the host's theme. Its form may be redirected to an https page (a confirmation's
 *  redirectUrl). */
export const consentPageResponse = (page: PageContent, theme: PageTheme): Response =>
  pageResponse({ title: page.title, body: page.body, status: page.status, theme, formTargets: ["https:"] })
