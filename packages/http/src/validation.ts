/** Reading request input: the JSON body and the query string, decoded with core's decodeInput, so that every
 *  ParseError becomes the same ValidationFailed over HTTP as through the facade or the services. */
import { decodeInput, type DecodeOptions, type PayloadTooLarge, ValidationFailed } from "@mailroom/core"
import { Effect, Either, type Schema } from "effect"
import type { Context } from "hono"
import { readBody } from "./body.js"
import type { MailroomEnv } from "./env.js"

/** Refuses malformed UTF-8. One decoder serves every request: a call without `stream` starts from a clean state. */
const utf8 = new TextDecoder("utf-8", { fatal: true })

const parseJson = (bytes: Uint8Array): Either.Either<unknown, ValidationFailed> =>
  Either.try({
    try: () => JSON.parse(utf8.decode(bytes)) as unknown,
    // The parser's own wording differs between Node versions, so it is not passed on.
    catch: () => new ValidationFailed({ detail: "the request body is not valid JSON" }),
  })

/** The request's JSON body, an object, for a service method that decodes it with its own schema (core's services
 *  decode what they are given, so the route does not decode it twice). `I` is the encoded input the method takes: the
 *  body is not checked against it here. */
export const readJson = <I>(c: Context<MailroomEnv>): Effect.Effect<I, ValidationFailed | PayloadTooLarge> =>
  Effect.flatMap(readBody(c.req.raw, c.get("bodyLimitBytes")), (bytes) => {
    if (bytes.length === 0) return Effect.fail(new ValidationFailed({ detail: "the request body is empty; send a JSON object" }))
    const json = parseJson(bytes)
    if (Either.isLeft(json)) return Effect.fail(json.left)
    if (typeof json.right !== "object" || json.right === null || Array.isArray(json.right)) {
      return Effect.fail(new ValidationFailed({ detail: "the request body must be a JSON object" }))
    }
    return Effect.succeed(json.right as I)
  })

/** The request's JSON body decoded with `schema`: at most the configured body limit (PAYLOAD_TOO_LARGE), valid JSON,
 *  a JSON object, and no field the schema does not name unless `onExcessProperty: "ignore"`. */
export const decodeJson = <A, I>(
  c: Context<MailroomEnv>,
  schema: Schema.Schema<A, I, never>,
  options: DecodeOptions = {},
): Effect.Effect<A, ValidationFailed | PayloadTooLarge> =>
  Effect.flatMap(readJson<unknown>(c), (json) => decodeInput(schema, json, options))

/** The query string decoded with `schema`. Unknown parameters are ignored unless `onExcessProperty: "error"`. */
export const decodeQuery = <A, I>(
  c: Context<MailroomEnv>,
  schema: Schema.Schema<A, I, never>,
  options: DecodeOptions = {},
): Effect.Effect<A, ValidationFailed> =>
  decodeInput(schema, c.req.query(), { onExcessProperty: options.onExcessProperty ?? "ignore" })

export { decodeInput, toValidationFailed } from "@mailroom/core"
export type { DecodeOptions } from "@mailroom/core"
