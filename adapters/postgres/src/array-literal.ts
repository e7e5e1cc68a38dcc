/** Array parameters written as Postgres array literals in one native pass. Mailroom's set-based statements bind one
 *  array per column (see rowsStatement in @mailroom/sql), and pg writes each array element by element, escaping every
 *  string with two regular-expression replaces and concatenating the results: for a column of JSON bodies, the
 *  largest share of what a batch allocates. JSON.stringify escapes a string exactly as an array literal does (`"` and
 *  `\` behind a backslash, the whole in double quotes) as long as it holds no control character and no lone surrogate
 *  (which JSON writes as escapes that an array literal would read differently), and writes `null` where the literal
 *  needs NULL. An array with anything else (dates, buffers, nested arrays, numbers that are not safe integers, or a
 *  string JSON would escape otherwise) is left to pg. */

/** Whether JSON.stringify writes `value` as Postgres reads an array element: null, a boolean, a safe integer or a
 *  string (checked on the written text, below). */
const plainElement = (value: unknown) =>
  value === null || value === undefined || typeof value === "string" || typeof value === "boolean" ||
  (typeof value === "number" && Number.isSafeInteger(value))

/** Whether every backslash in `json` escapes a `"` or a `\`: the only escapes an array literal reads as JSON wrote
 *  them. */
const onlyQuoteEscapes = (json: string) => {
  for (let at = json.indexOf("\\"); at !== -1; at = json.indexOf("\\", at + 2)) {
    const next = json.charCodeAt(at + 1)
    if (next !== 34 /* " */ && next !== 92 /* \ */) return false
  }
  return true
}

/** The array literal of `values` (`{"a","b",null}`), or undefined when pg must write it. */
export const arrayLiteral = (values: ReadonlyArray<unknown>): string | undefined => {
  for (const value of values) if (!plainElement(value)) return undefined
  const json = JSON.stringify(values)
  return onlyQuoteEscapes(json) ? `{${json.slice(1, -1)}}` : undefined
}

/** `params` with each array that `arrayLiteral` can write replaced by its literal (the same array when there is none). */
export const withArrayLiterals = (params: ReadonlyArray<unknown>): ReadonlyArray<unknown> => {
  let written: Array<unknown> | undefined
  for (let i = 0; i < params.length; i++) {
    const param = params[i]
    if (!Array.isArray(param)) continue
    const literal = arrayLiteral(param)
    if (literal === undefined) continue
    written ??= [...params]
    written[i] = literal
  }
  return written ?? params
}
