/** Manifests (docs/templates.md, "Manifests"): an application's designs (drafts and live versions), brands and asset
 *  references as one JSON document, exported from one account and planned or applied in another. Spec: sending
 *  "Designs (template API)", the manifest row, and "Manifest install". The document's `version` is a hash of its
 *  content, so it changes whenever a draft (or a brand, a live version or an asset reference) changes. */
import { createHash } from "node:crypto"
import { Schema } from "effect"
import type { Asset } from "./asset.js"
import { brandContentOf, type BrandRecord, CreateBrandInput } from "./brand.js"
import { blockLimits } from "./blocks.js"
import { type DesignDraft, DraftInput, Locale, TemplateKey } from "./design.js"

export const manifestFormat = "mailroom.manifest/1"

export const manifestLimits = {
  templates: 100,
  blocks: blockLimits.blocks,
  /** The manifest as JSON. */
  bytes: 8 * 1024 * 1024,
} as const

const { applicationKey: _applicationKey, ...brandInputFields } = CreateBrandInput.fields

/** A brand in a manifest: its fields as POST /designs/brands takes them, and the key designs refer to it by. */
export const ManifestBrand = Schema.Struct({
  key: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128)),
  ...brandInputFields,
})
export type ManifestBrand = typeof ManifestBrand.Type

/** An asset a manifest's drafts or brands show, by its content hash (its URL names the hash). */
export const ManifestAsset = Schema.Struct({
  id: Schema.NullOr(Schema.String.pipe(Schema.maxLength(128))),
  hash: Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/, { message: () => "hash is the asset's SHA-256, 64 hex digits" })),
  url: Schema.String.pipe(Schema.maxLength(2_048)),
  contentType: Schema.Literal("image/png", "image/jpeg"),
  width: Schema.NullOr(Schema.Int.pipe(Schema.between(1, 100_000))),
  height: Schema.NullOr(Schema.Int.pipe(Schema.between(1, 100_000))),
})
export type ManifestAsset = typeof ManifestAsset.Type

/** A design in a manifest, matched in the target by `key` and `locale` within the application. `live` is what the
 *  source sends today; applying installs the draft (and with publish, releases it). */
export const ManifestDesign = Schema.Struct({
  key: TemplateKey,
  locale: Locale,
  brand: Schema.NullOr(Schema.String),
  draft: DraftInput,
  live: Schema.NullOr(Schema.Struct({ version: Schema.Int, publishedAt: Schema.NullOr(Schema.String), draft: Schema.Unknown })),
})
export type ManifestDesign = typeof ManifestDesign.Type

export const Manifest = Schema.Struct({
  format: Schema.Literal(manifestFormat),
  applicationKey: TemplateKey,
  /** Who exported it: an opaque id of the source account and application. */
  source: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128)),
  version: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128)),
  exportedAt: Schema.optional(Schema.String),
  brands: Schema.Array(ManifestBrand),
  assets: Schema.Array(ManifestAsset),
  designs: Schema.Array(ManifestDesign),
})
export type Manifest = typeof Manifest.Type

/** POST /designs/manifest. `dryRun` defaults to true: nothing is written unless asked. */
export const ApplyManifestInput = Schema.Struct({
  manifest: Manifest,
  dryRun: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  publish: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  /** The application to install into: the credential's own, else the manifest's. */
  applicationKey: Schema.optional(TemplateKey),
})
export type ApplyManifestInput = typeof ApplyManifestInput.Type

/** GET /designs/manifest query. */
export const ExportManifestParams = Schema.Struct({
  applicationKey: Schema.optional(TemplateKey),
  /** The version an installed copy applied: the answer says whether it is behind. */
  installedVersion: Schema.optional(Schema.String.pipe(Schema.maxLength(128))),
})

/** JSON with object keys sorted, so that equal content compares (and hashes) equal whatever its key order. */
export const canonicalJson = (value: unknown): string => JSON.stringify(value, (_key, inner: unknown) =>
  typeof inner === "object" && inner !== null && !Array.isArray(inner)
    ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : inner)

const hash = (value: string) => createHash("sha256").update(value).digest("hex")

/** The opaque id of a manifest's source. */
export const manifestSource = (accountId: string, applicationKey: string): string =>
  `src_${hash(`${accountId}\u0000${applicationKey}`).slice(0, 32)}`

