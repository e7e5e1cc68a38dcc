/** Legacy templates: the deprecated /templates API, an adapter over designs. A legacy template is the design with the
 *  same id under the application key `account`; reads show its live release, writes publish at once. Spec: sending
 *  "Legacy template", "Legacy templates (deprecated)", "Versioning" 4. */
import { Schema } from "effect"
import { type Design, type DesignDraft, type DesignRelease, DraftInput } from "./design.js"
import { EmailAddressInput } from "./message.js"
import { limitParam, PageParam } from "./paging.js"

export const legacyTemplateLimits = {
  /** JSON body of the import (create, update) and render routes: 8 MiB (spec, "Legacy templates"). */
  jsonBytes: 8 * 1024 * 1024,
  pageSize: 25,
  maxPageSize: 100,
  searchLength: 255,
} as const

/** The deprecation headers every legacy answer carries, errors included. Spec: "Legacy templates" and "Versioning" 4:
 *  the routes keep working until 30 April 2027 (RFC 9745 Deprecation, RFC 8594 Sunset, RFC 8288 Link). */
export const legacyTemplateHeaders = {
  Deprecation: "true",
  Sunset: new Date(Date.UTC(2027, 3, 30)).toUTCString(),
  Link: "</api/v1/designs>; rel=\"successor-version\"",
} as const

const draftFields = DraftInput.from.from.fields
const ThemeId = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128))
const Body = Schema.NullOr(Schema.String)

const hasBody = (fields: { readonly html?: string | null | undefined; readonly text?: string | null | undefined }) =>
  [fields.html, fields.text].some((body) => typeof body === "string" && body !== "")

/** POST /templates: name and subject required, at least one of html and text. */
export const CreateLegacyTemplateInput = Schema.Struct({
  name: draftFields.name,
  subject: draftFields.subject,
  html: Schema.optional(Body),
  text: Schema.optional(Body),
  themeId: Schema.optional(Schema.NullOr(ThemeId)),
}).pipe(Schema.filter((input) => hasBody(input) || "give at least one of html and text"))
export type CreateLegacyTemplateInput = typeof CreateLegacyTemplateInput.Type

/** PUT /templates/{id}: any of the fields; null removes html, text or themeId. */
export const UpdateLegacyTemplateInput = Schema.Struct({
  name: Schema.optional(draftFields.name),
  subject: Schema.optional(draftFields.subject),
  html: Schema.optional(Body),
  text: Schema.optional(Body),
  themeId: Schema.optional(Schema.NullOr(ThemeId)),
})
export type UpdateLegacyTemplateInput = typeof UpdateLegacyTemplateInput.Type

const Variables = Schema.Record({ key: Schema.String, value: Schema.String })

/** POST /templates/{id}/render. */
export const RenderLegacyTemplateInput = Schema.Struct({
  variables: Schema.optionalWith(Variables, { default: () => ({}) }),
})

/** POST /templates/{id}/test: one recipient address, a sender, variables. */
export const TestLegacyTemplateInput = Schema.Struct({
  to: EmailAddressInput.fields.email,
  from: EmailAddressInput,
  variables: Schema.optionalWith(Variables, { default: () => ({}) }),
})
export type TestLegacyTemplateInput = typeof TestLegacyTemplateInput.Type

/** GET /templates: page (1), limit (25, at most 100), search (by name, case-insensitive). */
export const LegacyTemplateListParams = Schema.Struct({
  page: Schema.optionalWith(PageParam, { default: () => 1 }),
  limit: Schema.optionalWith(limitParam(legacyTemplateLimits.maxPageSize), { default: () => legacyTemplateLimits.pageSize }),
  search: Schema.optional(Schema.String.pipe(Schema.maxLength(legacyTemplateLimits.searchLength))),
})
export type LegacyTemplateListParams = typeof LegacyTemplateListParams.Type

/** A legacy template as the API shows it: the live release of its design. */
export interface LegacyTemplate {
  readonly id: string
  readonly name: string
  readonly subject: string
  readonly html: string | null
  readonly text: string | null
  /** The variables the subject, html and text read, extracted by the engine when the release was published. */
  readonly variables: ReadonlyArray<string>
  readonly themeId: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** The legacy view of a design's live release. The html is the compiled form (MJML designs show their HTML). */
export const toLegacyTemplate = (design: Design, release: DesignRelease): LegacyTemplate => ({
  id: design.id,
  name: release.content.name,
  subject: release.compiled.subject,
  html: release.compiled.html === "" ? null : release.compiled.html,
  text: release.compiled.text,
  variables: release.compiled.variables,
  themeId: design.brandId,
  createdAt: design.createdAt,
  updatedAt: design.updatedAt,
})

/** Whether a legacy search (a case-insensitive part of the name) matches. */
export const matchesLegacySearch = (template: Pick<LegacyTemplate, "name">, search: string | undefined): boolean =>
  search === undefined || search === "" || template.name.toLowerCase().includes(search.toLowerCase())

/** The draft a PUT makes: the live content (or the draft of a design never published) with the given fields. An html
 *  given replaces the source as HTML (a legacy template has no MJML); null removes a body. */
export const updatedDraft = (base: DesignDraft, input: UpdateLegacyTemplateInput): DraftInput => ({
  name: input.name ?? base.name,
  subject: input.subject ?? base.subject,
  format: input.html === undefined ? base.format : "html",
  html: input.html === undefined ? base.html : input.html,
  text: input.text === undefined ? base.text : input.text,
  category: base.category,
  variables: base.variables,
})

/** The draft of a created legacy template: HTML, no variable schema (account templates are lenient). */
export const createdDraft = (input: CreateLegacyTemplateInput): DraftInput => ({
  name: input.name,
  subject: input.subject,
  format: "html",
  html: input.html ?? null,
  text: input.text ?? null,
  category: null,
  variables: {},
})

export { hasBody as hasLegacyBody }
