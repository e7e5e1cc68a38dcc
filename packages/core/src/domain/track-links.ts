/** Tracked mail: the rewriting of its links into click links and the open pixel added to its html part. Spec: issue
 *  "Open and click tracking" (links and pixel), audience "details of email.opened and email.clicked"; CONTRACT.md
 *  "Tracking links"; docs/tracking.md. A pure function of the rendered parts and the links to put in: the html is
 *  parsed (htmlparser2), never matched with patterns, and only the href attributes that are rewritten change; every
 *  other byte of the part stays as it was. */
import { Parser } from "htmlparser2"

/** What the rewrite puts in. */
export interface TrackingLinkSet {
  /** The click link of `target`, the link at `position` (html links first, in document order, then text links). */
  readonly click: (target: string, position: number) => string
  /** The open pixel's URL. */
  readonly pixel: string
  /** The hidden link only machines follow (docs/tracking.md, "Honeypot link"); none when undefined. */
  readonly honeypot?: string | undefined
  /** URL prefixes never rewritten beside mailto:, tel: and in-page anchors: the unsubscribe and preference links,
   *  confirmation links and Mailroom's own tracking links. */
  readonly keep: ReadonlyArray<string>
}

export interface TrackableParts {
  readonly html: string | undefined
  readonly text: string
}

/** Whether a link's target is rewritten: an absolute http(s) URL that is none of the kept links. mailto:, tel:,
 *  `#anchors`, relative and other schemes are not http(s), so they never are. */
export const isTrackable = (href: string, keep: ReadonlyArray<string>): boolean => {
  const target = href.trim()
  if (!/^https?:\/\/[^\s/?#]+/i.test(target)) return false
  const lower = target.toLowerCase()
  return !keep.some((prefix) => lower.startsWith(prefix.toLowerCase()))
}

/** Elements whose href is a link a reader follows. */
const linkElements = new Set(["a", "area"])

/** An attribute that turns click tracking off for its link (`clicktracking="off"`, as SendGrid reads it). */
const optedOut = (attributes: ReadonlyArray<SeenAttribute>) =>
  attributes.some((a) => a.name === "clicktracking" && a.value.trim().toLowerCase() === "off")

interface SeenAttribute {
  readonly name: string
  readonly value: string
  /** Where the attribute's source starts and ends (end exclusive) in the html. */
  readonly start: number
  readonly end: number
}

interface Splice {
  readonly start: number
  readonly end: number
  readonly text: string
}

/** The html with its links rewritten, numbered from `first`, and the pixel (and honeypot link) added before `</body>`
 *  (or at the end when there is none). Answers the next free position. */
const rewriteHtml = (html: string, links: TrackingLinkSet, first: number): { readonly html: string; readonly next: number } => {
  const splices: Array<Splice> = []
  let attributes: Array<SeenAttribute> = []
  let position = first
  let bodyClose: number | undefined
  const parser: Parser = new Parser({
    onopentagname: () => { attributes = [] },
    onattribute: (name, value, quote) => {
      // endIndex is the closing quote of a quoted value, the delimiter after an unquoted one.
      const end = quote === null ? parser.endIndex : parser.endIndex + 1
      attributes.push({ name: name.toLowerCase(), value, start: parser.startIndex, end })
    },
    onopentag: (name) => {
      if (!linkElements.has(name) || optedOut(attributes)) return
      const href = attributes.find((a) => a.name === "href")
      if (href === undefined || !isTrackable(href.value, links.keep)) return
      splices.push({ start: href.start, end: href.end, text: `href="${escapeAttribute(links.click(href.value.trim(), position))}"` })
      position += 1
    },
    onclosetag: (name, implied) => {
      if (name === "body" && !implied && bodyClose === undefined) bodyClose = parser.startIndex
    },
  }, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true })
  parser.write(html)
  parser.end()
  const additions = [
    links.honeypot === undefined ? "" : `<a href="${escapeAttribute(links.honeypot)}" style="display:none!important" aria-hidden="true" tabindex="-1"></a>`,
    `<img src="${escapeAttribute(links.pixel)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0">`,
  ].join("")
  splices.push({ start: bodyClose ?? html.length, end: bodyClose ?? html.length, text: additions })
  let out = ""
  let at = 0
  for (const splice of splices.sort((a, b) => a.start - b.start)) {
    out += html.slice(at, splice.start) + splice.text
    at = splice.end
  }
  return { html: out + html.slice(at), next: position }
}

const escapeAttribute = (value: string) =>
  value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** A URL in plain text: up to whitespace or a bracket; punctuation that ends a sentence is left outside. */
const textUrl = /https?:\/\/[^\s<>"'[\]]+/gi
const trailingPunctuation = /[.,;:!?)]+$/

/** The text with its http(s) URLs rewritten, numbered from `first`. */
const rewriteText = (text: string, links: TrackingLinkSet, first: number): string => {
  let position = first
  return text.replace(textUrl, (found) => {
    const trailing = trailingPunctuation.exec(found)?.[0] ?? ""
    const url = found.slice(0, found.length - trailing.length)
    if (!isTrackable(url, links.keep)) return found
    const rewritten = links.click(url, position)
    position += 1
    return rewritten + trailing
  })
}

/** The parts of tracked mail: http(s) links of the html and of the text made click links, the open pixel (and the
 *  honeypot link) added to the html. Mail without an html part gets no pixel: it cannot be seen opening. */
export const trackParts = (parts: TrackableParts, links: TrackingLinkSet): TrackableParts => {
  if (parts.html === undefined) return { html: undefined, text: rewriteText(parts.text, links, 0) }
  const html = rewriteHtml(parts.html, links, 0)
  return { html: html.html, text: rewriteText(parts.text, links, html.next) }
}
