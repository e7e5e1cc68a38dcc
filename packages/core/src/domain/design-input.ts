/** The bodies of the design routes as core takes them (HTTP decodes them with these schemas; the Promise facade
 *  too). Spec: sending "Designs (template API)"; the bodies the spec does not show follow docs/templates.md. */
import { Schema } from "effect"
import { DesignStatus, DraftInput, Locale, TemplateKey } from "./design.js"

const Revision = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "expectedRevision is a revision number, 1 or more" }))
const Version = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "version is a release number, 1 or more" }))
const BrandId = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128))

/** POST /designs. applicationKey defaults to `account` (or, for an application credential, its own). */
export const CreateDesignInput = Schema.Struct({
  applicationKey: Schema.optional(TemplateKey),
  key: TemplateKey,
  locale: Schema.optionalWith(Locale, { default: () => "en" }),
  draft: DraftInput,
  brandId: Schema.optional(Schema.NullOr(BrandId)),
})
export type CreateDesignInput = typeof CreateDesignInput.Type

/** PATCH /designs/{id}: the whole draft, replaced, with the revision it was read at. */
export const ReplaceDraftInput = Schema.Struct({ expectedRevision: Revision, draft: DraftInput })
export type ReplaceDraftInput = typeof ReplaceDraftInput.Type

/** POST /designs/{id}/publish. */
export const PublishInput = Schema.Struct({ expectedRevision: Revision })

/** POST /designs/{id}/rollback: the earlier version whose content becomes the next release. */
export const RollbackInput = Schema.Struct({ version: Version })

/** PATCH /designs/{id}/lifecycle. */
export const LifecycleInput = Schema.Struct({
  action: Schema.Literal("retire", "restore"),
  replacementId: Schema.optional(Schema.NullOr(Schema.String)),
})
export type LifecycleInput = typeof LifecycleInput.Type

/** POST /designs/{id}/brand: null unbinds (the account's default brand applies). */
export const BindBrandInput = Schema.Struct({ brandId: Schema.NullOr(BrandId) })

/** POST /designs/{id}/preview: the draft (default), the live release, or a version; variables, or the schema's
 *  examples with `sample`; another brand with brandId. */
export const PreviewInput = Schema.Struct({
  source: Schema.optionalWith(Schema.Literal("draft", "live"), { default: () => "draft" as const }),
  version: Schema.optional(Version),
  variables: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { default: () => ({}) }),
  sample: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  brandId: Schema.optional(BrandId),
})
export type PreviewInput = typeof PreviewInput.Type

/** GET /designs query after decoding (the cursor is decoded by the route). */
export const DesignListFilters = Schema.Struct({
  applicationKey: Schema.optional(TemplateKey),
  key: Schema.optional(TemplateKey),
  locale: Schema.optional(Locale),
  category: Schema.optional(Schema.String),
  status: Schema.optional(DesignStatus),
})
