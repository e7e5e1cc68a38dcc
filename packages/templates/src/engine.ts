/** The `handlebars-email-v2` engine behind core's TemplateEngine port: `prepare` checks and compiles a draft's source
 *  on save and publish, `render` renders a release per send from a bounded cache of compiled releases. */
import {
  InvalidTemplateSyntax, type MarkupFinding, type PreparedTemplate, TemplateEngine, templateEngineTag,
  type TemplateEngineService, type TemplateSource, UnsafeTemplateMarkup,
} from "@mailroom/core"
import { Effect, Layer } from "effect"
import { contentOnly, errorLine, parseTemplate, templateFacts } from "./handlebars-ast.js"
import { checkMarkup } from "./markup-check.js"
import { makeMjmlCompiler, type MjmlOptions } from "./mjml-compiler.js"
import { checkCompiles, makeRenderer, type RendererOptions } from "./renderer.js"
import { pipelineNames } from "./variables.js"

export interface TemplateEngineOptions extends RendererOptions {
  readonly mjml?: MjmlOptions | undefined
}

type Part = "subject" | "html" | "text"

const firstLine = (error: unknown) => String(error instanceof Error ? error.message : error).split("\n")[0]!

/** Parses and compiles one part as Handlebars, or fails naming the part and line. */
const parsePart = (source: string, field: Part) =>
  Effect.try({
    try: () => {
      const program = parseTemplate(source)
      checkCompiles(source, field !== "html")
      return program
    },
    catch: (error) => new InvalidTemplateSyntax({ field, line: errorLine(error), detail: `is not a valid template: ${firstLine(error)}` }),
  })

const dedupe = (findings: ReadonlyArray<MarkupFinding>) => {
  const seen = new Set<string>()
  return findings
    .filter((f) => {
      const key = `${f.problem}|${f.line}|${f.column}`
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
    .sort((a, b) => a.line - b.line || a.column - b.column)
}

/** The markup findings of an html part: the source as written, and the source with its expressions taken out. The
 *  unescaped-output and partial refusals of the syntax tree come with them. */
const htmlFindings = (source: string, program: hbs.AST.Program, refused: ReadonlyArray<MarkupFinding>) => {
  const stripped = contentOnly(source, program)
  return dedupe([...refused, ...checkMarkup(source), ...checkMarkup(source, stripped.text, stripped.at)])
}

export interface TemplateEngineHandle {
  readonly service: TemplateEngineService
  /** Compilations of releases so far (each cache key compiled once while it stays cached). */
  readonly compilations: () => number
  readonly cached: () => number
}

/** Makes the engine; its MJML worker is terminated when the scope closes. */
export const makeTemplateEngine = (options: TemplateEngineOptions = {}) =>
  Effect.gen(function* () {
    const renderer = makeRenderer(options)
    const mjml = yield* makeMjmlCompiler(options.mjml)
    yield* Effect.addFinalizer(() => mjml.close)

    const prepare = Effect.fn("TemplateEngine.prepare")(function* (source: TemplateSource) {
      // The markup as written is checked before its Handlebars is parsed: a refusal names the markup it found.
      const written = dedupe(checkMarkup(source.html))
      if (written.length > 0) return yield* new UnsafeTemplateMarkup({ field: "html", findings: written })
      const subject = yield* parsePart(source.subject, "subject")
      const text = source.text === null ? undefined : yield* parsePart(source.text, "text")
      const sourceHtml = yield* parsePart(source.html, "html")
      const sourceFacts = templateFacts(sourceHtml)
      const unsupported = [subject, text].flatMap((program) => program === undefined ? [] : templateFacts(program).refused)
        .filter((finding) => finding.kind === "unsupported")
      const findings = htmlFindings(source.html, sourceHtml, sourceFacts.refused)
      if (findings.length > 0 || unsupported.length > 0) {
        return yield* new UnsafeTemplateMarkup({ field: "html", findings: dedupe([...unsupported, ...findings]) })
      }
      let html = source.html
      if (source.format === "mjml") {
        html = yield* mjml.compile(source.html, "html")
        // MJML writes its own markup around the source's: the output is checked as well, naming where in the output.
        const compiled = yield* parsePart(html, "html")
        const outputFindings = htmlFindings(html, compiled, templateFacts(compiled).refused)
        if (outputFindings.length > 0) {
          return yield* new UnsafeTemplateMarkup({
            field: "html",
            findings: outputFindings.map((f) => ({ ...f, path: `compiled HTML: ${f.path}` })),
          })
        }
      }
      const names = [subject, sourceHtml, ...(text === undefined ? [] : [text])].flatMap((p) => templateFacts(p).rootNames)
      const variables = [...new Set(names)].filter((name) => !pipelineNames.has(name)).sort()
      return { engine: templateEngineTag, subject: source.subject, html, text: source.text, variables } satisfies PreparedTemplate
    })

    const render: TemplateEngineService["render"] = (release, values, renderOptions) =>
      Effect.suspend(() => renderer.render(release, values, renderOptions))

    const renderInline: TemplateEngineService["renderInline"] = (content, values, path) =>
      Effect.suspend(() => renderer.renderInline(content, values, path))

    const handle: TemplateEngineHandle = {
      service: { prepare, render, renderInline },
      compilations: renderer.compilations,
      cached: renderer.cached,
    }
    return handle
  })

/** The engine as the TemplateEngine port, for createMailroom and test layers. */
export const templateEngineLayer = (options: TemplateEngineOptions = {}): Layer.Layer<TemplateEngine> =>
  Layer.scoped(TemplateEngine, Effect.map(makeTemplateEngine(options), (handle) => handle.service))
