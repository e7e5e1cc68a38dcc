/** The assets part of the Store port: asset records by account, and the default storage of their bytes by hash. */
import type { Effect, Option } from "effect"
import type { AccountId } from "../domain/account.js"
import type { Asset } from "../domain/asset.js"
import type { StoreError } from "../errors.js"
import type { StoredContent } from "./asset-storage.js"

export interface AssetRepository {
  /** Inserts the asset; when the account already has one with the same hash, that one is answered instead (shown
   *  again if it was deleted, its name kept) and nothing else is written. */
  readonly insert: (asset: Asset) => Effect.Effect<Asset, StoreError>
  /** The account's asset, deleted or not, or none. */
  readonly findById: (accountId: AccountId, id: string) => Effect.Effect<Option.Option<Asset>, StoreError>
  /** Up to `limit` of the account's assets that are not deleted, newest first, those whose id sorts before `before`
   *  when given, of one application key when given. */
  readonly list: (
    accountId: AccountId,
    query: { readonly applicationKey?: string | undefined; readonly before?: string | undefined; readonly limit: number },
  ) => Effect.Effect<ReadonlyArray<Asset>, StoreError>
  /** Marks the account's asset deleted at `at`; false when unknown or deleted already. */
  readonly markDeleted: (accountId: AccountId, id: string, at: Date) => Effect.Effect<boolean, StoreError>
  /** Stores bytes under their hash unless stored already (the database storage of AssetStorage). */
  readonly putContent: (hash: string, content: StoredContent) => Effect.Effect<void, StoreError>
  readonly getContent: (hash: string) => Effect.Effect<Option.Option<StoredContent>, StoreError>
}