/** The version of a manifest: a hash of its brands, designs (drafts and live versions) and asset references. */
export const manifestVersion = (content: Pick<Manifest, "brands" | "designs" | "assets">): string =>
  hash(canonicalJson({ brands: content.brands, designs: content.designs, assets: content.assets.map((asset) => asset.hash) })).slice(0, 32)

/** A stored draft in the form the API takes it back (blocks drafts as blocks, their MJML compiled again). */
export const draftInputOf = (draft: DesignDraft): DraftInput => {
  const common = { name: draft.name, subject: draft.subject, category: draft.category, variables: draft.variables }
  return draft.blocks === undefined
    ? { ...common, format: draft.format, html: draft.html, text: draft.text }
    : { ...common, blocks: draft.blocks, text: draft.text, ...(draft.preheader === undefined ? {} : { preheader: draft.preheader }) }
}

/** A brand in the form a manifest carries it. */
export const manifestBrandOf = (brand: BrandRecord): ManifestBrand => ({
  key: brand.id,
  name: brand.name,
  ...brandContentOf(brand),
})

export const manifestAssetOf = (asset: Pick<Asset, "id" | "hash" | "format" | "width" | "height">, url: string): ManifestAsset => ({
  id: asset.id, hash: asset.hash, url, contentType: asset.format === "png" ? "image/png" : "image/jpeg", width: asset.width, height: asset.height,
})

/** The asset files (`<hash>.png|jpg`) a value shows under `appUrl`'s /assets/. */
export const assetReferences = (appUrl: string, value: unknown): ReadonlyArray<{ readonly hash: string; readonly format: "png" | "jpeg" }> => {
  const base = appUrl.replace(/\/+$/, "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  const found = new Map<string, "png" | "jpeg">()
  for (const match of JSON.stringify(value).matchAll(new RegExp(`${base}/assets/([0-9a-f]{64})\\.(png|jpg)`, "g"))) {
    found.set(match[1]!, match[2] === "png" ? "png" : "jpeg")
  }
  return [...found].map(([hash, format]) => ({ hash, format }))
}

/** Where a manifest, before it is decoded, passes a limit: templates, blocks of one template, bytes (413). */
export const manifestOverLimit = (input: unknown): { readonly field: string; readonly detail: string } | undefined => {
  if (Buffer.byteLength(JSON.stringify(input) ?? "", "utf8") > manifestLimits.bytes) {
    return { field: "manifest", detail: `a manifest is at most ${manifestLimits.bytes} bytes of JSON` }
  }
  const designs = (input as { manifest?: { designs?: unknown } } | null)?.manifest?.designs
  if (!Array.isArray(designs)) return undefined
  if (designs.length > manifestLimits.templates) {
    return { field: "manifest.designs", detail: `a manifest holds at most ${manifestLimits.templates} templates; this one has ${designs.length}` }
  }
  for (const [index, design] of designs.entries()) {
    const blocks = (design as { draft?: { blocks?: unknown } } | null)?.draft?.blocks
    if (Array.isArray(blocks) && rawBlockCount(blocks) > manifestLimits.blocks) {
      return { field: `manifest.designs[${index}].draft.blocks`, detail: `a template holds at most ${manifestLimits.blocks} blocks` }
    }
  }
  return undefined
}

/** countBlocks on a list not yet decoded: columns' blocks counted too. */
const rawBlockCount = (blocks: ReadonlyArray<unknown>): number =>
  blocks.reduce<number>((sum, block) => {
    const columns = (block as { columns?: unknown } | null)?.columns
    return sum + 1 + (Array.isArray(columns) ? columns.reduce<number>((n, column) => n + (Array.isArray(column) ? column.length : 0), 0) : 0)
  }, 0)

/** What applying an entry does. */
export type PlanAction = "create" | "update" | "unchanged"

/** The record of the manifest an application last applied (kept in settings under manifestInstallKey). */
export interface ManifestInstall {
  readonly source: string
  readonly version: string
  readonly appliedAt: string
}
export const manifestInstallKey = (accountId: string, applicationKey: string) => `manifest-install:${accountId}:${applicationKey}`
