import fc from "fast-check"
import { Parser } from "htmlparser2"
import { describe, expect, it } from "vitest"
import { isTrackable, type TrackingLinkSet, trackParts } from "../../src/domain/track-links.js"

const links: TrackingLinkSet = {
  click: (target, position) => `https://t.example.com/l/${position}~${Buffer.from(target).toString("base64url")}`,
  pixel: "https://t.example.com/o/pixel",
  honeypot: "https://t.example.com/l/honeypot",
  keep: ["https://t.example.com/u/", "https://t.example.com/o/", "https://t.example.com/l/", "https://app.example.com/p/"],
}

/** The targets of the click links in a rewritten part, decoded. */
const clickTargets = (text: string) =>
  [...text.matchAll(/https:\/\/t\.example\.com\/l\/(\d+)~([A-Za-z0-9_-]*)/g)].map((m) => ({
    position: Number(m[1]), target: Buffer.from(m[2]!, "base64url").toString("utf8"),
  }))

/** Every href of a/area elements, as a parser reads them. */
const hrefs = (html: string) => {
  const found: Array<string> = []
  const parser = new Parser({ onopentag: (name, attributes) => { if ((name === "a" || name === "area") && attributes.href !== undefined) found.push(attributes.href) } })
  parser.write(html)
  parser.end()
  return found
}

describe("rewriting the links of tracked mail (trackParts)", () => {
  it("makes http(s) links of the html click links, in document order, and keeps every other byte", () => {
    const html = `<html><body><p>Hi <a class="x" href="https://shop.example.com/a?x=1&amp;y=2">shop</a>, <A HREF='http://b.example.org/'>b</A>
      <a href=https://c.example.net/c>c</a><map><area href="https://d.example.com/d"></map></p></body></html>`
    const out = trackParts({ html, text: "" }, links)
    expect(clickTargets(out.html!)).toEqual([
      { position: 0, target: "https://shop.example.com/a?x=1&y=2" },
      { position: 1, target: "http://b.example.org/" },
      { position: 2, target: "https://c.example.net/c" },
      { position: 3, target: "https://d.example.com/d" },
    ])
    expect(out.html).toContain(`<p>Hi <a class="x" href="https://t.example.com/l/0~`)
    expect(out.html).toContain(">shop</a>, <A href=")
    expect(out.html).toContain(`<img src="https://t.example.com/o/pixel" width="1" height="1" alt=""`)
    // The pixel and the honeypot go before </body>.
    expect(out.html!.indexOf("/o/pixel")).toBeLessThan(out.html!.indexOf("</body>"))
    expect(out.html).toContain(`<a href="https://t.example.com/l/honeypot" style="display:none!important"`)
  })

  it("numbers text links after the html links and leaves trailing punctuation outside", () => {
    const out = trackParts({ html: `<a href="https://a.example.com/">a</a>`, text: "Read https://a.example.com/x. Or (https://b.example.com/y)" }, links)
    expect(clickTargets(out.text)).toEqual([
      { position: 1, target: "https://a.example.com/x" },
      { position: 2, target: "https://b.example.com/y" },
    ])
    expect(out.text).toMatch(/^Read https:\/\/t\.example\.com\/l\/1~\S+\. Or \(https:\/\/t\.example\.com\/l\/2~\S+\)$/)
  })

  it("adds no pixel to mail without an html part, and honours clicktracking=\"off\"", () => {
    const out = trackParts({ html: undefined, text: "https://a.example.com/" }, links)
    expect(out.html).toBeUndefined()
    const html = trackParts({ html: `<a clicktracking="off" href="https://a.example.com/">a</a>`, text: "" }, links).html!
    expect(hrefs(html)).toEqual(["https://a.example.com/", "https://t.example.com/l/honeypot"])
  })

  /** Links that are never rewritten: mailto:, tel:, in-page anchors, unsubscribe and preference links, Mailroom's own
   *  tracking links, relative links, other schemes. */
  const neverTracked = fc.oneof(
    fc.emailAddress().map((address) => `mailto:${address}`),
    fc.stringMatching(/^\+?[0-9]{3,15}$/).map((number) => `tel:${number}`),
    fc.stringMatching(/^[A-Za-z0-9_-]{0,20}$/).map((id) => `#${id}`),
    fc.stringMatching(/^[A-Za-z0-9_.-]{1,40}$/).map((token) => `https://t.example.com/u/${token}`),
    fc.stringMatching(/^[A-Za-z0-9_.-]{1,40}$/).map((token) => `https://app.example.com/p/${token}`),
    fc.stringMatching(/^[A-Za-z0-9_.-]{1,40}$/).map((token) => `https://t.example.com/l/${token}`),
    fc.stringMatching(/^[a-z0-9/]{0,20}$/).map((path) => `/${path}`),
    fc.constantFrom("javascript:void(0)", "ftp://files.example.com/", "sms:+15551234", "data:text/plain,hi"),
  )

  it("never rewrites mailto:, tel:, anchors, unsubscribe and preference links, in html or text", () => {
    fc.assert(fc.property(neverTracked, fc.webUrl({ validSchemes: ["https"] }), (kept, tracked) => {
      expect(isTrackable(kept, links.keep)).toBe(false)
      const html = `<body><a href="${kept.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}">k</a><a href="${tracked.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}">t</a></body>`
      const out = trackParts({ html, text: `${kept} ${tracked}` }, links)
      const found = hrefs(out.html!)
      expect(found[0]).toBe(kept)
      expect(found.filter((href) => href === kept)).toHaveLength(1)
      // The text keeps the untracked link as it was.
      expect(out.text.startsWith(`${kept} `)).toBe(true)
    }), { numRuns: 300 })
  })

  it("rewrites every absolute http(s) link, whatever it carries, and the click link leads back to it", () => {
    fc.assert(fc.property(fc.webUrl({ validSchemes: ["http", "https"], withQueryParameters: true, withFragments: true }), (url) => {
      fc.pre(!links.keep.some((prefix) => url.toLowerCase().startsWith(prefix)))
      const escaped = url.replace(/&/g, "&amp;").replace(/"/g, "&quot;")
      const out = trackParts({ html: `<a href="${escaped}">x</a>`, text: "" }, links)
      expect(clickTargets(out.html!)).toEqual([{ position: 0, target: url }])
    }), { numRuns: 300 })
  })
})
