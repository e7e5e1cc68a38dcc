/** Designs (Studio templates): the draft a team edits, its revision, and the immutable releases each publish makes.
 *  The schemas carry the spec's limits; the lifecycle rules (publish, rollback, retire, restore, what a send may use)
 *  are pure functions here. Spec: sending "Design (Studio template)", "States and transitions" (Design rows),
 *  "Designs (template API)", "Limits" (Studio templates) and "Legacy templates" (sizes). */
import { Either, Schema } from "effect"
import { type AccountId, type Plan, planLimits } from "./account.js"
import { defaultTheme } from "./theme.js"
import { type Block, BlockList, blocksText, compileBlocks } from "./blocks.js"
import { PlanUpgradeRequired, ValidationFailed } from "../errors.js"
import { type PreparedTemplate, templateEngineTag } from "../ports/template-engine.js"
import {
  RevisionConflict, SenderNotAllowed, TemplateLimitReached, TemplateNotPublished, TemplateRetired,
} from "../template-errors.js"

export const DesignId = Schema.String.pipe(Schema.brand("DesignId"))
export type DesignId = typeof DesignId.Type

/** The application key of the customer's own templates (lenient variables, brand read live). */
export const accountApplicationKey = "account"

/** The engine tag every release records. Spec: "Versioning" 5. */
export const engineTag = templateEngineTag

export const designLimits = {
  /** html, text and MJML source of a draft: 1 MiB each (spec, "Legacy templates" and "Limits"). */
  bodyBytes: 1024 * 1024,
  subjectLength: 998,
  nameLength: 255,
  keyLength: 128,
  categoryLength: 64,
  variables: 200,
  /** Nesting of `items` inside array variables. */
  variableDepth: 4,
  pageSize: 25,
  maxPageSize: 100,
} as const

/** draft: never published; published: has a live release; retired: sends refused until restored. */
export const designStatuses = ["draft", "published", "retired"] as const
export const DesignStatus = Schema.Literal(...designStatuses)
export type DesignStatus = typeof DesignStatus.Type

export const variableTypes = ["string", "number", "boolean", "array", "object"] as const
export const variableFormats = ["url", "email", "date", "datetime", "color"] as const

/** One variable of a draft's schema. Spec: "a map from variable name to { type, required, example, format, items }". */
export interface VariableSpec {
  readonly type: (typeof variableTypes)[number]
  readonly required?: boolean | undefined
  readonly example?: unknown
  readonly format?: (typeof variableFormats)[number] | undefined
  readonly description?: string | undefined
  /** For arrays: the fields of each item. */
  readonly items?: { readonly [name: string]: VariableSpec } | undefined
}

/** Variable names are case-sensitive identifiers, as Handlebars reads them (rule 6). `theme` is the brand's. */
const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Every key a variable name: a Record's key schema alone lets a decoder drop keys it does not match as excess. */
const badName = (names: ReadonlyArray<string>) =>
  names.find((name) => !variableName.test(name) || name === "theme")

const onlyVariableNames = <A extends object>(record: A) => {
  const bad = badName(Object.keys(record))
  return bad === undefined || `${bad} is not a variable name: letters, digits and underscores, not starting with a digit, and not theme`
}

export const VariableSpecSchema: Schema.Schema<VariableSpec> = Schema.Struct({
  type: Schema.Literal(...variableTypes),
  required: Schema.optional(Schema.Boolean),
  example: Schema.optional(Schema.Unknown),
  format: Schema.optional(Schema.Literal(...variableFormats)),
  description: Schema.optional(Schema.String.pipe(Schema.maxLength(1_000))),
  items: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.suspend(() => VariableSpecSchema) })),
}).pipe(
  Schema.filter((spec) => spec.items === undefined || spec.type === "array" || "items is only for variables of type array"),
  Schema.filter((spec) => spec.items === undefined || onlyVariableNames(spec.items)),
  // A recursive schema needs a name for its JSON Schema (the OpenAPI document refers to it by this name).
  Schema.annotations({ identifier: "VariableSpec" }),
)

const depthOf = (variables: VariablesSchema | undefined): number =>
  variables === undefined ? 0 : 1 + Math.max(0, ...Object.values(variables).map((spec) => depthOf(spec.items)))

