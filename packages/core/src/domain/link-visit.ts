/** Who is following a confirmation link: a person's browser, which confirms at once, or an automated fetch (a mail
 *  scanner, a link previewer, a prefetch), which sees the page whose button confirms. Spec: audience "Moves made by
 *  other operations" (PENDING → ACTIVE when the recipient follows the link); CONTRACT.md "Confirmation links";
 *  docs/consent.md "Link scanners" says what each signal stops and what it misses. A pure rule over the request's
 *  method and headers. */
import { isbot } from "isbot"

/** How a host wants confirmation links to behave: `link` (the default) confirms when a person's browser follows the
 *  link and shows the button to automated fetches; `button` shows the button to everyone. */
export const confirmationModes = ["link", "button"] as const
export type ConfirmationMode = (typeof confirmationModes)[number]

/** The parts of a request the rule reads; a web `Request` is one. Header names are matched without regard to case. */
export interface LinkRequest {
  readonly method: string
  readonly headers: { readonly get: (name: string) => string | null }
}

/** Why a request counts as automated:
 *  - head: a HEAD request, which link checkers and mail gateways make and browsers never do for a link followed;
 *  - prefetch: the browser fetches the page ahead of a click (speculation rules, `<link rel=prefetch>`, Safari's
 *    previews), saying so in `Sec-Purpose`, `Purpose`, `X-Purpose` or `X-Moz`;
 *  - robot_user_agent: no User-Agent, or one that names a crawler, a link previewer, an HTTP library or a headless
 *    browser (isbot's list: HeadlessChrome, Slackbot-LinkExpanding, facebookexternalhit, curl, python-requests …);
 *  - not_a_navigation: not a top-level navigation of the browser. Browsers mark one with `Sec-Fetch-Mode: navigate`
 *    and `Sec-Fetch-Dest: document`; those sent with other values are a fetch(), an image or a page in a frame (a
 *    preview). A browser that sends no Sec-Fetch headers (Safari before 16.4) marks a navigation with
 *    `Upgrade-Insecure-Requests: 1`; a request with neither is an HTTP client, not a browser opening a page. */
export const automatedSignals = ["head", "prefetch", "robot_user_agent", "not_a_navigation"] as const
export type AutomatedSignal = (typeof automatedSignals)[number]

export type LinkVisit =
  | { readonly kind: "person" }
  | { readonly kind: "automated"; readonly signal: AutomatedSignal }

const automated = (signal: AutomatedSignal): LinkVisit => ({ kind: "automated", signal })

const prefetchHeaders = ["sec-purpose", "purpose", "x-purpose", "x-moz"] as const

const isPrefetch = (request: LinkRequest) =>
  prefetchHeaders.some((name) => /prefetch|prerender|preview/i.test(request.headers.get(name) ?? ""))

/** Whether the request is a browser's top-level navigation. `Sec-Fetch-User` is not asked for: Chromium sends
 *  `?1` on a scripted `page.goto` as on a person's click, so it tells nothing the User-Agent does not, and a link
 *  opened from another application may come without it. */
const isNavigation = (request: LinkRequest) => {
  const mode = request.headers.get("sec-fetch-mode")
  const destination = request.headers.get("sec-fetch-dest")
  if (mode === null && destination === null) return request.headers.get("upgrade-insecure-requests")?.trim() === "1"
  return (mode === null || mode.toLowerCase() === "navigate") && (destination === null || destination.toLowerCase() === "document")
}

/** Classifies a request for a confirmation link; the first signal that holds is named. */
export const classifyLinkVisit = (request: LinkRequest): LinkVisit => {
  if (request.method.toUpperCase() !== "GET") return automated("head")
  if (isPrefetch(request)) return automated("prefetch")
  const userAgent = request.headers.get("user-agent")?.trim() ?? ""
  if (userAgent === "" || isbot(userAgent)) return automated("robot_user_agent")
  if (!isNavigation(request)) return automated("not_a_navigation")
  return { kind: "person" }
}

/** Whether following the link confirms: only in `link` mode, and only for a person's browser. */
export const confirmsOnFollow = (mode: ConfirmationMode, visit: LinkVisit): boolean =>
  mode === "link" && visit.kind === "person"
