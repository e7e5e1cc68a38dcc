import { describe, expect, it } from "vitest"
import { type LinkVisit } from "../../src/index.js"
import { classifyLinkVisit, confirmsOnFollow } from "../../src/domain/link-visit.js"

const chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
const firefox = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"
const safari = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.1 Safari/605.1.15"
const iosMail = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"

/** The headers Chromium sends when a person follows a link (measured: a click, a new tab, the address bar). */
const navigation = {
  "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-user": "?1", "sec-fetch-dest": "document",
  "upgrade-insecure-requests": "1",
}

const request = (headers: Record<string, string>, method = "GET") => new Request("https://app.example.com/c/t", { method, headers })
const person: LinkVisit = { kind: "person" }

describe("who follows a confirmation link (classifyLinkVisit)", () => {
  it.each([
    ["Chromium, following a link", { "user-agent": chrome, ...navigation }],
    ["Firefox, following a link", { "user-agent": firefox, ...navigation }],
    ["Chromium, opened from another application (Sec-Fetch-Site none, no Sec-Fetch-User)", {
      "user-agent": chrome, "sec-fetch-site": "none", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document",
      "upgrade-insecure-requests": "1",
    }],
    ["Safari before 16.4: no Sec-Fetch headers, Upgrade-Insecure-Requests", { "user-agent": safari, "upgrade-insecure-requests": "1" }],
    ["the in-app browser of a mail app", { "user-agent": iosMail, ...navigation }],
    ["header names in any case", { "User-Agent": chrome, "Sec-Fetch-Mode": "Navigate", "Sec-Fetch-Dest": "Document" }],
  ])("%s is a person", (_, headers) => {
    expect(classifyLinkVisit(request(headers))).toEqual(person)
  })

  it.each(["HEAD", "head", "POST"])("a %s is automated (head), whatever its headers say", (method) => {
    expect(classifyLinkVisit(request({ "user-agent": chrome, ...navigation }, method))).toEqual({ kind: "automated", signal: "head" })
  })

  it.each([
    ["Sec-Purpose", "prefetch"],
    ["Sec-Purpose", "prefetch;prerender"],
    ["Sec-Purpose", "prefetch;anonymous-client-ip"],
    ["Purpose", "prefetch"],
    ["X-Purpose", "preview"],
    ["X-Moz", "prefetch"],
  ])("a prefetch (%s: %s) is automated, from a browser that otherwise looks like a person's", (name, value) => {
    expect(classifyLinkVisit(request({ "user-agent": chrome, ...navigation, [name]: value })))
      .toEqual({ kind: "automated", signal: "prefetch" })
  })

  it.each([
    ["headless Chromium", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36"],
    ["Slack's link expander", "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"],
    ["Facebook's preview", "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"],
    ["WhatsApp's preview", "WhatsApp/2.23.20.0"],
    ["Discord's preview", "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)"],
    ["Skype's preview", "SkypeUriPreview Preview/0.5"],
    ["Google's safe browsing", "Mozilla/5.0 (compatible; Google-Safety; +http://www.google.com/bot.html)"],
    ["curl", "curl/8.5.0"],
    ["python-requests", "python-requests/2.31.0"],
    ["Node's fetch", "node"],
    ["an empty User-Agent", ""],
  ])("%s is automated (robot_user_agent), even with a browser's navigation headers", (_, userAgent) => {
    expect(classifyLinkVisit(request({ "user-agent": userAgent, ...navigation })))
      .toEqual({ kind: "automated", signal: "robot_user_agent" })
  })

  it("a request with no User-Agent at all is automated (robot_user_agent)", () => {
    expect(classifyLinkVisit(request({ ...navigation }))).toEqual({ kind: "automated", signal: "robot_user_agent" })
  })

  it.each([
    ["no navigation header at all (an HTTP client posing as a browser)", {}],
    ["a fetch() from a page (Sec-Fetch-Mode cors)", { "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" }],
    ["an image (Sec-Fetch-Mode no-cors)", { "sec-fetch-mode": "no-cors", "sec-fetch-dest": "image" }],
    ["a page in a frame (Sec-Fetch-Dest iframe)", { "sec-fetch-mode": "navigate", "sec-fetch-dest": "iframe", "upgrade-insecure-requests": "1" }],
    ["Upgrade-Insecure-Requests other than 1", { "upgrade-insecure-requests": "0" }],
  ])("%s is automated (not_a_navigation)", (_, headers) => {
    expect(classifyLinkVisit(request({ "user-agent": chrome, ...headers })))
      .toEqual({ kind: "automated", signal: "not_a_navigation" })
  })

  it("names the first signal that holds: HEAD before prefetch before the User-Agent before navigation", () => {
    expect(classifyLinkVisit(request({ "user-agent": "curl/8.5.0", "sec-purpose": "prefetch" }, "HEAD"))).toMatchObject({ signal: "head" })
    expect(classifyLinkVisit(request({ "user-agent": "curl/8.5.0", "sec-purpose": "prefetch" }))).toMatchObject({ signal: "prefetch" })
    expect(classifyLinkVisit(request({ "user-agent": "curl/8.5.0" }))).toMatchObject({ signal: "robot_user_agent" })
  })
})

describe("whether following the link confirms (confirmsOnFollow)", () => {
  it.each([
    ["link", person, true],
    ["link", { kind: "automated", signal: "prefetch" } as const, false],
    ["button", person, false],
    ["button", { kind: "automated", signal: "head" } as const, false],
  ] as const)("in %s mode, %j confirms: %s", (mode, visit, expected) => {
    expect(confirmsOnFollow(mode, visit)).toBe(expected)
  })
})
