import { describe, expect, it } from "vitest"
import { Either } from "effect"
import {
  classifyHit, type ClickEvidence, type HitClassification, type HitNetworks, type HitSignal, tracksMail,
} from "../../src/domain/tracking.js"
import { makeRangeMatcher, appleEgressRanges, scannerNetworkRanges } from "../../src/domain/tracking-networks.js"
import { deriveTokenKey, signToken, verifyToken, type TokenClaims } from "../../src/domain/token.js"

const chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
const appleMail = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)"
const gmailProxy = "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)"
const headless = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36"
const slack = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"

const networks: HitNetworks = { apple: makeRangeMatcher(appleEgressRanges), scanners: makeRangeMatcher(scannerNetworkRanges) }
const request = (userAgent: string | null, options: { method?: string; address?: string; headers?: Record<string, string> } = {}) => {
  const headers = new Headers(options.headers)
  if (userAgent !== null) headers.set("user-agent", userAgent)
  return { method: options.method ?? "GET", headers, address: options.address ?? "198.51.100.7" }
}
const now = 1_800_000_000_000
const click = (evidence: Partial<ClickEvidence> = {}): ClickEvidence =>
  ({ honeypot: false, sentAtMs: now - 3_600_000, nowMs: now, otherLinksInBurst: 0, honeypotSeen: false, ...evidence })

describe("which mail is tracked (tracksMail)", () => {
  it.each([
    [{ kind: "api", stream: "marketing", track: undefined }, true],
    [{ kind: "api", stream: "marketing", track: false }, false],
    [{ kind: "api", stream: "marketing", track: true }, true],
    [{ kind: "api", stream: "transactional", track: undefined }, false],
    [{ kind: "api", stream: "transactional", track: true }, true],
    [{ kind: "api", stream: "transactional", track: false }, false],
    [{ kind: "campaign", trackingEnabled: true }, true],
    [{ kind: "campaign", trackingEnabled: false }, false],
  ] as const)("%o → %s", (source, tracked) => {
    expect(tracksMail(source)).toBe(tracked)
  })
})

describe("who made a hit (classifyHit)", () => {
  const cases: ReadonlyArray<readonly [string, "open" | "click", ReturnType<typeof request>, ClickEvidence | undefined, HitClassification, HitSignal]> = [
    ["a browser's open", "open", request(chrome), undefined, "human", "person"],
    ["Apple Mail without MPP", "open", request(appleMail), undefined, "human", "person"],
    ["Gmail's image proxy", "open", request(gmailProxy, { address: "66.102.8.1" }), undefined, "proxy_human", "image_proxy"],
    ["Yahoo's image proxy", "open", request("YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html"), undefined, "proxy_human", "image_proxy"],
    ["Apple MPP's user agent", "open", request("Mozilla/5.0"), undefined, "machine", "apple_mpp_user_agent"],
    ["an open from Apple's range", "open", request(appleMail, { address: "17.58.1.2" }), undefined, "machine", "apple_egress"],
    ["an IPv4-mapped address in Apple's range", "open", request(chrome, { address: "::ffff:17.1.2.3" }), undefined, "machine", "apple_egress"],
    ["a HEAD request", "open", request(chrome, { method: "HEAD" }), undefined, "bot", "head"],
    ["a prefetch", "click", request(chrome, { headers: { "sec-purpose": "prefetch" } }), click(), "bot", "prefetch"],
    ["a headless browser", "click", request(headless), click(), "bot", "robot_user_agent"],
    ["a link previewer", "click", request(slack), click(), "bot", "robot_user_agent"],
    ["no user agent", "open", request(null), undefined, "bot", "robot_user_agent"],
    ["Gmail's proxy following a link", "click", request(gmailProxy), click(), "bot", "robot_user_agent"],
    ["Microsoft's scanner network", "click", request(chrome, { address: "40.107.22.5" }), click(), "bot", "scanner_network"],
    ["Microsoft's scanner network over IPv6", "click", request(chrome, { address: "2a01:111:f400:7e1b::1" }), click(), "bot", "scanner_network"],
    ["the honeypot link", "click", request(chrome), click({ honeypot: true }), "bot", "honeypot"],
    ["a click after the honeypot", "click", request(chrome), click({ honeypotSeen: true }), "bot", "honeypot"],
    ["the third link within seconds of delivery", "click", request(chrome), click({ sentAtMs: now - 5_000, otherLinksInBurst: 2 }), "bot", "click_burst"],
    ["the second link within seconds of delivery", "click", request(chrome), click({ sentAtMs: now - 5_000, otherLinksInBurst: 1 }), "human", "person"],
    ["three links an hour after delivery", "click", request(chrome), click({ otherLinksInBurst: 2 }), "human", "person"],
    ["a person's click", "click", request(chrome), click(), "human", "person"],
  ]
  it.each(cases)("%s", (_, kind, hit, evidence, classification, signal) => {
    expect(classifyHit(kind, hit, networks, evidence)).toEqual({ classification, signal })
  })
})

describe("tracking tokens", () => {
  const key = deriveTokenKey("secret-one", "click")
  const claims: TokenClaims = { p: "click", a: "acc_1", r: "ann@example.com", m: "msg_1", u: "https://shop.example.com/", i: 2, s: now, e: now + 1000 }
  const token = signToken(key, claims)

  it("carries the message, recipient, target and position, and verifies", () => {
    expect(verifyToken(key, "click", token, now)).toEqual(Either.right(claims))
  })

  it("refuses an altered target, a forged signature, another secret and another purpose", () => {
    const [payload, signature] = token.split(".") as [string, string]
    const altered = Buffer.from(JSON.stringify({ ...claims, u: "https://evil.example/" })).toString("base64url")
    expect(Either.isLeft(verifyToken(key, "click", `${altered}.${signature}`, now))).toBe(true)
    const flipped = signature.slice(0, -2) + (signature.endsWith("AA") ? "AB" : "AA")
    expect(Either.isLeft(verifyToken(key, "click", `${payload}.${flipped}`, now))).toBe(true)
    expect(Either.isLeft(verifyToken(deriveTokenKey("secret-two", "click"), "click", token, now))).toBe(true)
    expect(Either.isLeft(verifyToken(deriveTokenKey("secret-one", "open"), "open", token, now))).toBe(true)
    expect(Either.isLeft(verifyToken(key, "click", token.slice(0, -1), now))).toBe(true)
    expect(Either.isLeft(verifyToken(key, "click", "garbage", now))).toBe(true)
  })
})
