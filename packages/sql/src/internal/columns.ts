/** Column codecs shared by every repository. Both dialects store the same column types (epoch milliseconds in
 *  BIGINT, JSON as text), but their drivers hand them back in different shapes; these schemas accept both. */
import { ParseResult, Schema } from "effect"

/** An integer column or aggregate: SQLite answers a number, node-postgres a string for BIGINT and COUNT(*). */
export const IntegerColumn = Schema.Union(Schema.Number, Schema.NumberFromString)

/** A column holding one of the literals of `schema`, checked by one set lookup: decoding a union of many literals (the
 *  event types) tries them one by one, and costs more than the rest of a row. */
export const LiteralColumn = <const Literals extends readonly [string, ...Array<string>]>(schema: Schema.Literal<Literals>) => {
  const allowed = new Set<unknown>(schema.literals)
  return Schema.declare((value: unknown): value is Literals[number] => allowed.has(value), {
    description: `one of ${schema.literals.join(", ")}`,
  })
}

/** A timestamp stored as epoch milliseconds. */
export const EpochMillis = Schema.transform(IntegerColumn, Schema.DateFromSelf, {
  strict: true,
  decode: (millis) => new Date(millis),
  encode: (date) => date.getTime(),
})

const ParsedJson = Schema.transformOrFail(Schema.Unknown, Schema.Unknown, {
  strict: true,
  decode: (value, _, ast) =>
    typeof value !== "string"
      ? ParseResult.succeed(value)
      : ParseResult.try({
        try: () => JSON.parse(value) as unknown,
        catch: (cause) => new ParseResult.Type(ast, value, `stored JSON does not parse: ${String(cause)}`),
      }),
  encode: (value) => ParseResult.succeed(JSON.stringify(value)),
})

/** A JSON column holding `schema`: SQLite answers the text, node-postgres the parsed value of a `json` column. Only
 *  objects and arrays are stored this way, so a string is always undecoded text. */
export const JsonColumn = <A, I>(schema: Schema.Schema<A, I>) => Schema.compose(ParsedJson, schema, { strict: false })

/** The value to bind for a JSON column. */
export const toJson = (value: unknown): string => JSON.stringify(value)

/** The value to bind for a timestamp column. */
export const toMillis = (date: Date): number => date.getTime()

export const toMillisOrNull = (date: Date | null): number | null => date === null ? null : date.getTime()
