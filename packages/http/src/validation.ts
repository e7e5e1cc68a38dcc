/** Decoding of request input with Schema. Every ParseError becomes one ValidationFailed that names the dotted path of
 *  the first problem (error.context.field) and says what is wrong with it in plain words. */
import { PayloadTooLarge, ValidationFailed } from "@mailroom/core"
import { Effect, Either, ParseResult, Schema } from "effect"
import type { Context } from "hono"
import { readBody } from "./body.js"
import type { MailroomEnv } from "./env.js"

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

export interface DecodeOptions {
  /** "error" (default for bodies) refuses fields the schema does not name; "ignore" drops them. */
  readonly onExcessProperty?: "error" | "ignore"
}

/** Decodes already parsed input with `schema`, mapping failures to ValidationFailed. Request schemas are synchronous,
 *  so decoding runs in one step rather than as an effect of its own. */
export const decodeInput = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown, options: DecodeOptions = {}) =>
  Either.match(
    Schema.decodeUnknownEither(schema, { onExcessProperty: options.onExcessProperty ?? "error", errors: "first" })(input),
    { onLeft: (error) => Effect.fail(toValidationFailed(error)), onRight: Effect.succeed },
  )

/** Refuses malformed UTF-8. One decoder serves every request: a call without `stream` starts from a clean state. */
const utf8 = new TextDecoder("utf-8", { fatal: true })

const parseJson = (bytes: Uint8Array): Either.Either<unknown, ValidationFailed> =>
  Either.try({
    try: () => JSON.parse(utf8.decode(bytes)) as unknown,
    // The parser's own wording differs between Node versions, so it is not passed on.
    catch: () => new ValidationFailed({ detail: "the request body is not valid JSON" }),
  })

/** The request's JSON body decoded with `schema`: at most the configured body limit (PAYLOAD_TOO_LARGE), valid JSON,
 *  a JSON object, and no field the schema does not name unless `onExcessProperty: "ignore"`. */
export const decodeJson = <A, I>(
  c: Context<MailroomEnv>,
  schema: Schema.Schema<A, I, never>,
  options: DecodeOptions = {},
): Effect.Effect<A, ValidationFailed | PayloadTooLarge> =>
  Effect.flatMap(readBody(c.req.raw, c.get("bodyLimitBytes")), (bytes) => {
    if (bytes.length === 0) return Effect.fail(new ValidationFailed({ detail: "the request body is empty; send a JSON object" }))
    const json = parseJson(bytes)
    if (Either.isLeft(json)) return Effect.fail(json.left)
    if (typeof json.right !== "object" || json.right === null || Array.isArray(json.right)) {
      return Effect.fail(new ValidationFailed({ detail: "the request body must be a JSON object" }))
    }
    return decodeInput(schema, json.right, options)
  })

/** The query string decoded with `schema`. Unknown parameters are ignored unless `onExcessProperty: "error"`. */
export const decodeQuery = <A, I>(
  c: Context<MailroomEnv>,
  schema: Schema.Schema<A, I, never>,
  options: DecodeOptions = {},
): Effect.Effect<A, ValidationFailed> =>
  decodeInput(schema, c.req.query(), { onExcessProperty: options.onExcessProperty ?? "ignore" })
