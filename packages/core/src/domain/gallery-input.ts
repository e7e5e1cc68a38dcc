/** The bodies of the gallery routes (docs/templates.md, "The starter gallery"). */
import { Schema } from "effect"
import { starterCategories } from "../gallery/starter.js"
import { Locale, TemplateKey } from "./design.js"

const StarterKey = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(64))

/** GET /designs/catalog query. */
export const CatalogFilters = Schema.Struct({
  category: Schema.optional(Schema.Literal(...starterCategories)),
})

/** POST /designs/catalog: one starter, previewed with its sample data (values given win) in the default theme. */
export const InspectStarterInput = Schema.Struct({
  key: StarterKey,
  variables: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { default: () => ({}) }),
})

/** POST /designs/catalog/adopt: a new draft from a starter. */
export const AdoptStarterInput = Schema.Struct({
  /** The starter's catalog key. */
  starter: StarterKey,
  applicationKey: Schema.optional(TemplateKey),
  /** The new design's key; the starter's key when omitted. */
  key: Schema.optional(TemplateKey),
  locale: Schema.optionalWith(Locale, { default: () => "en" }),
  name: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255))),
  /** Store the draft as blocks for the visual editor. */
  asBlocks: Schema.optionalWith(Schema.Boolean, { default: () => false }),
})
export type AdoptStarterInput = typeof AdoptStarterInput.Type

/** POST /designs/{id}/sync: compare (default), or apply the source's content as a new draft revision. */
export const SyncInput = Schema.Struct({
  apply: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  /** Required with apply: the draft revision the comparison was made on. */
  expectedRevision: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
}).pipe(Schema.filter((input) => !input.apply || input.expectedRevision !== undefined ||
  { path: ["expectedRevision"], message: "expectedRevision is required with apply: true" }))
export type SyncInput = typeof SyncInput.Type
