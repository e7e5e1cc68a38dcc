/** Open and click tracking: which mail is tracked, what a recorded hit is, and who made it (a person, a mailbox's
 *  image proxy on a person's behalf, a machine's prefetch, a bot). Spec: audience "details of email.opened and
 *  email.clicked"; issue "Open and click tracking" 1-3; docs/tracking.md documents each rule with what it stops and
 *  what it misses. Pure rules over data: the request's method, headers and address, and what the token says. */
import { isbot } from "isbot"
import type { Stream } from "./message.js"

/** Where a message comes from, for the tracking decision: API mail (by its stream and the send's `track`), or a
 *  campaign to a list (by the list's trackingEnabled; campaigns call this when they are built). */
export type TrackingSource =
  | { readonly kind: "api"; readonly stream: Stream; readonly track: boolean | undefined }
  | { readonly kind: "campaign"; readonly trackingEnabled: boolean }

/** Whether mail is tracked: marketing-stream API mail unless `track: false`, transactional API mail only with
 *  `track: true`, campaign mail as its list says. */
export const tracksMail = (source: TrackingSource): boolean =>
  source.kind === "campaign" ? source.trackingEnabled : source.track ?? source.stream === "marketing"

export const hitKinds = ["open", "click"] as const
export type HitKind = (typeof hitKinds)[number]

/** human: a person's mail client or browser; proxy_human: a mailbox's image proxy fetching when a person opens the
 *  mail (Gmail, Yahoo); machine: a prefetch made whether or not anyone reads (Apple Mail Privacy Protection); bot:
 *  everything else automated (HEAD requests, crawlers, link previewers, security scanners). */
export const hitClassifications = ["human", "proxy_human", "machine", "bot"] as const
export type HitClassification = (typeof hitClassifications)[number]

/** The signal that decided a hit's classification (stored beside it, so that a sender sees why). */
export const hitSignals = [
  "person", "image_proxy", "apple_mpp_user_agent", "apple_egress", "head", "prefetch", "robot_user_agent",
  "scanner_network", "honeypot", "click_burst", "implied_by_click",
] as const
export type HitSignal = (typeof hitSignals)[number]

/** Whether a hit of this classification becomes email.opened or email.clicked. */
export const isPersonHit = (classification: HitClassification): boolean =>
  classification === "human" || classification === "proxy_human"

/** The parts of a request the rule reads; a web `Request` with the client's address is one. */
export interface HitRequest {
  readonly method: string
  readonly headers: { readonly get: (name: string) => string | null }
  /** The client's address as far as it is known (behind trusted proxies, the one they report). */
  readonly address: string | null
}

/** What is known about a click beyond its request: whether it is the honeypot link, when the mail was rendered, and
 *  how many other links of the same message and recipient were followed within the burst span before it. */
export interface ClickEvidence {
  readonly honeypot: boolean
  readonly sentAtMs: number | undefined
  readonly nowMs: number
  readonly otherLinksInBurst: number
  /** The honeypot link of the message and recipient was followed within the burst span. */
  readonly honeypotSeen: boolean
}

/** Bounds of the click-burst rule: a click within `afterSendMs` of the mail's rendering, when at least
 *  `otherLinks` other links of the same message and recipient were followed within `spanMs`, is a scanner's. */
export const clickBurst = { afterSendMs: 120_000, spanMs: 10_000, otherLinks: 2 } as const

/** The address ranges the rules consult (tracking-networks.ts), as matchers. */
export interface HitNetworks {
  readonly apple: (address: string | null) => boolean
  readonly scanners: (address: string | null) => boolean
}

export interface HitVerdict {
  readonly classification: HitClassification
  readonly signal: HitSignal
}

const verdict = (classification: HitClassification, signal: HitSignal): HitVerdict => ({ classification, signal })

/** Image proxies that fetch when a person opens the mail: Gmail's (`GoogleImageProxy`, via ggpht.com) and Yahoo's. */
const imageProxy = /GoogleImageProxy|YahooMailProxy/i

/** Apple Mail Privacy Protection prefetches with the bare user agent `Mozilla/5.0`, nothing after it. */
const appleMppUserAgent = /^Mozilla\/5\.0$/

const prefetchHeaders = ["sec-purpose", "purpose", "x-purpose", "x-moz"] as const

/** Classifies a hit; the first rule that holds decides (docs/tracking.md lists them in this order). */
export const classifyHit = (kind: HitKind, request: HitRequest, networks: HitNetworks, click?: ClickEvidence): HitVerdict => {
  if (request.method.toUpperCase() !== "GET") return verdict("bot", "head")
  if (kind === "click" && click?.honeypot === true) return verdict("bot", "honeypot")
  const userAgent = request.headers.get("user-agent")?.trim() ?? ""
  if (kind === "open" && imageProxy.test(userAgent)) return verdict("proxy_human", "image_proxy")
  if (appleMppUserAgent.test(userAgent)) return verdict("machine", "apple_mpp_user_agent")
  if (networks.apple(request.address)) return verdict("machine", "apple_egress")
  if (prefetchHeaders.some((name) => /prefetch|prerender|preview/i.test(request.headers.get(name) ?? ""))) {
    return verdict("bot", "prefetch")
  }
  if (userAgent === "" || isbot(userAgent)) return verdict("bot", "robot_user_agent")
  if (networks.scanners(request.address)) return verdict("bot", "scanner_network")
  if (kind === "click" && click !== undefined) {
    if (click.honeypotSeen) return verdict("bot", "honeypot")
    const early = click.sentAtMs !== undefined && click.nowMs - click.sentAtMs <= clickBurst.afterSendMs
    if (early && click.otherLinksInBurst >= clickBurst.otherLinks) return verdict("bot", "click_burst")
  }
  return verdict("human", "person")
}

/** One recorded open or click: what the analytics are built from. Neither the address nor the user agent is kept;
 *  only the country (ISO 3166-1 alpha-2, when known) and the classification. */
export interface TrackingHit {
  readonly id: string
  readonly accountId: string
  readonly messageId: string
  readonly recipient: string
  readonly kind: HitKind
  readonly classification: HitClassification
  readonly signal: HitSignal
  readonly occurredAt: Date
  readonly country: string | null
  /** Clicks: the link's target and position; null for opens. */
  readonly url: string | null
  readonly position: number | null
  /** Campaign mail: the campaign; null for API mail. */
  readonly campaignId: string | null
}
