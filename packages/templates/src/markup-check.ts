/** The markup checks run when a draft is saved and published: no script, iframe, form, event handler attributes or
 *  `javascript:` URLs, in any spelling (spec: "Design (Studio template)"; DESIGN.md "Security defaults"). The source
 *  is parsed with a real HTML parser, as a browser would tokenize it; the check reports and never rewrites. */
import type { MarkupFinding } from "@mailroom/core"
import { Parser } from "htmlparser2"

/** Elements that run code, load other documents or post data. The spec names script, iframe and form; frames,
 *  plugins and `base` (which redirects every relative link) are refused for the same reason. */
const refusedElements = new Set(["script", "iframe", "frame", "frameset", "form", "object", "embed", "applet", "base"])

/** Attributes whose value a browser follows as a URL. Any attribute named `*:href` (xlink:href, …) counts too. */
const urlAttributes = new Set([
  "href", "src", "action", "formaction", "background", "poster", "data", "codebase", "cite", "longdesc", "lowsrc",
  "dynsrc", "usemap", "profile", "classid", "archive", "manifest", "icon", "ping", "srcset", "imagesrcset",
  // SVG animation sets another attribute (href) to these values: <animate attributeName="href" values="javascript:…">.
  "values", "to", "from", "by",
])

/** Images are the only data: URLs mail needs; SVG is left out because it can carry script. */
const safeDataUrl = /^data:image\/(?:png|gif|jpe?g|webp|bmp)[;,]/

/** The value a browser's URL parser would see: entities are decoded by the parser already; it drops tab and newline
 *  anywhere and control characters and spaces around, and schemes are case-insensitive. Every character up to U+0020
 *  (and the zero-width ones some filters miss) is removed here, wherever it is. */
export const normalizeUrl = (value: string): string =>
  value.replace(/[\u0000-\u0020\u007f-\u00a0\u00ad\u200b-\u200f\u2028\u2029\ufeff]/g, "").toLowerCase()
    // Old Internet Explorer took a backtick for a quote: `javascript:…` ran there.
    .replace(/^[`'"]+/, "")

/** The problem with a URL attribute's value, if any. `srcset`-like lists are checked entry by entry. */
export const urlProblem = (value: string): string | undefined => {
  for (const candidate of value.split(",")) {
    const url = normalizeUrl(candidate)
    if (/^(?:javascript|vbscript|livescript|mocha):/.test(url)) return `a ${url.slice(0, url.indexOf(":") + 1)} URL`
    if (url.startsWith("data:") && !safeDataUrl.test(url)) return "a data: URL that is not an image"
  }
  return undefined
}

/** Old Internet Explorer and Outlook's Word engine ran script from CSS: expression(), behavior, javascript: urls. */
const styleProblem = (value: string): string | undefined => {
  const css = normalizeUrl(value.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\\/g, ""))
  if (css.includes("expression(")) return "a CSS expression()"
  if (css.includes("javascript:") || css.includes("vbscript:")) return "a javascript: URL in CSS"
  if (css.includes("behavior:") || css.includes("-moz-binding")) return "a CSS behavior or binding"
  return undefined
}

/** `<!--[if mso]> … <![endif]-->`: Outlook renders what is inside, so the check looks inside too. */
const conditionalComment = /^\s*\[if[^\]]*\]>/i

/** Where in the original source a position of the checked text is: the identity for the source itself, a table for
 *  the source with its Handlebars expressions taken out. */
export type PositionMap = (index: number) => number

interface Scan {
  readonly text: string
  readonly at: PositionMap
  readonly base: number
  readonly pathPrefix: ReadonlyArray<string>
}

const lineStarts = (source: string) => {
  const starts = [0]
  for (let i = 0; i < source.length; i++) if (source.charCodeAt(i) === 10) starts.push(i + 1)
  return starts
}

/** Finds every unsafe construct of `text`, positions mapped to `source` through `at`. */
export const checkMarkup = (source: string, text: string = source, at: PositionMap = (i) => i): Array<MarkupFinding> => {
  const starts = lineStarts(source)
  const findings: Array<MarkupFinding> = []
  const position = (index: number) => {
    const offset = Math.max(0, Math.min(at(index), source.length))
    let low = 0
    let high = starts.length - 1
    while (low < high) {
      const mid = (low + high + 1) >> 1
      if (starts[mid]! <= offset) low = mid
      else high = mid - 1
    }
    return { line: low + 1, column: offset - starts[low]! + 1 }
  }

  const scan = ({ text: part, base, pathPrefix }: Scan) => {
    const stack: Array<string> = []
    const path = (...more: Array<string>) => [...pathPrefix, ...stack, ...more].join(" > ") || "(top)"
    const report = (problem: string, index: number, where: string) =>
      findings.push({ problem, ...position(base + index), path: where })
    const parser: Parser = new Parser({
      onopentag(name, attributes) {
        const index = parser.startIndex
        if (refusedElements.has(name)) report(`<${name}>`, index, path(name))
        if (name.includes("{{")) report("an element name made by a template expression", index, path(name))
        // `<scr<script>ipt>` is one malformed element to a browser, and a script to a filter that strips the inner tag.
        else if (name.includes("<")) report(`a malformed element name <${name}>`, index, path(name))
        if (name === "meta" && (attributes["http-equiv"] ?? "").toLowerCase() === "refresh") {
          report("<meta http-equiv=\"refresh\">", index, path(name))
        }
        if (name === "mj-include") report("<mj-include> (file includes are disabled)", index, path(name))
        for (const [attribute, value] of Object.entries(attributes)) {
          if (attribute.startsWith("on")) report(`the event handler attribute ${attribute}`, index, path(name))
          else if (urlAttributes.has(attribute) || attribute.endsWith(":href")) {
            const problem = urlProblem(value)
            if (problem !== undefined) report(`${problem} in ${attribute}`, index, path(name))
          } else if (attribute === "style") {
            const problem = styleProblem(value)
            if (problem !== undefined) report(`${problem} in style`, index, path(name))
          }
        }
        stack.push(name)
      },
      onclosetag(name) {
        const open = stack.lastIndexOf(name)
        if (open >= 0) stack.length = open
      },
      oncomment(data) {
        const opened = conditionalComment.exec(data)
        if (opened === null) return
        const inner = data.slice(opened[0].length)
        // `<!--` is four characters before the comment's data.
        scan({ text: inner, at, base: base + parser.startIndex + 4 + opened[0].length, pathPrefix: [...pathPrefix, ...stack, "<!--[if]>"] })
      },
    }, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true })
    parser.write(part)
    parser.end()
    // A tag whose name a value supplies (`<{{tag}}>`) is text to the parser now and a tag once rendered.
    for (const match of part.matchAll(/<\/?\{\{/g)) report("an element name made by a template expression", match.index, path())
  }

  scan({ text, at, base: 0, pathPrefix: [] })
  return findings
}
