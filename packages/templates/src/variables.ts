/** The variable rules of the three render modes (spec: "Design (Studio template)", account and application templates;
 *  "Legacy templates", render), as pure functions over the given values and what the template reads. */
import {
  type DeclaredVariable, type DeclaredVariables, MissingTemplateVariables, MistypedTemplateVariables,
  type RenderOptions, type RenderValues, UnknownTemplateVariables,
} from "@mailroom/core"
import { Either } from "effect"
import type { Placeholder } from "./handlebars-ast.js"

/** Names the pipeline fills or the brand provides: never required of the caller, never unknown. */
export const pipelineNames: ReadonlySet<string> = new Set(["theme", "unsubscribe_url", "preferences_url"])

const isGiven = (variables: Readonly<Record<string, unknown>>, name: string) =>
  Object.prototype.hasOwnProperty.call(variables, name) && variables[name] !== undefined && variables[name] !== null

const isPlainObject = (value: unknown) =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isWebUrl = (value: string) => {
  try {
    const url = new URL(value)
    return url.protocol === "https:" || url.protocol === "http:"
  } catch {
    return false
  }
}

/** What a value of a declared variable must be, or undefined when it is. Types the schema does not name pass. */
const typeProblem = (declared: DeclaredVariable, value: unknown): string | undefined => {
  switch (declared.type) {
    case "string":
      if (typeof value !== "string") return "a string"
      return declared.format === "url" && !isWebUrl(value) ? "an http or https URL" : undefined
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? undefined : "a number"
    case "boolean":
      return typeof value === "boolean" ? undefined : "a boolean"
    case "array":
      return Array.isArray(value) ? undefined : "an array"
    case "object":
      return isPlainObject(value) ? undefined : "an object"
    default:
      return undefined
  }
}

type VariableError = MissingTemplateVariables | UnknownTemplateVariables | MistypedTemplateVariables

/** Strict mode: every required variable given, none undeclared, each of its declared type. Without a schema, the
 *  variables the template reads are the declared ones, all required. The first failing rule is reported, naming every
 *  variable it concerns. */
export const checkStrict = (
  variables: Readonly<Record<string, unknown>>,
  declared: DeclaredVariables | undefined,
  rootNames: ReadonlyArray<string>,
  pipeline: ReadonlySet<string>,
): Either.Either<void, VariableError> => {
  const schema: DeclaredVariables = declared ??
    Object.fromEntries(rootNames.filter((name) => !pipelineNames.has(name)).map((name) => [name, { required: true }]))
  const missing = Object.entries(schema)
    .filter(([name, spec]) => spec.required === true && !pipeline.has(name) && !isGiven(variables, name))
    .map(([name]) => name)
  if (missing.length > 0) return Either.left(new MissingTemplateVariables({ names: missing }))
  const unknown = Object.keys(variables)
    .filter((name) => !Object.prototype.hasOwnProperty.call(schema, name) && !pipelineNames.has(name) && !pipeline.has(name))
  if (unknown.length > 0) return Either.left(new UnknownTemplateVariables({ names: unknown }))
  const problems = Object.entries(schema).flatMap(([name, spec]) => {
    if (!isGiven(variables, name)) return []
    const expected = typeProblem(spec, variables[name])
    return expected === undefined ? [] : [{ name, expected }]
  })
  return problems.length > 0 ? Either.left(new MistypedTemplateVariables({ problems })) : Either.right(undefined)
}

/** Legacy mode: each simple placeholder whose value is not given renders as its own literal `{{name}}`. Returns the
 *  context with those literals set (as safe strings, so the html part does not escape the braces' neighbours). */
export const withLiterals = (
  context: Record<string, unknown>,
  placeholders: ReadonlyArray<Placeholder>,
  literal: (text: string) => unknown,
): Record<string, unknown> => {
  let result = context
  for (const { parts, literal: text } of placeholders) {
    if (resolves(result, parts)) continue
    result = setPath(result, parts, literal(text))
  }
  return result
}

const resolves = (context: Readonly<Record<string, unknown>>, parts: ReadonlyArray<string>): boolean => {
  let value: unknown = context
  for (const part of parts) {
    if (!isPlainObject(value) || !Object.prototype.hasOwnProperty.call(value, part)) return false
    value = (value as Record<string, unknown>)[part]
  }
  return value !== undefined && value !== null
}

/** A copy of `target` with `value` at `parts`; parents that are missing become objects. A parent that holds something
 *  else than an object (a string) is left alone: that placeholder then renders empty, as Handlebars renders it. */
const setPath = (target: Record<string, unknown>, parts: ReadonlyArray<string>, value: unknown): Record<string, unknown> => {
  const [head, ...rest] = parts
  if (head === undefined) return target
  const copy: Record<string, unknown> = { ...target }
  if (rest.length === 0) {
    copy[head] = value
    return copy
  }
  const child = Object.prototype.hasOwnProperty.call(target, head) ? target[head] : undefined
  if (child !== undefined && child !== null && !isPlainObject(child)) return target
  copy[head] = setPath((child ?? {}) as Record<string, unknown>, rest, value)
  return copy
}

/** The context a template renders with: the variables, then the pipeline's values, then the brand as `theme` (the
 *  last ones win). Strict mode checks the variables first. */
export const renderContext = (
  values: RenderValues,
  options: RenderOptions,
  rootNames: ReadonlyArray<string>,
): Either.Either<Record<string, unknown>, VariableError> => {
  const pipeline = values.pipeline ?? {}
  if (options.mode === "strict") {
    const checked = checkStrict(values.variables, options.declared, rootNames, new Set(Object.keys(pipeline)))
    if (Either.isLeft(checked)) return Either.left(checked.left)
  }
  return Either.right({
    ...values.variables,
    ...pipeline,
    ...(values.theme === undefined ? {} : { theme: values.theme }),
  })
}
