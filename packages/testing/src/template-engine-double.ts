/** A double of the TemplateEngine port for the designs service suite: it checks nothing and compiles nothing (the
 *  source is its own compiled form), lists the `{{name}}` variables a template reads, and substitutes values. The real
 *  engine (`handlebars-email-v2`, its markup checks and MJML compile) is tested by its own package; this double lets
 *  the suite test the designs service's rules (revisions, releases, lifecycle, scoping) on every backend. */
import { MissingTemplateVariables, TemplateEngine, templateEngineTag } from "@mailroom/core"
import { Effect, Layer } from "effect"

const reference = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g

const namesIn = (...parts: ReadonlyArray<string | null>) =>
  [...new Set(parts.flatMap((part) => part === null ? [] : [...part.matchAll(reference)].map((match) => match[1]!)))].sort()

export const templateEngineDouble = Layer.succeed(TemplateEngine, TemplateEngine.of({
  prepare: (source) => Effect.succeed({
    engine: templateEngineTag,
    subject: source.subject,
    html: source.html,
    text: source.text,
    variables: namesIn(source.subject, source.html, source.text),
  }),
  render: (release, values, options) => Effect.gen(function* () {
    const given = { ...values.variables, ...values.pipeline }
    if (options.mode === "strict") {
      const missing = Object.entries(options.declared ?? {}).filter(([name, spec]) => spec.required === true && !(name in given))
      if (missing.length > 0) return yield* Effect.fail(new MissingTemplateVariables({ names: missing.map(([name]) => name) }))
    }
    const fill = (part: string) => part.replace(reference, (whole, name: string) =>
      name in given ? String(given[name]) : options.mode === "legacy" ? whole : "")
    return { subject: fill(release.subject), html: fill(release.html), text: fill(release.text ?? "") }
  }),
}))
