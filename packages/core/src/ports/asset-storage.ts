/** The AssetStorage port: where the bytes of image assets live, by content hash. The database keeps them by default
 *  (Store.assets' content); a host may provide this port to keep them in object storage instead. Bytes under one key
 *  never change (the key is their hash), so `put` of a key already stored does nothing. */
import { Context, type Effect, type Option } from "effect"
import type { StoreError } from "../errors.js"

export interface StoredContent {
  readonly contentType: string
  readonly bytes: Uint8Array
}

export interface AssetStorageService {
  readonly put: (key: string, content: StoredContent) => Effect.Effect<void, StoreError>
  readonly get: (key: string) => Effect.Effect<Option.Option<StoredContent>, StoreError>
}

export class AssetStorage extends Context.Tag("@mailroom/core/AssetStorage")<AssetStorage, AssetStorageService>() {}
