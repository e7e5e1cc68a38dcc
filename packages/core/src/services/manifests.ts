/** Manifests (docs/templates.md, "Manifests"): GET /designs/manifest exports an application's designs, brands and
 *  asset references; POST /designs/manifest plans (dryRun) or applies one in a single transaction, all or nothing,
 *  publishing each changed design when asked. Same callers, scopes and plan gate as the designs routes. */
import { Effect, Option } from "effect"
import { BrandRevisionConflict } from "../brand-errors.js"
import { type AssetId, type Asset, assetUrl } from "../domain/asset.js"
import { type BrandId, type BrandRecord, checkBrandRoom, newBrand } from "../domain/brand.js"
import { accountApplicationKey, checkDesignRoom, checkStudioPlan, type Design, type DesignDraft, oversizedBody, toDraft } from "../domain/design.js"
import {
  ApplyManifestInput, assetReferences, canonicalJson, draftInputOf, type Manifest, manifestAssetOf, manifestBrandOf,
  type ManifestInstall, manifestInstallKey, manifestFormat, manifestLimits, manifestOverLimit, manifestSource,
  manifestVersion, type PlanAction,
} from "../domain/manifest.js"
import { PayloadTooLarge, ValidationFailed } from "../errors.js"
import { currentDate } from "../internal/time.js"
import { AssetStorage } from "../ports/asset-storage.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import { TemplateEngine } from "../ports/template-engine.js"
import { ManifestTooLarge } from "../template-errors.js"
import { decodeInput } from "../validation.js"
import { Brands } from "./brands.js"
import { type DesignCaller, Designs } from "./designs.js"
import { LinksConfig } from "./tokens.js"
import { serviceMethod } from "./tracing.js"

export interface ManifestPlan {
  readonly dryRun: boolean
  readonly applied: boolean
  readonly applicationKey: string
  readonly source: string
  readonly version: string
  /** What the application applied last (before this call), or null. */
  readonly installed: ManifestInstall | null
  /** Whether the application has not applied this version of this source yet. */
  readonly behind: boolean
  readonly brands: ReadonlyArray<{ key: string; name: string; action: PlanAction; id: string | null }>
  readonly designs: ReadonlyArray<{
    key: string; locale: string; action: PlanAction; id: string | null; changed: ReadonlyArray<string>; publishedVersion: number | null
  }>
  readonly assets: ReadonlyArray<{ hash: string; url: string; action: "create" | "unchanged" }>
}

const draftFields = ["name", "subject", "format", "html", "text", "category", "variables", "blocks", "preheader"] as const
const changedFields = (current: DesignDraft, next: DesignDraft) =>
  draftFields.filter((field) => canonicalJson(current[field] ?? null) !== canonicalJson(next[field] ?? null))

const brandContent = (brand: BrandRecord) => {
  const { id: _id, accountId: _a, applicationKey: _k, isDefault: _d, createdAt: _c, updatedAt: _u, ...content } = brand
  return content
}

const invalid = (field: string, detail: string) => new ValidationFailed({ field, detail })

