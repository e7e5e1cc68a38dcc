/** The router: /api/health, /admin (with an admin token) and /v1 behind API-key authentication and rate limits.
 *  Every failure, unknown routes included, is answered through errors.ts. */
import { type RateLimitExceeded, RouteNotFound } from "@mailroom/core"
import { Effect } from "effect"
import { Hono } from "hono"
import { authenticate } from "./auth.js"
import { isTrustedPeer, makeTrustHop, resolveClientAddress, type TrustProxy } from "./client-address.js"
import { defaultBodyLimitBytes, settleBody } from "./body.js"
import type { MailroomEnv } from "./env.js"
import { errorResponse, internalErrorResponse } from "./errors.js"
import { linkHostGate } from "./link-host.js"
import { makeRateLimiters, perSecondRateLimit, rateLimitByAddress, type RateLimitOptions } from "./rate-limit.js"
import { adminRoutes } from "./routes/admin.js"
import { outboxViewerRoutes } from "./routes/outbox-viewer.js"
import { contactRoutes } from "./routes/contacts.js"
import { brandRoutes, legacyBrandThemeGroup, legacyBrandThemePaths, legacyBrandThemeRoutes } from "./routes/brands.js"
import { designRoutes } from "./routes/designs.js"
import { designGalleryRoutes } from "./routes/design-gallery.js"
import { designManifestRoutes } from "./routes/design-manifest.js"
import { publicAssetRoutes } from "./routes/assets-public.js"
import { analyticsRoutes } from "./routes/analytics.js"
import { domainRoutes } from "./routes/domains.js"
import { emailRoutes } from "./routes/emails.js"
import { exportRoutes } from "./routes/export.js"
import { formRoutes } from "./routes/forms.js"
import { publicFormRoutes } from "./routes/form-public.js"
import { preferenceRoutes } from "./routes/preferences.js"
import { apiReferenceRoutes } from "./openapi/reference.js"
import { html } from "./pages/html.js"
import { defaultPageTheme, notice, pageResponse, type PageTheme } from "./pages/layout.js"
import { healthRoutes } from "./routes/health.js"
import { cronRoutes } from "./routes/canary.js"
import { importRoutes } from "./routes/import.js"
import { inboundRoutes } from "./routes/inbound.js"
import { listRoutes } from "./routes/lists.js"
import { publicRoutes } from "./routes/public.js"
import { trackingRoutes } from "./routes/tracking.js"
import { trackingDomainRoutes } from "./routes/tracking-domains.js"
import { subscriptionRoutes } from "./routes/subscriptions.js"
import { suppressionRoutes } from "./routes/suppressions.js"
import { legacyTemplateGroup, legacyTemplatePaths, legacyTemplateRoutes } from "./routes/templates.js"
import { topicRoutes } from "./routes/topics.js"
import { campaignRoutes } from "./routes/campaigns.js"
import { validationRoutes } from "./routes/validation.js"
import { webhookRoutes } from "./routes/webhooks.js"
import { logRequest } from "./request-log.js"
import { type HttpRuntime, makeRunner } from "./run.js"

/** Route files under /v1: registering one is one line. `/contacts/{id}` refuses the fixed paths beside it (tags,
 *  bulk, export, import, lists), so the order of this list does not decide which route answers. */
const v1Routes: ReadonlyArray<Hono<MailroomEnv>> = [
  brandRoutes,
  campaignRoutes,
  analyticsRoutes,
  contactRoutes,
  // Before designRoutes: its /designs/{id} would take "catalog", "assets" and "manifest" for ids.
  designGalleryRoutes,
  designManifestRoutes,
  designRoutes,
  domainRoutes,
  emailRoutes,
  exportRoutes,
  formRoutes,
  importRoutes,
  inboundRoutes,
  listRoutes,
  subscriptionRoutes,
  suppressionRoutes,
  legacyTemplateRoutes,
  legacyBrandThemeRoutes,
  topicRoutes,
  trackingDomainRoutes,
  validationRoutes,
  webhookRoutes,
]

