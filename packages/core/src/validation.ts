/** Decoding of input with Schema, shared by the HTTP routes, the Promise facade and the services. Every ParseError
 *  becomes one ValidationFailed that names the dotted path of the first problem (error.context.field over HTTP) and
 *  says what is wrong with it in plain words. Text that cannot be stored as sent (a lone surrogate, a NUL character)
 *  is refused before decoding, so that every backend answers it alike. */
import { Effect, Either, ParseResult, Schema } from "effect"
import { textProblemIn } from "./domain/text.js"
import { ValidationFailed } from "./errors.js"

type Issue = ParseResult.ArrayFormatterIssue

const typeMismatch = /^Expected ([\s\S]*), actual ([\s\S]*)$/

/** "Expected a, actual x" issues of one field (union alternatives) folded into "must be a or b, got x". */
const describeMismatch = (issues: ReadonlyArray<Issue>): string | undefined => {
  const parsed = issues.flatMap((issue) => {
    const match = issue._tag === "Type" ? typeMismatch.exec(issue.message) : null
    return match ? [{ expected: match[1]!, actual: match[2]! }] : []
  })
  const first = parsed[0]
  if (first === undefined) return undefined
  // `undefined` is the optional-field alternative: the field was sent, so naming it would only confuse.
  const expected = [...new Set(parsed.map((p) => p.expected).filter((e) => e !== "undefined"))]
  return `must be ${expected.join(" or ")}, got ${first.actual}`
}

const describe = (first: Issue, samePath: ReadonlyArray<Issue>): string => {
  switch (first._tag) {
    case "Missing":
      return "is required"
    case "Unexpected":
      return first.message.replace(/^is unexpected, expected: /, "is not a known field; known fields are ").replace(/"/g, "")
    case "Type":
      return describeMismatch(samePath) ?? first.message
    default:
      return first.message
  }
}

const samePath = (a: ReadonlyArray<PropertyKey>, b: ReadonlyArray<PropertyKey>) =>
  a.length === b.length && a.every((key, i) => key === b[i])

/** The ValidationFailed for a ParseError: the first issue's dotted path and a message naming the problem. */
export const toValidationFailed = (error: ParseResult.ParseError): ValidationFailed => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const first = issues[0]
  if (first === undefined) return new ValidationFailed({ detail: "the input is not valid" })
  const field = first.path.map(String).join(".")
  const name = String(first.path[first.path.length - 1] ?? "")
  const described = describe(first, issues.filter((issue) => samePath(issue.path, first.path)))
  // Some schema messages already start with the field's name ("limit must be …"); the message names it once.
  const detail = name !== "" && described.startsWith(`${name} `) ? described.slice(name.length + 1) : described
  return field === "" ? new ValidationFailed({ detail }) : new ValidationFailed({ field, detail })
}

/** The ValidationFailed of input holding a string that cannot be stored as sent (a lone UTF-16 surrogate, a NUL
 *  character), or undefined. Path parameters go through it too, as `{ name: value }`, so that it names the parameter. */
export const unstorableText = (input: unknown): ValidationFailed | undefined => {
  const found = textProblemIn(input)
  if (found === undefined) return undefined
  const { path, problem: detail } = found
  return path.length === 0 ? new ValidationFailed({ detail }) : new ValidationFailed({ field: path.join("."), detail })
}

export interface DecodeOptions {
  /** "error" (default) refuses fields the schema does not name; "ignore" drops them. */
  readonly onExcessProperty?: "error" | "ignore"
}

/** Decodes `input` with `schema` in one step (input schemas are synchronous), as an Either. */
export const decodeInputEither = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown, options: DecodeOptions = {}) => {
  const unstorable = unstorableText(input)
  if (unstorable !== undefined) return Either.left(unstorable)
  return Either.mapLeft(
    Schema.decodeUnknownEither(schema, { onExcessProperty: options.onExcessProperty ?? "error", errors: "first" })(input),
    toValidationFailed,
  )
}

/** Decodes `input` with `schema`, failing with ValidationFailed. */
export const decodeInput = <A, I>(
  schema: Schema.Schema<A, I, never>,
  input: unknown,
  options: DecodeOptions = {},
): Effect.Effect<A, ValidationFailed> =>
  Either.match(decodeInputEither(schema, input, options), { onLeft: Effect.fail, onRight: Effect.succeed })