export const VariablesSchema = Schema.Record({ key: Schema.String, value: VariableSpecSchema }).pipe(
  Schema.filter(onlyVariableNames),
  Schema.filter((variables) => Object.keys(variables).length <= designLimits.variables ||
    `at most ${designLimits.variables} variables`),
  Schema.filter((variables) => depthOf(variables) <= designLimits.variableDepth ||
    `items nest at most ${designLimits.variableDepth - 1} levels deep`),
)
export type VariablesSchema = { readonly [name: string]: VariableSpec }

const bounded = (max: number, what: string) =>
  Schema.String.pipe(Schema.maxLength(max, { message: () => `${what} is at most ${max} characters` }))

const nonEmpty = (max: number, what: string) =>
  bounded(max, what).pipe(Schema.minLength(1, { message: () => `${what} must not be empty` }))

/** Application key and template key: letters, digits, `.`, `_` and `-`. */
export const TemplateKey = nonEmpty(designLimits.keyLength, "key").pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, { message: () => "keys are letters, digits, '.', '_' and '-'" }),
)

/** A BCP 47 language tag such as en, en-GB or pt-BR. */
export const Locale = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, { message: () => "locale is a language tag such as en or en-GB" }),
  Schema.maxLength(35),
)

/** A draft as the API takes it. `html` is the source: HTML, or MJML when `format` is "mjml" (compiled when saved and
 *  published, never per send). Bodies are measured in bytes by oversizedBody (413 beyond 1 MiB), not here. */
export const DraftInput = Schema.Struct({
  name: nonEmpty(designLimits.nameLength, "name"),
  subject: nonEmpty(designLimits.subjectLength, "subject"),
  format: Schema.optional(Schema.Literal("html", "mjml")),
  html: Schema.optional(Schema.NullOr(Schema.String)),
  text: Schema.optional(Schema.NullOr(Schema.String)),
  category: Schema.optional(Schema.NullOr(bounded(designLimits.categoryLength, "category"))),
  variables: Schema.optional(VariablesSchema),
  /** The draft as blocks (docs/templates.md, "Blocks"): its MJML is compiled from them, so html is not given. */
  blocks: Schema.optional(BlockList),
  /** With blocks: the preview line inboxes show after the subject. */
  preheader: Schema.optional(bounded(255, "preheader")),
}).pipe(
  Schema.filter((draft) => draft.blocks !== undefined ||
    [draft.html, draft.text].some((body) => typeof body === "string" && body !== "") || "a draft needs html (or MJML), text or blocks"),
  Schema.filter((draft) => draft.blocks === undefined || ((draft.html === undefined || draft.html === null) && draft.format !== "html") ||
    "a draft with blocks takes no html and no html format: its MJML is compiled from the blocks"),
)
export type DraftInput = typeof DraftInput.Type

/** The draft as stored: its source, as the team wrote it. */
export interface DesignDraft {
  readonly name: string
  readonly subject: string
  readonly format: "html" | "mjml"
  /** HTML or MJML source; empty for a text-only draft. */
  readonly html: string
  readonly text: string | null
  readonly category: string | null
  readonly variables: VariablesSchema
  /** Set when the draft is edited as blocks: the list its MJML (`html`) was compiled from. */
  readonly blocks?: ReadonlyArray<Block> | undefined
  readonly preheader?: string | undefined
}

/** Where an adopted design came from: the gallery starter and the version of it the draft last took. */
export interface DesignSource {
  readonly starter: string
  readonly version: number
}

/** What the engine made of a release's source when it was published: MJML compiled to HTML, with the variables the
 *  template reads. Stored with the release, so that no send compiles again. */
export type CompiledContent = Omit<PreparedTemplate, "engine">

export interface Design {
  readonly id: DesignId
  readonly accountId: AccountId
  readonly applicationKey: string
  readonly key: string
  readonly locale: string
  readonly draft: DesignDraft
  /** Starts at 1; every replacement of the draft adds one. */
  readonly revision: number
  readonly status: DesignStatus
  /** The version sends use (the newest release), or null before the first publish. */
  readonly liveVersion: number | null
  /** The brand bound to the design, or null (the account's default). */
  readonly brandId: string | null
  /** The template sends should move to, named in TEMPLATE_RETIRED. */
  readonly replacementId: DesignId | null
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly publishedAt: Date | null
  readonly retiredAt: Date | null
  /** The gallery starter the design was adopted from, or null. */
  readonly source: DesignSource | null
}