export interface HttpAppOptions {
  /** Runs every route's effect; built by the `@mailroom/mailroom` facade from the chosen backend. */
  readonly runtime: HttpRuntime
  /** Enables /admin when set; requests must send it as `Authorization: Bearer <adminToken>`. */
  readonly adminToken?: string | undefined
  /** Enables POST /api/cron/email-canary (the delivery canary) when set; requests must send it as
   *  `Authorization: Bearer <cronToken>`. Unset, the route answers 404. */
  readonly cronToken?: string | undefined
  /** Whether mail is kept in the dev outbox (no SMTP relay); enables GET and DELETE /admin/outbox and the mail viewer
   *  at /admin/mail (docs/dev-outbox.md). Default true. */
  readonly devOutbox?: boolean | undefined
  /** Largest JSON request body in bytes. Default 8 MiB. */
  readonly bodyLimitBytes?: number | undefined
  readonly rateLimits?: RateLimitOptions | undefined
  /** Which proxies are believed when they report the client's address in X-Forwarded-For. Default: none. */
  readonly trustProxy?: TrustProxy | undefined
  /** The look of the hosted pages (signup forms, confirmation, unsubscribe, preference centre). Default: neutral. */
  readonly pageTheme?: PageTheme | undefined
  /** Serves GET /v1/openapi.json (the OpenAPI 3.1 document) and GET /v1/reference (the reference page), without an
   *  API key. Default true; false answers both with 404. */
  readonly apiReference?: boolean | undefined
}

/** What a host may pass beside the request (`app.fetch(request, env)`, `mailroom.fetch(request, options)`). */
export interface FetchOptions {
  /** The peer address of the connection the request came on; null when the transport does not tell it. */
  readonly clientAddress?: string | null | undefined
  /** The HTTP version of the connection ("1.1", "2.0"); an early answer closes an HTTP/1 connection, never an HTTP/2
   *  one (its streams end on their own, and HTTP/2 has no Connection header). */
  readonly httpVersion?: string | undefined
  /** @hono/node-server's bindings, when it serves the app itself: peer address and version are read from them. */
  readonly incoming?: unknown
}

export type HttpApp = Hono<MailroomEnv>

/** Whether the request came over HTTP/2 or later, as far as the host tells. */
const isHttp2 = (env: unknown): boolean => {
  if (typeof env !== "object" || env === null) return false
  const { httpVersion, incoming } = env as FetchOptions
  const version = httpVersion ?? (incoming as { httpVersion?: unknown } | undefined)?.httpVersion
  return typeof version === "string" && !version.startsWith("1.") && version !== "1"
}

/** The peer address the host passed (`{ clientAddress }`), or that of the Node socket when @hono/node-server serves
 *  the app directly (it passes `{ incoming }`); null when neither tells it. */
const peerAddress = (env: unknown): string | null => {
  if (typeof env !== "object" || env === null) return null
  const { clientAddress, incoming } = env as FetchOptions
  if (clientAddress !== undefined) return clientAddress
  const address = (incoming as { socket?: { remoteAddress?: unknown } } | undefined)?.socket?.remoteAddress
  return typeof address === "string" ? address : null
}

/** The answer of a hosted page to a client past its limit: a short page, with Retry-After. */
const tooManyRequestsPage = (exceeded: RateLimitExceeded, theme: PageTheme) =>
  pageResponse({
    title: "Too many requests",
    status: 429,
    theme,
    body: html`<h1>Too many requests</h1>${notice("error", "Too many requests came from your address. Please wait a moment and try again.")}`,
    headers: { "retry-after": String(exceeded.retryAfter) },
  })

