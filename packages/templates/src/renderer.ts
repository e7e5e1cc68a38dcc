/** Rendering a release with `handlebars-email-v2`: each release compiled once (bounded cache keyed by release), values
 *  escaped in the html and kept in the subject and text, in the lenient, strict or legacy mode. Spec: sending rules 5
 *  and 6, "Design (Studio template)", "Legacy templates". */
import {
  type InlineContent, type ReleaseContent, type RenderedInline, type RenderedTemplate, type RenderOptions, type RenderValues,
  type TemplateRenderError, ValidationFailed,
} from "@mailroom/core"
import { Either } from "effect"
import Handlebars from "handlebars"
import { makeBoundedCache } from "./compiled-cache.js"
import { htmlToText } from "./html-to-text.js"
import { parseTemplate, type Placeholder, templateFacts } from "./handlebars-ast.js"
import { urlExpressions, urlProblem } from "./markup-check.js"
import { renderContext, withLiterals } from "./variables.js"

/** Mailroom's own Handlebars environment, apart from the global one a host may use: no helpers or partials are
 *  registered, and `knownHelpersOnly` refuses any helper but the built-in ones. */
const engine = Handlebars.create()
const compileOptions = { knownHelpersOnly: true, strict: false } as const
/** Prototype access stays blocked and helperMissing is never called: the defaults of Handlebars 4.6+, written out so
 *  that a later default cannot open them. */
const runtimeOptions: Handlebars.RuntimeOptions = {
  allowProtoPropertiesByDefault: false,
  allowProtoMethodsByDefault: false,
  allowCallsToHelperMissing: false,
}

type Part = "subject" | "html" | "text"
type Template = (context: unknown) => string

interface Compiled {
  /** The content this entry was compiled from: a key reused for other content is compiled again, never served stale. */
  readonly source: ReleaseContent
  readonly parts: { readonly subject: Template; readonly html: Template; readonly text: Template | undefined }
  readonly rootNames: ReadonlyArray<string>
  readonly placeholders: ReadonlyArray<Placeholder>
  /** Paths of the variables that start a URL attribute of the html (`href="{{order_url}}"`). */
  readonly urlPaths: ReadonlyArray<ReadonlyArray<string>>
}

/** The root-context path of the expression an attribute value starts with (`{{order.url}}…` gives order, url). */
const leadingPath = (value: string): ReadonlyArray<string> | undefined => {
  try {
    const first = parseTemplate(value).body[0]
    if (first?.type !== "MustacheStatement") return undefined
    const path = (first as hbs.AST.MustacheStatement).path
    return path.type === "PathExpression" && !(path as hbs.AST.PathExpression).data && (path as hbs.AST.PathExpression).depth === 0
      ? (path as hbs.AST.PathExpression).parts
      : undefined
  } catch {
    return undefined
  }
}

const valueAt = (context: Readonly<Record<string, unknown>>, parts: ReadonlyArray<string>): unknown => {
  let value: unknown = context
  for (const part of parts) {
    if (typeof value !== "object" || value === null || !Object.prototype.hasOwnProperty.call(value, part)) return undefined
    value = (value as Record<string, unknown>)[part]
  }
  return value
}

const firstLine = (error: unknown) => String(error instanceof Error ? error.message : error).split("\n")[0]!

/** Runs the whole compiler over a part now (compile is lazy), so that an unknown helper or a malformed block is
 *  reported when the draft is saved rather than when it is sent. Throws Handlebars' error. */
export const checkCompiles = (source: string, noEscape: boolean): void => {
  engine.precompile(source, { ...compileOptions, noEscape })
}

const compilePart = (source: string, noEscape: boolean): Template => {
  const template = engine.compile(source, { ...compileOptions, noEscape })
  return (context) => template(context, runtimeOptions)
}

const sameContent = (a: ReleaseContent, b: ReleaseContent) =>
  a.subject === b.subject && a.html === b.html && a.text === b.text

/** A subject is one header line: line breaks a value brought in become spaces. */
const oneLine = (subject: string) => subject.replace(/\r\n|[\r\n]/g, " ")

export interface RendererOptions {
  /** How many compiled releases to keep (default 1,000). */
  readonly cacheSize?: number | undefined
}

