/** HTML building for the hosted pages. Every value interpolated through `html` is escaped unless it is already
 *  `SafeHtml` (the output of another `html` call, or `raw` for markup written in this package). There is no other
 *  way to put text into a page, so a recipient's name, a form field or a topic label can never become markup. */

const safeHtml: unique symbol = Symbol("SafeHtml")

/** Markup that is already escaped. Only `html`, `raw` and `joinHtml` make one. */
export interface SafeHtml {
  readonly [safeHtml]: true
  readonly value: string
}

const make = (value: string): SafeHtml => ({ [safeHtml]: true, value })

export const isSafeHtml = (value: unknown): value is SafeHtml =>
  typeof value === "object" && value !== null && safeHtml in value

const entities: Record<string, string> = {
  "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;", "`": "&#96;", "=": "&#61;",
}

/** Escapes text for an element body and for a quoted attribute value alike. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"'`=]/g, (ch) => entities[ch]!)

/** A value `html` accepts: text (escaped), numbers, markup, and lists of them; null, undefined and false print
 *  nothing, so `${condition && html`…`}` reads naturally. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | ReadonlyArray<HtmlValue>

const render = (value: HtmlValue): string => {
  if (value === null || value === undefined || value === false || value === true) return ""
  if (typeof value === "string") return escapeHtml(value)
  if (typeof value === "number") return escapeHtml(String(value))
  if (isSafeHtml(value)) return value.value
  return (value).map(render).join("")
}

/** The tagged template for page markup: `html`<p>${name}</p>``. */
export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<HtmlValue>): SafeHtml =>
  make(strings.reduce((out, part, i) => out + part + (i < values.length ? render(values[i]) : ""), ""))

/** Markup written in this package that needs no escaping (a stylesheet, an inline SVG). Never pass input here. */
export const raw = (markup: string): SafeHtml => make(markup)

export const joinHtml = (parts: ReadonlyArray<HtmlValue>, separator = ""): SafeHtml =>
  make(parts.map(render).join(separator))

/** An http(s) URL fit for an href or src, or undefined. Refuses `javascript:` and every other scheme. */
export const safeUrl = (url: string | undefined): string | undefined => {
  if (url === undefined) return undefined
  try {
    const parsed = new URL(url)
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.toString() : undefined
  } catch {
    return undefined
  }
}
