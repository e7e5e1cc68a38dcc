/** The shell every hosted page renders through: confirmation, unsubscribe, preference centre and signup form.
 *  Plain server-rendered HTML with one small inlined stylesheet, no script, readable on a phone, and accessible:
 *  `lang`, a title, banner/main/contentinfo landmarks, labelled controls, visible focus and contrast of at least
 *  4.5:1 in the default theme. The look comes from a `PageTheme`; the templates name no colour and no product. */
import { html, joinHtml, raw, safeUrl, type HtmlValue, type SafeHtml } from "./html.js"

/** What a host (or the brand work) sets to make the pages its own. Every field has a neutral default. */
export interface PageTheme {
  /** Shown in the header and in each page's title. */
  readonly productName: string
  /** An http(s) image shown in the header beside the product name; none by default. */
  readonly logoUrl?: string | undefined
  /** Where the product name in the header links to; none by default. */
  readonly homeUrl?: string | undefined
  /** A line of plain text under each page, e.g. a postal address. */
  readonly footerText?: string | undefined
  readonly colors: PageColors
  /** A CSS font-family list. */
  readonly fontFamily: string
  /** The `lang` of the page text. */
  readonly lang: string
}

/** CSS colours (hex, rgb(), hsl() or a named colour). Keep text on background and on surface at 4.5:1 or more. */
export interface PageColors {
  readonly background: string
  readonly surface: string
  readonly text: string
  readonly mutedText: string
  readonly border: string
  readonly accent: string
  readonly accentText: string
  readonly focus: string
  readonly success: string
  readonly danger: string
}

export const defaultPageTheme: PageTheme = {
  productName: "Mailroom",
  colors: {
    background: "#f6f7f9",
    surface: "#ffffff",
    text: "#1c1f23",
    mutedText: "#545b64",
    border: "#c9ced6",
    accent: "#1f5fbf",
    accentText: "#ffffff",
    focus: "#b35c00",
    success: "#1d6b35",
    danger: "#b0281c",
  },
  fontFamily: "system-ui, -apple-system, \"Segoe UI\", Roboto, \"Helvetica Neue\", Arial, sans-serif",
  lang: "en",
}

/** A theme with some fields replaced; colours merge one by one. */
export const makePageTheme = (overrides: Partial<Omit<PageTheme, "colors">> & { colors?: Partial<PageColors> } = {}) =>
  ({ ...defaultPageTheme, ...overrides, colors: { ...defaultPageTheme.colors, ...overrides.colors } }) as PageTheme