/** One publish (or rollback): a full snapshot of the draft and its compiled form, written once and never changed. */
export interface DesignRelease {
  readonly accountId: AccountId
  readonly designId: DesignId
  /** 1 for the first publish, then one more each time. */
  readonly version: number
  /** The draft's source as published. */
  readonly content: DesignDraft
  readonly compiled: CompiledContent
  /** The brand bound when the release was made. */
  readonly brandId: string | null
  /** Application templates freeze their brand here; account templates keep null and read the brand at send time. */
  readonly brand: unknown
  readonly engine: typeof engineTag
  /** The draft revision published, or, for a rollback, the revision of the version copied. */
  readonly revision: number
  /** The version a rollback copied, or null for a publish. */
  readonly rolledBackFrom: number | null
  readonly createdAt: Date
}

/** The key a release is compiled and cached under by the engine: it names one immutable release. */
export const releaseCacheKey = (release: Pick<DesignRelease, "designId" | "version">): string =>
  `${release.designId}@${release.version}`

export const isApplicationTemplate = (design: Pick<Design, "applicationKey">): boolean =>
  design.applicationKey !== accountApplicationKey

/** The byte size of each body beyond its limit, with the field name (413, spec "Legacy templates"). */
export const oversizedBody = (draft: Pick<DraftInput, "html" | "text">): string | undefined =>
  (["html", "text"] as const).find((field) => {
    const body = draft[field]
    return typeof body === "string" && Buffer.byteLength(body, "utf8") > designLimits.bodyBytes
  })

/** The stored draft of an input; a draft given as blocks gets its MJML (and, unless given, its text) compiled from
 *  them, in the design's language. */
export const toDraft = (input: DraftInput, locale = "en"): DesignDraft => input.blocks === undefined
  ? {
    name: input.name,
    subject: input.subject,
    format: input.format ?? "html",
    html: input.html ?? "",
    text: input.text ?? null,
    category: input.category ?? null,
    variables: input.variables ?? {},
  }
  : {
    name: input.name,
    subject: input.subject,
    format: "mjml",
    html: compileBlocks(input.blocks, { lang: locale, title: input.subject, preheader: input.preheader }),
    text: input.text ?? blocksText(input.blocks),
    category: input.category ?? null,
    variables: input.variables ?? {},
    blocks: input.blocks,
    ...(input.preheader === undefined ? {} : { preheader: input.preheader }),
  }

export const newDesign = (fields: {
  readonly id: DesignId
  readonly accountId: AccountId
  readonly applicationKey: string
  readonly key: string
  readonly locale: string
  readonly draft: DesignDraft
  readonly brandId: string | null
  readonly at: Date
  readonly source?: DesignSource | null | undefined
}): Design => ({
  id: fields.id,
  accountId: fields.accountId,
  applicationKey: fields.applicationKey,
  key: fields.key,
  locale: fields.locale,
  draft: fields.draft,
  revision: 1,
  status: "draft",
  liveVersion: null,
  brandId: fields.brandId,
  replacementId: null,
  createdAt: fields.at,
  updatedAt: fields.at,
  publishedAt: null,
  retiredAt: null,
  source: fields.source ?? null,
})

const checkRevision = (design: Design, expected: number): Either.Either<void, RevisionConflict> =>
  expected === design.revision
    ? Either.void
    : Either.left(new RevisionConflict({ id: design.id, expected, current: design.revision }))

/** PATCH /designs/{id}: the draft is replaced whole when `expectedRevision` is current, and the revision moves on.
 *  The live release is untouched. */
export const replaceDraft = (
  design: Design,
  draft: DesignDraft,
  expectedRevision: number,
  at: Date,
): Either.Either<Design, RevisionConflict> =>
  Either.map(checkRevision(design, expectedRevision), () => ({ ...design, draft, revision: design.revision + 1, updatedAt: at }))

/** The version the next release takes: one more than the newest. */
export const nextVersion = (design: Pick<Design, "liveVersion">): number => (design.liveVersion ?? 0) + 1

