/** Text rules every backend shares: the one case folding of case-insensitive search, sort and segment conditions, the
 *  escaping of user text inside LIKE patterns, and the refusal of strings that cannot be stored as sent.
 *  SQL backends store the folded form in columns of their own (written with `foldText`) and compare it bytewise, so
 *  that the answer never depends on the database's locale. docs/contacts.md documents the folding. Text that cannot
 *  be stored as sent (a lone surrogate, a NUL character) is refused wherever input is decoded. */

/** Case folding for case-insensitive matching: the text in NFC, lower-cased, upper-cased, lower-cased again (Unicode's
 *  locale-independent full case mappings, as String.prototype.toLowerCase/toUpperCase apply them), with final sigma
 *  read as σ. Close to Unicode's default full case folding: É→é, ß and ẞ→ss, Σ and ς→σ, П→п, İ→i̇ (i and U+0307),
 *  ı→i, ﬁ→fi. Idempotent, and the same for a string and its upper- or lower-cased forms. Addresses (ASCII, already
 *  lower-case) and E.164 phone numbers fold to themselves. */
export const foldText = (text: string): string => {
  // Most names are ASCII: their folding is plain lower-casing, without the three passes.
  if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase()
  return text.normalize("NFC").toLowerCase().toUpperCase().toLowerCase().replace(/ς/g, "σ").normalize("NFC")
}

/** `foldText`, keeping null. */
export const foldNullable = (text: string | null): string | null => (text === null ? null : foldText(text))

/** `text` with `\`, `%` and `_` escaped, so that it matches literally inside a LIKE pattern written with ESCAPE '\'. */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`)

export type LikeShape = "contains" | "startsWith" | "endsWith" | "equals"

/** The LIKE pattern (ESCAPE '\') matching text that contains, starts with, ends with or equals `text` literally. */
export const likePattern = (text: string, shape: LikeShape): string => {
  const literal = escapeLike(text)
  switch (shape) {
    case "contains": return `%${literal}%`
    case "startsWith": return `${literal}%`
    case "endsWith": return `%${literal}`
    case "equals": return literal
  }
}

/** What `subject LIKE likePattern(text, shape)` answers, computed without SQL: the meaning of the pattern. */
export const matchesLike = (subject: string, text: string, shape: LikeShape): boolean => {
  switch (shape) {
    case "contains": return subject.includes(text)
    case "startsWith": return subject.startsWith(text)
    case "endsWith": return subject.endsWith(text)
    case "equals": return subject === text
  }
}

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Whether `text` is well-formed Unicode: no lone UTF-16 surrogate. */
export const isWellFormedText = (text: string): boolean => !loneSurrogate.test(text)

/** Why `text` cannot be stored as it was sent, or undefined when it can. A lone UTF-16 surrogate has no UTF-8 form; a
 *  NUL character (U+0000) cannot be held by Postgres text (SQLite and memory keep it, so accepting it would make the
 *  backends answer differently), and no field of Mailroom needs one. */
export const textProblem = (text: string): string | undefined =>
  !isWellFormedText(text) ? "must be well-formed Unicode text: it holds a lone UTF-16 surrogate"
  : text.includes("\u0000") ? "must not contain NUL characters (U+0000)"
  : undefined

/** The first string in an input that cannot be stored as sent: its path (dotted, as ValidationFailed names fields;
 *  a key's problem is reported at the object holding it) and what is wrong with it. */
export interface TextProblem {
  readonly path: ReadonlyArray<string>
  readonly problem: string
}

/** The first string in `value`, a key included, that cannot be stored as sent (textProblem), or undefined when there
 *  is none. Every input is refused with one rather than stored differently from what was sent, or differently by
 *  each backend. */
export const textProblemIn = (value: unknown, path: ReadonlyArray<string> = []): TextProblem | undefined => {
  if (typeof value === "string") {
    const problem = textProblem(value)
    return problem === undefined ? undefined : { path, problem }
  }
  if (typeof value !== "object" || value === null) return undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = textProblemIn(value[i], [...path, String(i)])
      if (found !== undefined) return found
    }
    return undefined
  }
  // Only plain objects are walked: a Date, a byte array or a stream is no text.
  const prototype: unknown = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return undefined
  for (const [key, item] of Object.entries(value)) {
    const problem = textProblem(key)
    if (problem !== undefined) return { path, problem }
    const found = textProblemIn(item, [...path, key])
    if (found !== undefined) return found
  }
  return undefined
}
