/** Segment rules of DYNAMIC lists: conditions on contact fields combined with `all` / `any` groups, their Schema, and
 *  `matchesSegment`, the meaning every backend reproduces (SQL backends compile the same rules to one WHERE clause). */
import { ParseResult, Schema, type SchemaAST } from "effect"
import { type Contact, contactSources, contactStatuses, TagName } from "./contact.js"
import { foldText, matchesLike } from "./text.js"

export const segmentLimits = {
  /** Groups nest at most this deep, the root group counting as the first level. */
  depth: 3,
  /** Conditions and groups in one group. */
  groupSize: 50,
  /** Conditions in the whole rule tree. */
  conditions: 100,
  valueLength: 255,
  customFieldKeyLength: 100,
  /** Largest N of `withinLastDays`. */
  days: 36_500,
} as const

export const textFields = ["email", "firstName", "lastName", "phone"] as const
export type TextField = (typeof textFields)[number]
export const dateFields = ["createdAt", "subscribedAt"] as const
export type DateField = (typeof dateFields)[number]
export const segmentFields = [...textFields, "customField", "status", "source", "tag", ...dateFields] as const
export type SegmentField = (typeof segmentFields)[number]

export const textOperators = ["equals", "notEquals", "contains", "notContains", "startsWith", "endsWith"] as const
export type TextOperator = (typeof textOperators)[number]
export const presenceOperators = ["isSet", "isNotSet"] as const
export type PresenceOperator = (typeof presenceOperators)[number]
export const setOperators = ["in", "notIn"] as const
export const tagOperators = ["has", "notHas"] as const
export const dateOperators = ["before", "after", "withinLastDays"] as const

/** The operators each field accepts. */
export const operatorsByField: Record<SegmentField, ReadonlyArray<string>> = {
  email: [...textOperators, ...presenceOperators],
  firstName: [...textOperators, ...presenceOperators],
  lastName: [...textOperators, ...presenceOperators],
  phone: [...textOperators, ...presenceOperators],
  customField: [...textOperators, ...presenceOperators],
  status: setOperators,
  source: setOperators,
  tag: tagOperators,
  createdAt: dateOperators,
  subscribedAt: dateOperators,
}

const RuleText = Schema.String.pipe(
  Schema.minLength(1, { message: () => "value must not be empty" }),
  Schema.maxLength(segmentLimits.valueLength, { message: () => `value is at most ${segmentLimits.valueLength} characters` }),
)

const CustomFieldKey = Schema.String.pipe(
  Schema.minLength(1, { message: () => "key must not be empty" }),
  Schema.maxLength(segmentLimits.customFieldKeyLength, {
    message: () => `key is at most ${segmentLimits.customFieldKeyLength} characters`,
  }),
)

/** An instant written in ISO 8601 (a date alone means midnight UTC); decoded to its canonical `toISOString` form. */
const IsoInstant = Schema.transformOrFail(Schema.String, Schema.String, {
  strict: true,
  decode: (text, _, ast) => {
    const millis = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2}))?$/.test(text)
      ? Date.parse(text)
      : Number.NaN
    return Number.isNaN(millis)
      ? ParseResult.fail(new ParseResult.Type(ast, text, "value must be an ISO 8601 date or date-time, such as 2024-05-01T00:00:00Z"))
      : ParseResult.succeed(new Date(millis).toISOString())
  },
  encode: ParseResult.succeed,
})

const Days = Schema.Number.pipe(
  Schema.int({ message: () => "value must be a whole number of days" }),
  Schema.between(1, segmentLimits.days, { message: () => `value must be between 1 and ${segmentLimits.days} days` }),
)

const StatusValue = Schema.Literal(...contactStatuses).annotations({
  message: () => ({ message: `statuses are ${contactStatuses.join(", ")}`, override: true }),
})
const SourceValue = Schema.Literal(...contactSources).annotations({
  message: () => ({ message: `sources are ${contactSources.join(", ")}`, override: true }),
})

const strict = { parseOptions: { onExcessProperty: "error" } } as const