const withRelease = (design: Design, release: DesignRelease, at: Date): { design: Design; release: DesignRelease } => ({
  design: {
    ...design,
    liveVersion: release.version,
    // A retired design stays retired when published again: only restore brings sends back.
    status: design.status === "retired" ? "retired" : "published",
    publishedAt: at,
    updatedAt: at,
  },
  release,
})

/** POST /designs/{id}/publish. Spec: "States and transitions", Design draft row: the revision must equal the draft's,
 *  and the new release, a snapshot of the draft, takes the next version. `brand` is the frozen brand of an
 *  application template (null for account templates, which read theirs live). */
export const publishDraft = (
  design: Design,
  expectedRevision: number,
  compiled: CompiledContent,
  brand: unknown,
  at: Date,
): Either.Either<{ design: Design; release: DesignRelease }, RevisionConflict> =>
  Either.map(checkRevision(design, expectedRevision), () => withRelease(design, {
    accountId: design.accountId,
    designId: design.id,
    version: nextVersion(design),
    content: design.draft,
    compiled,
    brandId: design.brandId,
    brand: isApplicationTemplate(design) ? brand : null,
    engine: engineTag,
    revision: design.revision,
    rolledBackFrom: null,
    createdAt: at,
  }, at))

/** POST /designs/{id}/rollback. Spec: "States and transitions", Design live-release row: the earlier version's
 *  content, brand included, becomes a new release with the next version; the draft is left alone. */
export const rollbackTo = (design: Design, earlier: DesignRelease, at: Date): { design: Design; release: DesignRelease } =>
  withRelease(design, { ...earlier, version: nextVersion(design), rolledBackFrom: earlier.version, createdAt: at }, at)

/** PATCH /designs/{id}/lifecycle: retire (with an optional replacement) or restore. Restoring goes back to published
 *  or draft, whichever the design was, and forgets the replacement. */
export const changeLifecycle = (
  design: Design,
  action: "retire" | "restore",
  replacementId: DesignId | null,
  at: Date,
): Design =>
  action === "retire"
    ? { ...design, status: "retired", replacementId, retiredAt: design.retiredAt ?? at, updatedAt: at }
    : { ...design, status: design.liveVersion === null ? "draft" : "published", replacementId: null, retiredAt: null, updatedAt: at }

/** What a send by templateId may use: the live version, or why not. Spec: sending rule 5 and the Design rows of
 *  "States and transitions" (never published: TEMPLATE_NOT_PUBLISHED; retired: TEMPLATE_RETIRED with the replacement). */
export const sendableVersion = (design: Design): Either.Either<number, TemplateNotPublished | TemplateRetired> => {
  if (design.status === "retired") return Either.left(new TemplateRetired({ id: design.id, replacementId: design.replacementId }))
  if (design.liveVersion === null) return Either.left(new TemplateNotPublished({ id: design.id }))
  return Either.right(design.liveVersion)
}

/** How a design renders its variables: account templates leniently (missing renders empty, extra ignored),
 *  application templates strictly (required present, unknown refused). Spec: the account/application table. Previews
 *  and sends both ask this. */
export const renderModeOf = (design: Pick<Design, "applicationKey">): "lenient" | "strict" =>
  isApplicationTemplate(design) ? "strict" : "lenient"

/** The brand a release renders `{{theme.*}}` from. Application templates use the brand frozen into the release; account
 *  templates read their bound brand live, and until brand records exist there is nothing live to read: without a
 *  brand, `defaultTheme` applies (theme.ts), so that every template, the gallery's starters among them, reads the same
 *  names. */
export const releaseTheme = (release: Pick<DesignRelease, "brand">): Readonly<Record<string, unknown>> =>
  typeof release.brand === "object" && release.brand !== null && !Array.isArray(release.brand)
    ? release.brand as Readonly<Record<string, unknown>>
    : defaultTheme as unknown as Readonly<Record<string, unknown>>

/** The subject a send by template uses: the release's, or for an account template (legacy templates among them) the
 *  request's `content.subject` when given. Spec: sending rule 5. An application template's subject is its release's
 *  alone, so a request subject is refused rather than ignored. */
