/** Image assets: upload (decoded, checked, made fit for email, stored by content hash), list, delete, and the bytes
 *  behind an asset URL. Same callers, scopes and plan gate as the designs routes. Deleting hides an asset from the
 *  list; its URL keeps serving, so that mail already sent (and live releases that show it) keep their images. */
import { Effect, Option } from "effect"
import { createHash } from "node:crypto"
import { accountApplicationKey, checkStudioPlan } from "../domain/design.js"
import {
  type Asset, type AssetId, assetLimits, assetUrl, contentTypes, decodeBase64, parseAssetFileName, type UploadAssetInput,
} from "../domain/asset.js"
import { PayloadTooLarge, ResourceNotFound, ValidationFailed } from "../errors.js"
import { currentDate } from "../internal/time.js"
import { AssetStorage, type AssetStorageService } from "../ports/asset-storage.js"
import { ImageProcessor } from "../ports/image-processor.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import type { DesignCaller } from "./designs.js"
import { LinksConfig } from "./tokens.js"
import { serviceMethod } from "./tracing.js"

const declaredTypes: Record<string, string> = { "image/png": "png", "image/jpeg": "jpeg", "image/jpg": "jpeg", "image/webp": "webp" }

export class Assets extends Effect.Service<Assets>()("@mailroom/core/Assets", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const method = yield* serviceMethod
    // The host's object storage when it provides one; the database otherwise.
    const storage: AssetStorageService = Option.getOrElse(yield* Effect.serviceOption(AssetStorage), () => ({
      put: store.assets.putContent,
      get: store.assets.getContent,
    }))

    const urlOf = (asset: Asset) => Effect.map(LinksConfig, (links) => assetUrl(links.appUrl, asset))

    const applicationOf = (caller: DesignCaller, requested: string | undefined) => {
      if (caller.application !== null && requested !== undefined && requested !== caller.application.key) {
        return Effect.fail(new ValidationFailed({ field: "applicationKey", detail: `this credential reaches only application ${caller.application.key}` }))
      }
      return Effect.succeed(caller.application?.key ?? requested ?? accountApplicationKey)
    }

    const upload = method("Assets.upload")(function* (caller: DesignCaller, input: UploadAssetInput) {
      yield* checkStudioPlan(caller.account.plan)
      const applicationKey = yield* applicationOf(caller, input.applicationKey)
      const bytes = decodeBase64(input.data)
      if (bytes === undefined) return yield* Effect.fail(new ValidationFailed({ field: "data", detail: "is not base64: send the image's bytes base64-encoded" }))
      if (bytes.length > assetLimits.bytes) return yield* Effect.fail(new PayloadTooLarge({ limitBytes: assetLimits.bytes, field: "data" }))
      const processor = yield* ImageProcessor
      const image = yield* processor.process(bytes, { maxWidth: assetLimits.width, maxPixels: assetLimits.pixels }).pipe(
        Effect.mapError((rejected) => new ValidationFailed({ field: "data", detail: rejected.detail })),
      )
      const declared = input.contentType === undefined ? undefined : declaredTypes[input.contentType.toLowerCase()]
      if (input.contentType !== undefined && declared !== image.input) {
        return yield* Effect.fail(new ValidationFailed({
          field: "contentType", detail: `says ${input.contentType}, but the image is ${image.input.toUpperCase()}; send its real type or leave contentType out`,
        }))
      }
      const hash = createHash("sha256").update(image.bytes).digest("hex")
      yield* storage.put(hash, { contentType: contentTypes[image.format], bytes: image.bytes })
      const at = yield* currentDate
      const asset = yield* store.assets.insert({
        id: ids.make("asset", at) as AssetId,
        accountId: caller.account.id,
        applicationKey,
        name: input.name ?? null,
        hash,
        format: image.format,
        width: image.width,
        height: image.height,
        size: image.bytes.length,
        createdAt: at,
        deletedAt: null,
      })
      return { asset, url: yield* urlOf(asset), input: image.input }
    })

    const list = method("Assets.list")(function* (caller: DesignCaller, page: { readonly before?: string | undefined; readonly limit: number }) {
      yield* checkStudioPlan(caller.account.plan)
      const rows = yield* store.assets.list(caller.account.id, { applicationKey: caller.application?.key, before: page.before, limit: page.limit + 1 })
      const shown = rows.slice(0, page.limit)
      const assets = yield* Effect.forEach(shown, (asset) => Effect.map(urlOf(asset), (url) => ({ asset, url })))
      return { assets, nextBefore: rows.length > page.limit ? shown[shown.length - 1]!.id : null }
    })

    const find = (caller: DesignCaller, id: string) =>
      Effect.flatMap(store.assets.findById(caller.account.id, id), (found) =>
        Option.isNone(found) || found.value.deletedAt !== null ||
          (caller.application !== null && found.value.applicationKey !== caller.application.key)
          ? Effect.fail(new ResourceNotFound({ resource: "asset", id }))
          : Effect.succeed(found.value))

    const get = method("Assets.get")(function* (caller: DesignCaller, id: string) {
      yield* checkStudioPlan(caller.account.plan)
      const asset = yield* find(caller, id)
      return { asset, url: yield* urlOf(asset) }
    })

    /** Hides the asset from the list; its URL keeps serving (docs/templates.md, "Deleting an asset"). */
    const remove = method("Assets.remove")(function* (caller: DesignCaller, id: string) {
      yield* checkStudioPlan(caller.account.plan)
      const asset = yield* find(caller, id)
      yield* store.assets.markDeleted(caller.account.id, asset.id, yield* currentDate)
      return { id: asset.id, deleted: true as const }
    })

    /** The bytes behind an asset URL (`<hash>.png|jpg`), or none: no API key, since mail shows them to anyone. */
    const content = method("Assets.content")(function* (file: string) {
      const parsed = parseAssetFileName(file)
      if (parsed === undefined) return Option.none()
      const stored = yield* storage.get(parsed.hash)
      return Option.filter(stored, (found) => found.contentType === contentTypes[parsed.format])
        .pipe(Option.map((found) => ({ ...found, hash: parsed.hash })))
    })

    return { upload, list, get, remove, content } as const
  }),
}) {}