export interface Renderer {
  readonly render: (release: ReleaseContent, values: RenderValues, options: RenderOptions) => Either.Either<RenderedTemplate, TemplateRenderError>
  readonly renderInline: (content: InlineContent, values: RenderValues, path?: string) => Either.Either<RenderedInline, ValidationFailed>
  /** How many times a release was compiled since the renderer was made (for tests and metrics). */
  readonly compilations: () => number
  readonly cached: () => number
}

export const makeRenderer = (options: RendererOptions = {}): Renderer => {
  const cache = makeBoundedCache<Compiled>(options.cacheSize ?? 1_000)
  let compilations = 0

  const compile = (release: ReleaseContent): Either.Either<Compiled, ValidationFailed> => {
    const hit = cache.get(release.cacheKey)
    if (hit !== undefined && sameContent(hit.source, release)) return Either.right(hit)
    return Either.try({
      try: () => {
        const parts: Array<[Part, string]> = [["subject", release.subject], ["html", release.html]]
        if (release.text !== null) parts.push(["text", release.text])
        const facts = parts.map(([, source]) => templateFacts(parseTemplate(source)))
        const compiled: Compiled = {
          source: { cacheKey: release.cacheKey, subject: release.subject, html: release.html, text: release.text },
          parts: {
            subject: compilePart(release.subject, true),
            html: compilePart(release.html, false),
            text: release.text === null ? undefined : compilePart(release.text, true),
          },
          rootNames: [...new Set(facts.flatMap((f) => f.rootNames))],
          placeholders: facts.flatMap((f) => f.placeholders),
          urlPaths: urlExpressions(release.html).flatMap((value) => {
            const path = leadingPath(value)
            return path === undefined ? [] : [path]
          }),
        }
        compilations++
        cache.set(release.cacheKey, compiled)
        return compiled
      },
      // A release was checked by prepare before it was stored; this is for content stored by other means.
      catch: (error) => new ValidationFailed({ field: "template", detail: `is not a valid template: ${firstLine(error)}` }),
    })
  }

  const run = (template: Template, context: unknown, field: Part) =>
    Either.try({
      try: () => template(context),
      catch: (error) => new ValidationFailed({ field, detail: `could not be rendered: ${firstLine(error)}` }),
    })

  const render: Renderer["render"] = (release, values, renderOptions) =>
    Either.gen(function* () {
      const compiled = yield* compile(release)
      const base = yield* renderContext(values, renderOptions, compiled.rootNames)
      for (const parts of compiled.urlPaths) {
        const value = valueAt(base, parts)
        const problem = typeof value === "string" ? urlProblem(value) : undefined
        if (problem !== undefined) {
          return yield* Either.left(new ValidationFailed({
            field: `variables.${parts.join(".")}`,
            detail: `is ${problem}; a link in a template must be an http, https or mailto URL`,
          }))
        }
      }
      const context = renderOptions.mode === "legacy"
        ? withLiterals(base, compiled.placeholders, (text) => new engine.SafeString(text))
        : base
      const subject = oneLine(yield* run(compiled.parts.subject, context, "subject"))
      const html = yield* run(compiled.parts.html, context, "html")
      const text = compiled.parts.text === undefined ? htmlToText(html) : yield* run(compiled.parts.text, context, "text")
      return { subject, html, text }
    })

  /** Inline content: each part compiled for this call, in the same environment, lenient, with no URL checks. */
  const renderInline: Renderer["renderInline"] = (content, values, path = "content.") =>
    Either.gen(function* () {
      const part = (source: string, field: Part) =>
        Either.try({
          try: () => compilePart(source, field !== "html"),
          catch: (error) => new ValidationFailed({ field: `${path}${field}`, detail: `is not a valid template: ${firstLine(error)}` }),
        })
      // The pipeline's values win over variables of the same names, as in renderContext.
      const context = { ...values.variables, ...values.pipeline, ...(values.theme === undefined ? {} : { theme: values.theme }) }
      const runPart = (template: Template, field: Part) =>
        Either.mapLeft(run(template, context, field), (error) => new ValidationFailed({ field: `${path}${field}`, detail: error.detail }))
      const subject = oneLine(yield* runPart(yield* part(content.subject, "subject"), "subject"))
      const html = content.html === undefined ? undefined : yield* runPart(yield* part(content.html, "html"), "html")
      const text = content.text === undefined ? htmlToText(html ?? "") : yield* runPart(yield* part(content.text, "text"), "text")
      return { subject, html, text }
    })

  return { render, renderInline, compilations: () => compilations, cached: cache.size }
}