const TextCondition = Schema.Struct({
  field: Schema.Literal(...textFields),
  operator: Schema.Literal(...textOperators),
  value: RuleText,
}).annotations(strict)
const TextPresence = Schema.Struct({
  field: Schema.Literal(...textFields),
  operator: Schema.Literal(...presenceOperators),
}).annotations(strict)
const CustomFieldCondition = Schema.Struct({
  field: Schema.Literal("customField"),
  key: CustomFieldKey,
  operator: Schema.Literal(...textOperators),
  value: RuleText,
}).annotations(strict)
const CustomFieldPresence = Schema.Struct({
  field: Schema.Literal("customField"),
  key: CustomFieldKey,
  operator: Schema.Literal(...presenceOperators),
}).annotations(strict)
const StatusCondition = Schema.Struct({
  field: Schema.Literal("status"),
  operator: Schema.Literal(...setOperators),
  value: Schema.Array(StatusValue).pipe(Schema.minItems(1, { message: () => "value must list at least one status" })),
}).annotations(strict)
const SourceCondition = Schema.Struct({
  field: Schema.Literal("source"),
  operator: Schema.Literal(...setOperators),
  value: Schema.Array(SourceValue).pipe(Schema.minItems(1, { message: () => "value must list at least one source" })),
}).annotations(strict)
const TagCondition = Schema.Struct({
  field: Schema.Literal("tag"),
  operator: Schema.Literal(...tagOperators),
  value: TagName,
}).annotations(strict)
const DateBound = Schema.Struct({
  field: Schema.Literal(...dateFields),
  operator: Schema.Literal("before", "after"),
  value: IsoInstant,
}).annotations(strict)
const DateWithin = Schema.Struct({
  field: Schema.Literal(...dateFields),
  operator: Schema.Literal("withinLastDays"),
  value: Days,
}).annotations(strict)

export type SegmentCondition =
  | typeof TextCondition.Type | typeof TextPresence.Type | typeof CustomFieldCondition.Type
  | typeof CustomFieldPresence.Type | typeof StatusCondition.Type | typeof SourceCondition.Type
  | typeof TagCondition.Type | typeof DateBound.Type | typeof DateWithin.Type

export interface AllGroup { readonly all: ReadonlyArray<SegmentNode> }
export interface AnyGroup { readonly any: ReadonlyArray<SegmentNode> }
export type SegmentGroup = AllGroup | AnyGroup
export type SegmentNode = SegmentCondition | SegmentGroup
/** The rules of a dynamic list: one group at the root. */
export type SegmentRules = SegmentGroup

/** The condition schema that decides a `{ field, operator, … }` object, picked so that errors talk about that
 *  condition only (a plain union would report every alternative). */