// A theme value goes into CSS; one that could close the rule or the <style> element falls back to the default.
const cssColor = /^(#[0-9a-fA-F]{3,8}|(rgb|rgba|hsl|hsla)\([0-9.,%\s/]+\)|[a-zA-Z]{3,30})$/
const colorOr = (value: string, fallback: string) => (cssColor.test(value.trim()) ? value.trim() : fallback)
const fontOr = (value: string, fallback: string) => (/^[\w\s,"'-]{1,200}$/.test(value) ? value : fallback)
const langOr = (value: string) => (/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/.test(value) ? value : defaultPageTheme.lang)

const stylesheet = (theme: PageTheme): SafeHtml => {
  const fallback = defaultPageTheme.colors
  const c = Object.fromEntries(
    (Object.keys(fallback) as Array<keyof PageColors>).map((key) => [key, colorOr(theme.colors[key], fallback[key])]),
  ) as unknown as PageColors
  return raw(`:root{--bg:${c.background};--surface:${c.surface};--text:${c.text};--muted:${c.mutedText};` +
    `--border:${c.border};--accent:${c.accent};--accent-text:${c.accentText};--focus:${c.focus};` +
    `--success:${c.success};--danger:${c.danger};--font:${fontOr(theme.fontFamily, defaultPageTheme.fontFamily)}}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--text);font-family:var(--font);font-size:1rem;line-height:1.5}
.wrap{max-width:36rem;margin:0 auto;padding:1rem}
header.site{display:flex;align-items:center;gap:.75rem;padding:1.25rem 0 .75rem}
header.site img{max-height:2.5rem;max-width:10rem;height:auto}
header.site .name{font-weight:600;color:var(--text);text-decoration:none;font-size:1.125rem}
main{background:var(--surface);border:1px solid var(--border);border-radius:.5rem;padding:1.5rem}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 1rem}
h2{font-size:1.125rem;margin:1.5rem 0 .5rem}
p{margin:0 0 1rem}
a{color:var(--accent);text-underline-offset:.15em}
.muted,.hint{color:var(--muted)}
.hint{font-size:.875rem;margin:.25rem 0 0}
.notice{border-left:4px solid var(--accent);padding:.5rem .75rem;margin:0 0 1rem}
.notice.success{border-color:var(--success)}
.notice.error{border-color:var(--danger)}
form{margin:0}
fieldset{border:1px solid var(--border);border-radius:.375rem;margin:0 0 1rem;padding:.75rem 1rem}
legend{font-weight:600;padding:0 .25rem}
.field{margin:0 0 1rem}
.field>label{display:block;font-weight:600;margin:0 0 .25rem}
.required{color:var(--danger)}
input[type=text],input[type=email],input[type=tel],input[type=url],input[type=number],input[type=date],select,textarea{
display:block;width:100%;min-height:2.75rem;padding:.5rem .75rem;font:inherit;color:var(--text);
background:var(--surface);border:1px solid var(--muted);border-radius:.375rem}
.check{display:flex;gap:.625rem;align-items:flex-start;margin:0 0 .75rem}
.check input{width:1.25rem;height:1.25rem;margin:.15rem 0 0;flex:none;accent-color:var(--accent)}
.check label{font-weight:600}
.check .hint{font-weight:400}
button,.button{display:inline-block;min-height:2.75rem;padding:.5rem 1.25rem;font:inherit;font-weight:600;
border-radius:.375rem;border:2px solid var(--accent);background:var(--accent);color:var(--accent-text);
cursor:pointer;text-decoration:none;text-align:center}
button.secondary,.button.secondary{background:var(--surface);color:var(--accent)}
button.danger{background:var(--surface);color:var(--danger);border-color:var(--danger)}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;margin:1.25rem 0 0}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
footer.site{padding:1rem 0 2rem;font-size:.875rem;color:var(--muted)}
@media (max-width:30rem){.wrap{padding:.75rem}main{padding:1rem}.actions{flex-direction:column;align-items:stretch}}
@media (prefers-reduced-motion:reduce){*{transition:none!important;animation:none!important}}`)
}

export interface PageOptions {
  /** The page's own title; the document title reads `<title> · <product name>`. */
  readonly title: string
  /** The content of <main>. Start it with the page's <h1>. */
  readonly body: SafeHtml
  readonly theme?: PageTheme | undefined
}

/** A complete HTML document. */
export const renderPage = ({ title, body, theme = defaultPageTheme }: PageOptions): string => {
  const logo = safeUrl(theme.logoUrl)
  const home = safeUrl(theme.homeUrl)
  const brand = html`${logo && html`<img src="${logo}" alt="">`}${home
    ? html`<a class="name" href="${home}">${theme.productName}</a>`
    : html`<span class="name">${theme.productName}</span>`}`
  return html`<!doctype html>
<html lang="${langOr(theme.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="same-origin">
<title>${title} · ${theme.productName}</title>
<style>${stylesheet(theme)}</style>
</head>
<body>
<div class="wrap">
<header class="site">${brand}</header>
<main id="main">
${body}
</main>
<footer class="site">${theme.footerText && html`<p>${theme.footerText}</p>`}</footer>
</div>
</body>
</html>
`.value
}

export interface PageResponseOptions extends PageOptions {
  readonly status?: number
  /** Origins allowed to frame the page (a signup form embedded by iframe); none by default. */
  readonly frameAncestors?: ReadonlyArray<string>
  /** Origins a form on the page may post or redirect to besides this one (a form's success redirect). */
  readonly formTargets?: ReadonlyArray<string>
  /** Origins whose scripts and frames the page loads (a bot-challenge widget); none by default. */
  readonly scriptSources?: ReadonlyArray<string>
  readonly frameSources?: ReadonlyArray<string>
  readonly headers?: Record<string, string>
}

/** The page as a Response: never cached, never indexed, no script allowed, framed only where asked. */
export const pageResponse = (options: PageResponseOptions): Response => {
  const ancestors = options.frameAncestors?.length ? options.frameAncestors.join(" ") : "'none'"
  const targets = ["'self'", ...(options.formTargets ?? [])].join(" ")
  const scripts = options.scriptSources?.length ? `; script-src ${options.scriptSources.join(" ")}` : ""
  const frames = options.frameSources?.length ? `; frame-src ${options.frameSources.join(" ")}` : ""
  return new Response(renderPage(options), {
    status: options.status ?? 200,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "x-robots-tag": "noindex, nofollow",
      // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the page's own form posts.
      "referrer-policy": "same-origin",
      "x-content-type-options": "nosniff",
      "content-security-policy":
        `default-src 'none'; style-src 'unsafe-inline'; img-src https: http: data:; form-action ${targets}; ` +
        `frame-ancestors ${ancestors}; base-uri 'none'${scripts}${frames}`,
      ...options.headers,
    },
  })
}

// ---- Building blocks the page templates share. They carry classes, never colours. ----

export type NoticeTone = "info" | "success" | "error"

/** A status line; errors are announced to screen readers as alerts. */
export const notice = (tone: NoticeTone, content: HtmlValue): SafeHtml =>
  html`<div class="notice ${tone}" role="${tone === "error" ? "alert" : "status"}">${content}</div>`

export interface TextFieldOptions {
  readonly name: string
  /** The element id; `f-<name>` by default. */
  readonly id?: string | undefined
  readonly label: string
  readonly type?: "text" | "email" | "tel" | "url" | "number" | "date"
  readonly value?: string | undefined
  readonly required?: boolean
  readonly hint?: string | undefined
  readonly autocomplete?: string | undefined
  readonly maxLength?: number | undefined
}

/** A labelled input; the hint is tied to it with aria-describedby. */
export const textField = (o: TextFieldOptions): SafeHtml => {
  const id = o.id ?? `f-${o.name}`
  return html`<div class="field"><label for="${id}">${o.label}${o.required && html` <span class="required" aria-hidden="true">*</span>`}</label>
<input id="${id}" name="${o.name}" type="${o.type ?? "text"}"${o.value !== undefined && html` value="${o.value}"`}${o.required && raw(" required")}${o.autocomplete && html` autocomplete="${o.autocomplete}"`}${o.maxLength !== undefined && html` maxlength="${o.maxLength}"`}${o.hint && html` aria-describedby="${id}-hint"`}>
${o.hint && html`<p class="hint" id="${id}-hint">${o.hint}</p>`}</div>`
}

export interface CheckboxOptions {
  readonly name: string
  readonly value: string
  readonly label: string
  readonly checked?: boolean
  readonly hint?: string | undefined
  /** Distinguishes boxes that share a name. */
  readonly id: string
}

export const checkboxField = (o: CheckboxOptions): SafeHtml => {
  const id = `c-${o.id}`
  return html`<div class="check"><input id="${id}" type="checkbox" name="${o.name}" value="${o.value}"${o.checked && raw(" checked")}${o.hint && html` aria-describedby="${id}-hint"`}>
<div><label for="${id}">${o.label}</label>${o.hint && html`<p class="hint" id="${id}-hint">${o.hint}</p>`}</div></div>`
}

/** A group of controls under a legend. */
export const fieldset = (legend: string, content: HtmlValue): SafeHtml =>
  html`<fieldset><legend>${legend}</legend>${content}</fieldset>`

export const submitButton = (label: string, variant: "primary" | "secondary" | "danger" = "primary", name?: string, value?: string) =>
  html`<button type="submit"${variant !== "primary" && html` class="${variant}"`}${name !== undefined && html` name="${name}"`}${value !== undefined && html` value="${value}"`}>${label}</button>`

export const linkButton = (href: string, label: string, variant: "primary" | "secondary" = "secondary") =>
  html`<a class="button${variant === "secondary" ? " secondary" : ""}" href="${href}">${label}</a>`

/** A POST form; `hidden` carries values like a token. */
export const postForm = (action: string, content: HtmlValue, hidden: Record<string, string> = {}): SafeHtml =>
  html`<form method="post" action="${action}">${joinHtml(
    Object.entries(hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`),
  )}${content}</form>`