export const makeHttpApp = (options: HttpAppOptions): HttpApp => {
  const limiters = makeRateLimiters(options.rateLimits)
  const bodyLimitBytes = options.bodyLimitBytes ?? defaultBodyLimitBytes
  const trustHop = makeTrustHop(options.trustProxy)
  const theme = options.pageTheme ?? defaultPageTheme
  const app = new Hono<MailroomEnv>()

  app.use("*", async (c, next) => {
    const startedAt = performance.now()
    const requestId = crypto.randomUUID()
    // Read when a route runs its effect: c.req.param() then answers that route's parameters, already percent-decoded.
    const runner = makeRunner(options.runtime, requestId, c.req.raw.signal, () => c.req.param())
    c.set("requestId", requestId)
    c.set("run", runner.run)
    c.set("runExit", runner.runExit)
    c.set("answerFailure", runner.answerFailure)
    c.set("bodyLimitBytes", bodyLimitBytes)
    c.set("limiters", limiters)
    const peer = peerAddress(c.env)
    c.set("trustedProxy", isTrustedPeer(peer, trustHop))
    c.set("clientAddress", resolveClientAddress(
      peer,
      trustHop === undefined ? undefined : c.req.header("x-forwarded-for"),
      trustHop,
    ))
    // Set before the route answers, so that answers built with c.json carry it as they are made; adding a header to
    // a finished answer copies it (body stream included). Answers built elsewhere (the error table) get it after.
    c.header("x-request-id", requestId)
    await next()
    if (!c.res.headers.has("x-request-id")) c.header("x-request-id", requestId)
    // An answer given before the body was read (413, 401, 404, 429 …) settles it: drained, or the connection closed.
    if (!(await settleBody(c.req.raw)) && !isHttp2(c.env)) c.header("connection", "close")
    logRequest(options.runtime, {
      method: c.req.method,
      // The property rather than hono/route's matchedRoutes(c), whose untyped Context parameter this Context does not fit.
      matched: c.req.matchedRoutes,
      status: c.res.status,
      requestId,
      // Set only once the API key was accepted.
      account: c.get("account"),
      startedAt,
    })
  })

  app.use("*", linkHostGate())
  app.route("/", healthRoutes)
  if (options.cronToken !== undefined && options.cronToken !== "") app.route("/", cronRoutes(options.cronToken))
  if (options.adminToken !== undefined && options.adminToken !== "") {
    const devOutbox = options.devOutbox ?? true
    // The mail viewer signs in with a cookie of its own, so it answers before the operator API's Bearer check.
    if (devOutbox) app.route("/admin/mail", outboxViewerRoutes({ adminToken: options.adminToken, theme }))
    app.route("/admin", adminRoutes({ adminToken: options.adminToken, devOutbox }))
  }
  // The routes without an API key are limited per client address instead of per key: JSON routes answer the JSON
  // 429, hosted pages a short page. Form submissions are left to their own limits (per address and per email).
  const publicJson = rateLimitByAddress("publicRequests")
  const publicPage = rateLimitByAddress("publicRequests", (exceeded) => tooManyRequestsPage(exceeded, theme))
  app.use("/v1/unsubscribe/*", publicJson)
  app.on("OPTIONS", "/v1/forms/:id/submit", publicJson)
  for (const pages of ["/u/*", "/c/*", "/p/*", "/f/*"]) app.use(pages, publicPage)
  // The public consent routes (unsubscribe, one-click, the /u and /c pages) take a signed token instead of an API key,
  // so they are registered before the API-key middleware: the first route that answers ends the chain.
  app.route("/", publicRoutes({ theme: options.pageTheme ?? defaultPageTheme }))
  // The open pixel and click redirect (CONTRACT.md "Tracking links"): no per-address limit, since a mailbox's image
  // proxy fetches the pixels of many people from a few addresses.
  app.route("/", trackingRoutes)
  // Image assets (docs/templates.md): immutable, public, by content hash; mailbox image proxies fetch them like pixels.
  app.route("/", publicAssetRoutes)
  // Public routes (hosted pages, form submissions): no API key. Registered before /v1's authentication, which they
  // answer ahead of.
  app.route("/", publicFormRoutes({ theme }))
  app.route("/", preferenceRoutes({ theme }))
  // The reference is public too; the per-address limit keeps its 3 MB page from being fetched in a loop.
  if (options.apiReference ?? true) {
    app.use("/v1/openapi.json", publicJson)
    app.use("/v1/reference", publicJson)
    app.route("/", apiReferenceRoutes({ page: true }))
  }
  // The legacy /templates group: its headers go on every answer, a 401 or 429 of the middleware below included.
  for (const path of legacyTemplatePaths) app.use(path, legacyTemplateGroup)
  for (const path of legacyBrandThemePaths) app.use(path, legacyBrandThemeGroup)
  app.use("/v1/*", authenticate(), perSecondRateLimit)
  for (const routes of v1Routes) app.route("/v1", routes)

  app.notFound((c) => errorResponse(new RouteNotFound({ method: c.req.method, path: c.req.path })))
  // A handler threw instead of failing its effect: a bug, answered like any other defect.
  app.onError((error, c) =>
    c.get("run") === undefined ? internalErrorResponse("unknown") : c.get("run")(Effect.die(error)))
  return app
}