export class Manifests extends Effect.Service<Manifests>()("@mailroom/core/Manifests", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const designs = yield* Designs
    const brands = yield* Brands
    const method = yield* serviceMethod
    const storage = Option.getOrElse(yield* Effect.serviceOption(AssetStorage), () => ({ put: store.assets.putContent, get: store.assets.getContent }))

    const applicationOf = (caller: DesignCaller, requested: string | undefined, fallback: string) => {
      if (caller.application !== null && requested !== undefined && requested !== caller.application.key) {
        return Effect.fail(invalid("applicationKey", `this credential reaches only application ${caller.application.key}`))
      }
      return Effect.succeed(caller.application?.key ?? requested ?? fallback)
    }

    const allDesigns = (caller: DesignCaller, applicationKey: string) => Effect.gen(function* () {
      const found: Array<Design> = []
      for (let after: string | undefined; ;) {
        const page = yield* store.designs.list(caller.account.id, { applicationKey, after, limit: 500 })
        found.push(...page)
        if (page.length < 500) return found.reverse()
        after = page[page.length - 1]!.id
      }
    })

    const allBrands = (caller: DesignCaller, applicationKey: string) => Effect.gen(function* () {
      const found: Array<BrandRecord> = []
      for (let after: string | undefined; ;) {
        const page = yield* store.brands.list(caller.account.id, { applicationKey, after, limit: 500 })
        found.push(...page)
        if (page.length < 500) return found.reverse()
        after = page[page.length - 1]!.id
      }
    })

    /** The account's listed assets by hash. */
    const assetsByHash = (caller: DesignCaller) => Effect.gen(function* () {
      const found = new Map<string, Asset>()
      for (let before: string | undefined; ;) {
        const page = yield* store.assets.list(caller.account.id, { before, limit: 500 })
        for (const asset of page) if (!found.has(asset.hash)) found.set(asset.hash, asset)
        if (page.length < 500) return found
        before = page[page.length - 1]!.id
      }
    })

    const installedOf = (caller: DesignCaller, applicationKey: string) =>
      Effect.map(store.settings.get(manifestInstallKey(caller.account.id, applicationKey)), (value) =>
        Option.match(value, { onNone: () => null, onSome: (json) => JSON.parse(json) as ManifestInstall }))

    const exportManifest = method("Manifests.export")(function* (
      caller: DesignCaller,
      query: { readonly applicationKey?: string | undefined; readonly installedVersion?: string | undefined },
    ) {
      yield* checkStudioPlan(caller.account.plan)
      const applicationKey = yield* applicationOf(caller, query.applicationKey, accountApplicationKey)
      const { appUrl } = yield* LinksConfig
      const brandList = (yield* allBrands(caller, applicationKey)).map(manifestBrandOf)
      const designList = yield* Effect.forEach(yield* allDesigns(caller, applicationKey), (design) => Effect.gen(function* () {
        const live = design.liveVersion === null ? Option.none() : yield* store.designs.findRelease(caller.account.id, design.id, design.liveVersion)
        return {
          key: design.key,
          locale: design.locale,
          brand: design.brandId,
          draft: draftInputOf(design.draft),
          live: Option.match(live, {
            onNone: () => null,
            onSome: (release) => ({ version: release.version, publishedAt: design.publishedAt?.toISOString() ?? null, draft: draftInputOf(release.content) }),
          }),
        }
      }))
      const listed = yield* assetsByHash(caller)
      const assets = assetReferences(appUrl, { brands: brandList, designs: designList }).map(({ hash, format }) => {
        const asset = listed.get(hash)
        return asset === undefined
          ? { id: null, hash, url: assetUrl(appUrl, { hash, format }), contentType: format === "png" ? "image/png" as const : "image/jpeg" as const, width: null, height: null }
          : manifestAssetOf(asset, assetUrl(appUrl, asset))
      })
      const content = { brands: brandList, designs: designList, assets }
      const manifest: Manifest = {
        format: manifestFormat,
        applicationKey,
        source: manifestSource(caller.account.id, applicationKey),
        version: manifestVersion(content),
        exportedAt: (yield* currentDate).toISOString(),
        ...content,
      }
      const installed = yield* installedOf(caller, applicationKey)
      return { manifest, installed, behind: query.installedVersion === undefined ? null : query.installedVersion !== manifest.version }
    })

    /** Refusals that must change nothing: limits (413), then the schema (400), then references the manifest makes to
     *  brands and assets it does not carry or this Mailroom does not hold (400), then each draft's source (400). */
    const check = (raw: unknown) => Effect.gen(function* () {
      const over = manifestOverLimit(raw)
      if (over !== undefined) return yield* Effect.fail(new ManifestTooLarge(over))
      const input = yield* decodeInput(ApplyManifestInput, raw)
      const { manifest } = input
      const brandKeys = new Set<string>()
      for (const [index, brand] of manifest.brands.entries()) {
        if (brandKeys.has(brand.key)) return yield* Effect.fail(invalid(`manifest.brands[${index}].key`, `brand key ${brand.key} appears twice`))
        brandKeys.add(brand.key)
      }
      const designKeys = new Set<string>()
      for (const [index, design] of manifest.designs.entries()) {
        const id = `${design.key}/${design.locale}`
        if (designKeys.has(id)) return yield* Effect.fail(invalid(`manifest.designs[${index}]`, `template ${design.key} (${design.locale}) appears twice`))
        designKeys.add(id)
        if (design.brand !== null && !brandKeys.has(design.brand)) {
          return yield* Effect.fail(invalid(`manifest.designs[${index}].brand`, `names brand ${design.brand}, which the manifest's brands do not hold`))
        }
      }
      const known = new Set<string>()
      for (const [index, asset] of manifest.assets.entries()) {
        if (Option.isNone(yield* storage.get(asset.hash))) {
          return yield* Effect.fail(invalid(`manifest.assets[${index}]`, `asset ${asset.hash} is unknown here; upload it (POST /designs/assets) first`))
        }
        known.add(asset.hash)
      }
      const { appUrl } = yield* LinksConfig
      const shown = assetReferences(appUrl, { brands: manifest.brands, designs: manifest.designs.map((d) => d.draft) })
      const unknown = shown.find((asset) => !known.has(asset.hash))
      if (unknown !== undefined) {
        return yield* Effect.fail(invalid("manifest.assets", `the manifest shows asset ${unknown.hash}, which its assets do not list`))
      }
      const engine = yield* TemplateEngine
      const drafts = yield* Effect.forEach(manifest.designs, (design, index) => Effect.gen(function* () {
        const draft = toDraft(design.draft, design.locale)
        const oversized = oversizedBody(draft)
        if (oversized !== undefined) {
          return yield* Effect.fail(new PayloadTooLarge({ limitBytes: manifestLimits.bytes, field: `manifest.designs[${index}].draft.${oversized}` }))
        }
        yield* engine.prepare({ format: draft.format, subject: draft.subject, html: draft.html, text: draft.text })
        return draft
      }))
      return { input, drafts }
    })

    const apply = method("Manifests.apply")(function* (caller: DesignCaller, raw: unknown) {
      yield* checkStudioPlan(caller.account.plan)
      const { input, drafts } = yield* check(raw)
      const { manifest } = input
      const applicationKey = yield* applicationOf(caller, input.applicationKey, manifest.applicationKey)
      const at = yield* currentDate
      const run = Effect.gen(function* () {
        const installed = yield* installedOf(caller, applicationKey)
        const existingBrands = yield* allBrands(caller, applicationKey)
        const brandIds = new Map<string, string | null>()
        const brandPlan = yield* Effect.forEach(manifest.brands, ({ key, ...fields }) => Effect.gen(function* () {
          const current = existingBrands.find((brand) => brand.name === fields.name)
          const desired = newBrand({ id: (current?.id ?? "") as BrandId, accountId: caller.account.id, applicationKey, input: fields, isDefault: false, at })
          if (current === undefined) {
            const id = input.dryRun ? null : (yield* brands.create(caller, { ...fields, applicationKey })).brand.id
            brandIds.set(key, id)
            return { key, name: fields.name, action: "create" as const, id }
          }
          brandIds.set(key, current.id)
          if (canonicalJson(brandContent(current)) === canonicalJson(brandContent(desired))) {
            return { key, name: fields.name, action: "unchanged" as const, id: current.id }
          }
          if (!input.dryRun) {
            const written = yield* store.brands.update({
              ...current, ...brandContent(desired), updatedAt: new Date(Math.max(at.getTime(), current.updatedAt.getTime() + 1)),
            }, current.updatedAt)
            // Someone changed the brand since it was read: the whole apply is undone.
            if (!written) {
              const now = yield* store.brands.findById(caller.account.id, current.id)
              return yield* Effect.fail(new BrandRevisionConflict({
                id: current.id,
                expected: current.updatedAt.toISOString(),
                current: Option.match(now, { onNone: () => "deleted", onSome: (brand) => brand.updatedAt.toISOString() }),
              }))
            }
          }
          return { key, name: fields.name, action: "update" as const, id: current.id }
        }))
        const existingDesigns = yield* allDesigns(caller, applicationKey)
        const designPlan = yield* Effect.forEach(manifest.designs, (entry, index) => Effect.gen(function* () {
          const draft = drafts[index]!
          const brandId = entry.brand === null ? null : brandIds.get(entry.brand) ?? null
          const current = existingDesigns.find((design) => design.key === entry.key && design.locale === entry.locale)
          const changed = current === undefined ? [...draftFields] : [
            ...changedFields(current.draft, draft),
            ...(entry.brand === null ? current.brandId === null : current.brandId === brandId && brandId !== null) ? [] : ["brand"],
          ]
          const action: PlanAction = current === undefined ? "create" : changed.length === 0 ? "unchanged" : "update"
          if (input.dryRun || action === "unchanged") {
            return { key: entry.key, locale: entry.locale, action, id: current?.id ?? null, changed, publishedVersion: null }
          }
          let design = current === undefined
            ? yield* designs.create(caller, { applicationKey, key: entry.key, locale: entry.locale, draft: entry.draft, brandId })
            : yield* designs.replace(caller, current.id, { expectedRevision: current.revision, draft: entry.draft })
          if (current !== undefined && design.brandId !== brandId) design = yield* designs.bindBrand(caller, design.id, { brandId })
          const published = input.publish ? (yield* designs.publish(caller, design.id, design.revision)).release.version : null
          return { key: entry.key, locale: entry.locale, action, id: design.id, changed, publishedVersion: published }
        }))
        const listed = yield* assetsByHash(caller)
        const assetPlan = yield* Effect.forEach(manifest.assets, (asset) => Effect.gen(function* () {
          if (listed.has(asset.hash)) return { hash: asset.hash, url: asset.url, action: "unchanged" as const }
          if (!input.dryRun) {
            const stored = yield* storage.get(asset.hash)
            yield* store.assets.insert({
              id: ids.make("asset", at) as AssetId,
              accountId: caller.account.id,
              applicationKey,
              name: null,
              hash: asset.hash,
              format: asset.contentType === "image/png" ? "png" : "jpeg",
              width: asset.width ?? 0,
              height: asset.height ?? 0,
              size: Option.match(stored, { onNone: () => 0, onSome: (content) => content.bytes.length }),
              createdAt: at,
              deletedAt: null,
            })
          }
          return { hash: asset.hash, url: asset.url, action: "create" as const }
        }))
        if (input.dryRun) {
          // A plan that applying would refuse for the plan's limits is refused the same way.
          const creates = (entries: ReadonlyArray<{ action: PlanAction }>) => entries.filter((entry) => entry.action === "create").length
          if (creates(designPlan) > 0) yield* checkDesignRoom(caller.account.plan, (yield* store.designs.count(caller.account.id)) + creates(designPlan) - 1)
          if (creates(brandPlan) > 0) yield* checkBrandRoom(caller.account.plan, (yield* store.brands.count(caller.account.id)) + creates(brandPlan) - 1)
        } else {
          const record: ManifestInstall = { source: manifest.source, version: manifest.version, appliedAt: at.toISOString() }
          yield* store.settings.set(manifestInstallKey(caller.account.id, applicationKey), JSON.stringify(record))
        }
        return {
          dryRun: input.dryRun,
          applied: !input.dryRun,
          applicationKey,
          source: manifest.source,
          version: manifest.version,
          installed,
          behind: installed === null || installed.source !== manifest.source || installed.version !== manifest.version,
          brands: brandPlan,
          designs: designPlan,
          assets: assetPlan,
        } satisfies ManifestPlan
      })
      return yield* (input.dryRun ? run : store.transaction(run))
    })

    return { exportManifest, apply } as const
  }),
}) {}