const conditionSchema = (field: SegmentField, operator: string): Schema.Schema.AnyNoContext => {
  switch (field) {
    case "customField":
      return (presenceOperators as ReadonlyArray<string>).includes(operator) ? CustomFieldPresence : CustomFieldCondition
    case "status":
      return StatusCondition
    case "source":
      return SourceCondition
    case "tag":
      return TagCondition
    case "createdAt":
    case "subscribedAt":
      return operator === "withinLastDays" ? DateWithin : DateBound
    default:
      return (presenceOperators as ReadonlyArray<string>).includes(operator) ? TextPresence : TextCondition
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const issueAt = (ast: SchemaAST.AST, actual: unknown, key: PropertyKey, message: string): ParseResult.ParseIssue =>
  new ParseResult.Pointer(key, actual, new ParseResult.Type(ast, actual, message))

const decodeCondition = (input: Record<string, unknown>, options: SchemaAST.ParseOptions, ast: SchemaAST.AST) => {
  const { field, operator } = input
  if (typeof field !== "string" || !(segmentFields as ReadonlyArray<string>).includes(field)) {
    return ParseResult.fail(issueAt(ast, field, "field", field === undefined
      ? "a condition needs a field (or a group needs all or any)"
      : `field must be one of ${segmentFields.join(", ")}`))
  }
  const allowed = operatorsByField[field as SegmentField]
  if (typeof operator !== "string" || !allowed.includes(operator)) {
    return ParseResult.fail(issueAt(ast, operator, "operator", `operator for ${field} must be one of ${allowed.join(", ")}`))
  }
  const schema = conditionSchema(field as SegmentField, operator) as Schema.Schema<SegmentCondition, unknown>
  return ParseResult.decodeUnknown(schema)(input, options)
}

/** Any node: a schema per nesting level, so that the depth bound is part of decoding and names the offending path. */
const SegmentNodeType = Schema.declare((input: unknown): input is SegmentNode => isRecord(input))
const nodeSchemas = new Map<number, Schema.Schema<SegmentNode, unknown>>()
const groupSchemas = new Map<number, Schema.Schema<SegmentGroup, unknown>>()

const groupItems = (depth: number) => Schema.Array(nodeAt(depth + 1)).pipe(
  Schema.minItems(1, { message: () => "a group needs at least one condition" }),
  Schema.maxItems(segmentLimits.groupSize, { message: () => `a group holds at most ${segmentLimits.groupSize} conditions` }),
)

const groupAt = (depth: number): Schema.Schema<SegmentGroup, unknown> => {
  const known = groupSchemas.get(depth)
  if (known !== undefined) return known
  const All = Schema.Struct({ all: groupItems(depth) }).annotations(strict)
  const Any = Schema.Struct({ any: groupItems(depth) }).annotations(strict)
  const schema = Schema.transformOrFail(Schema.Unknown, Schema.Union(All, Any).pipe(Schema.typeSchema), {
    strict: true,
    decode: (input, options, ast) => {
      if (!isRecord(input)) return ParseResult.fail(new ParseResult.Type(ast, input, "a group must be an object with all or any"))
      if (!("all" in input) && !("any" in input)) {
        return ParseResult.fail(new ParseResult.Type(ast, input, "a group must be an object with all or any"))
      }
      return "all" in input ? ParseResult.decodeUnknown(All)(input, options) : ParseResult.decodeUnknown(Any)(input, options)
    },
    encode: ParseResult.succeed,
  })
  groupSchemas.set(depth, schema)
  return schema
}

const nodeAt = (depth: number): Schema.Schema<SegmentNode, unknown> => {
  const known = nodeSchemas.get(depth)
  if (known !== undefined) return known
  const schema = Schema.transformOrFail(Schema.Unknown, SegmentNodeType, {
    strict: true,
    decode: (input, options, ast) => {
      if (!isRecord(input)) return ParseResult.fail(new ParseResult.Type(ast, input, "a condition must be an object"))
      if (!("all" in input) && !("any" in input)) return decodeCondition(input, options, ast)
      if (depth > segmentLimits.depth) {
        return ParseResult.fail(new ParseResult.Type(ast, input, `groups nest at most ${segmentLimits.depth} levels deep`))
      }
      return ParseResult.decodeUnknown(Schema.suspend(() => groupAt(depth)))(input, options)
    },
    encode: ParseResult.succeed,
  })
  nodeSchemas.set(depth, schema)
  return schema
}

/** Number of conditions (leaves) in a rule tree. */
export const countConditions = (node: SegmentNode): number =>
  "all" in node ? node.all.reduce((sum, child) => sum + countConditions(child), 0)
  : "any" in node ? node.any.reduce((sum, child) => sum + countConditions(child), 0)
  : 1

/** The `segmentRules` of a DYNAMIC list as they arrive in a request body or come back from storage. */
export const SegmentRules: Schema.Schema<SegmentRules, unknown> = groupAt(1).pipe(
  Schema.filter((rules) =>
    countConditions(rules) <= segmentLimits.conditions || `rules hold at most ${segmentLimits.conditions} conditions in all`),
)

const dayMillis = 86_400_000

/** The instant `withinLastDays: days` reaches back to from `now`. */
export const withinLastDaysStart = (now: Date, days: number): number => now.getTime() - days * dayMillis

/** The text a text condition reads: the field, or the custom field with the key; absent and null read as "". */
export const conditionText = (contact: Contact, condition: SegmentCondition): string => {
  switch (condition.field) {
    case "customField":
      return contact.customFields.find((field) => field.key === condition.key)?.value ?? ""
    case "email":
      return contact.email
    case "firstName":
      return contact.firstName ?? ""
    case "lastName":
      return contact.lastName ?? ""
    case "phone":
      return contact.phone ?? ""
    default:
      return ""
  }
}

const matchesText = (text: string, operator: TextOperator | PresenceOperator, value: string): boolean => {
  const subject = foldText(text)
  const needle = foldText(value)
  switch (operator) {
    case "equals": return matchesLike(subject, needle, "equals")
    case "notEquals": return !matchesLike(subject, needle, "equals")
    case "contains": return matchesLike(subject, needle, "contains")
    case "notContains": return !matchesLike(subject, needle, "contains")
    case "startsWith": return matchesLike(subject, needle, "startsWith")
    case "endsWith": return matchesLike(subject, needle, "endsWith")
    case "isSet": return subject !== ""
    case "isNotSet": return subject === ""
  }
}

const matchesCondition = (contact: Contact, condition: SegmentCondition, now: Date): boolean => {
  switch (condition.field) {
    case "status":
      return condition.value.includes(contact.status) === (condition.operator === "in")
    case "source":
      return condition.value.includes(contact.source) === (condition.operator === "in")
    case "tag":
      return contact.tags.some((tag) => tag.tag === condition.value) === (condition.operator === "has")
    case "createdAt":
    case "subscribedAt": {
      const at = contact[condition.field].getTime()
      if (condition.operator === "withinLastDays") return at >= withinLastDaysStart(now, condition.value)
      const bound = Date.parse(condition.value)
      return condition.operator === "before" ? at < bound : at > bound
    }
    default:
      return matchesText(conditionText(contact, condition), condition.operator, "value" in condition ? condition.value : "")
  }
}

/** Whether `contact` belongs to a dynamic list with these rules at `now`. Text comparisons ignore case (core's
 *  foldText on both sides), and an
 *  absent value reads as the empty string (so `notEquals` and `notContains` match it, `isNotSet` too). */
export const matchesSegment = (contact: Contact, rules: SegmentNode, now: Date): boolean =>
  "all" in rules ? rules.all.every((node) => matchesSegment(contact, node, now))
  : "any" in rules ? rules.any.some((node) => matchesSegment(contact, node, now))
  : matchesCondition(contact, rules, now)