export const subjectOverride = (
  design: Pick<Design, "applicationKey">,
  requested: string | undefined,
  field = "content.subject",
): Either.Either<string | undefined, ValidationFailed> =>
  requested === undefined || !isApplicationTemplate(design)
    ? Either.right(requested)
    : Either.left(new ValidationFailed({
      field,
      detail: "an application template's subject comes from its release; omit content.subject",
    }))

/** Whose allowed senders restrict a send: an application credential's own; or, for an account key sending an
 *  application template, the application's (`key`: every allowed sender of its credentials). Null: none. */
export interface SenderRestriction {
  readonly allowedSenders: ReadonlyArray<string>
  /** Set when the restriction is the application template's rather than the calling credential's. */
  readonly applicationKey?: string | undefined
}

/** The sender rule of the account/application table: an application template's mail comes from one of the allowed
 *  senders (compared without case): the calling credential's, or when an account key sends it, its application's;
 *  an account key sending an account template may choose any sender its sending domains allow. */
export const checkAllowedSender = (
  restriction: SenderRestriction | null,
  from: string,
): Either.Either<void, SenderNotAllowed> =>
  restriction === null || restriction.allowedSenders.some((allowed) => allowed.toLowerCase() === from.toLowerCase())
    ? Either.void
    : Either.left(new SenderNotAllowed({ from, allowed: restriction.allowedSenders, application: restriction.applicationKey }))

/** The allowed senders of an application: those of its credentials, in order, each once (compared without case). */
export const applicationSenders = (
  applicationKey: string,
  credentials: ReadonlyArray<{ readonly allowedSenders: ReadonlyArray<string> }>,
): SenderRestriction => {
  const seen = new Set<string>()
  const allowedSenders = credentials.flatMap((c) => c.allowedSenders).filter((sender) => {
    const folded = sender.toLowerCase()
    return seen.has(folded) ? false : (seen.add(folded), true)
  })
  return { allowedSenders, applicationKey }
}

/** Studio routes need the Micro plan or above. Spec: "What the service does" and "Limits" (none below Micro). */
export const checkStudioPlan = (plan: Plan): Either.Either<void, PlanUpgradeRequired> =>
  planLimits[plan].studioTemplates === 0
    ? Either.left(new PlanUpgradeRequired({ feature: "Studio templates", plan, requiredPlan: "micro" }))
    : Either.void

/** Whether an account of the plan holding `count` templates may make one more (Micro 25, Pro 100, Scale 500). */
export const checkDesignRoom = (plan: Plan, count: number): Either.Either<void, PlanUpgradeRequired | TemplateLimitReached> => {
  const limit = planLimits[plan].studioTemplates
  return Either.flatMap(checkStudioPlan(plan), () =>
    limit !== null && count >= limit ? Either.left(new TemplateLimitReached({ plan, limit })) : Either.void)
}

/** GET /designs after defaults: filters, then up to `limit` designs after the cursor `after` (an id). */
export interface DesignQuery {
  readonly applicationKey?: string | undefined
  readonly key?: string | undefined
  readonly locale?: string | undefined
  readonly category?: string | undefined
  readonly status?: DesignStatus | undefined
  /** Only designs whose id sorts before this one (the last id of the previous page). */
  readonly after?: string | undefined
  readonly limit: number
}

/** Newest first: ids sort by creation time, so the id alone orders designs and makes the cursor. */
export const compareDesigns = (a: Design, b: Design): number => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

export const matchesDesignQuery = (design: Design, query: DesignQuery): boolean =>
  (query.applicationKey === undefined || design.applicationKey === query.applicationKey) &&
  (query.key === undefined || design.key === query.key) &&
  (query.locale === undefined || design.locale === query.locale) &&
  (query.category === undefined || design.draft.category === query.category) &&
  (query.status === undefined || design.status === query.status) &&
  (query.after === undefined || design.id < query.after)

/** The opaque cursor of GET /designs: the last id of a page, base64url, so clients do not build it themselves. */
export const encodeCursor = (id: string): string => Buffer.from(id, "utf8").toString("base64url")
export const decodeCursor = (cursor: string, prefix = "tpl"): string | undefined => {
  const id = Buffer.from(cursor, "base64url").toString("utf8")
  return new RegExp(`^${prefix}_[0-9a-z_]+$`).test(id) ? id : undefined
}
