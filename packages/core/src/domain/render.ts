/** Rendering a message's content: Handlebars variables (case-sensitive) in the subject, html and text; values are
 *  escaped in html and kept as they are in the subject and text; a text part is derived from the html when the
 *  message has none. Spec: sending, rule 6. Pure: no I/O, the same input renders the same output. */
import { Either } from "effect"
import Handlebars from "handlebars"
import { compile as compileConverter } from "html-to-text"
import { ValidationFailed } from "../errors.js"

/** One engine for Mailroom, apart from the global one a host may use: no helpers or partials are registered here, and
 *  `knownHelpersOnly` refuses any helper but the built-in ones (if, unless, each, with, lookup). */
const engine = Handlebars.create()
const compileOptions = { knownHelpersOnly: true, strict: false } as const

type Template = (variables: Readonly<Record<string, string>>) => string

export interface ContentSource {
  readonly subject: string
  readonly html?: string | undefined
  readonly text?: string | undefined
}

export interface CompiledContent {
  readonly subject: Template
  readonly html: Template | undefined
  readonly text: Template | undefined
}

export interface RenderedContent {
  readonly subject: string
  readonly html: string | undefined
  readonly text: string
}

const compileOne = (source: string, field: string, noEscape: boolean, checked: boolean): Either.Either<Template, ValidationFailed> =>
  Either.try({
    try: () => {
      // compile is lazy; precompile runs the whole compiler now, so that syntax errors and unknown helpers are
      // reported when the message is accepted rather than when it is delivered (which skips it: `checked`).
      if (!checked) engine.precompile(source, { ...compileOptions, noEscape })
      const template = engine.compile<Record<string, string>>(source, { ...compileOptions, noEscape })
      return (variables: Readonly<Record<string, string>>) => template(variables)
    },
    catch: (error) => new ValidationFailed({ field, detail: `is not a valid template: ${firstLine(error)}` }),
  })

const firstLine = (error: unknown) => String(error instanceof Error ? error.message : error).split("\n")[0]!

/** Compiles the three parts once; a batch renders the result for each of its recipients. `path` prefixes the field
 *  named in a syntax error. `checked`: the content was compiled at acceptance already, so its syntax is not checked
 *  again up front (a failure still shows when it renders). */
export const compileContent = (
  source: ContentSource,
  path = "content.",
  options: { readonly checked?: boolean } = {},
): Either.Either<CompiledContent, ValidationFailed> =>
  Either.gen(function* () {
    const checked = options.checked === true
    const subject = yield* compileOne(source.subject, `${path}subject`, true, checked)
    const html = source.html === undefined ? undefined : yield* compileOne(source.html, `${path}html`, false, checked)
    const text = source.text === undefined ? undefined : yield* compileOne(source.text, `${path}text`, true, checked)
    return { subject, html, text }
  })

/** The text part of an html body: readable plain text, links kept as "label [url]", wrapped at 78 columns. The options
 *  are compiled once: compiling them on every call cost more than the conversion. */
export const htmlToText: (html: string) => string = compileConverter({
  wordwrap: 78,
  selectors: [
    { selector: "img", format: "skip" },
    { selector: "a", options: { hideLinkHrefIfSameAsText: true } },
  ],
})

/** A rendered subject is one header line: line breaks a variable brought in become spaces. */
const oneLine = (subject: string) => subject.replace(/\r\n|[\r\n]/g, " ")

/** Renders the content with `variables`. A runtime failure (a block helper given the wrong shape) is reported on the
 *  part that failed. */
export const renderContent = (
  compiled: CompiledContent,
  variables: Readonly<Record<string, string>>,
  path = "content.",
): Either.Either<RenderedContent, ValidationFailed> => {
  const run = (template: Template, field: string) =>
    Either.try({
      try: () => template(variables),
      catch: (error) => new ValidationFailed({ field: `${path}${field}`, detail: `could not be rendered: ${firstLine(error)}` }),
    })
  return Either.gen(function* () {
    const subject = oneLine(yield* run(compiled.subject, "subject"))
    const html = compiled.html === undefined ? undefined : yield* run(compiled.html, "html")
    const text = compiled.text !== undefined ? yield* run(compiled.text, "text") : htmlToText(html ?? "")
    return { subject, html, text }
  })
}
