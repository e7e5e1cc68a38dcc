/** The brands part of the Store port. Every method is scoped by account. At most one brand of an account is its
 *  default; `setDefault` moves the mark in one step. */
import type { Effect, Option } from "effect"
import type { AccountId } from "../domain/account.js"
import type { BrandQuery, BrandRecord } from "../domain/brand.js"
import type { Design } from "../domain/design.js"
import type { TrackingDomain } from "../domain/tracking-domain.js"
import type { StoreError } from "../errors.js"

export interface BrandRepository {
  readonly insert: (brand: BrandRecord) => Effect.Effect<void, StoreError>
  /** Replaces every field but id, accountId, applicationKey, isDefault and createdAt, only while the stored brand's
   *  updatedAt is still `expectedUpdatedAt` (a compare-and-set): false, and nothing written, otherwise. */
  readonly update: (brand: BrandRecord, expectedUpdatedAt: Date) => Effect.Effect<boolean, StoreError>
  /** The account's brand, or none (also for another account's id). */
  readonly findById: (accountId: AccountId, id: string) => Effect.Effect<Option.Option<BrandRecord>, StoreError>
  /** The account's default brand, or none. */
  readonly findDefault: (accountId: AccountId) => Effect.Effect<Option.Option<BrandRecord>, StoreError>
  /** Up to `query.limit` brands matching core's matchesBrandQuery, newest first (core's compareBrands). */
  readonly list: (accountId: AccountId, query: BrandQuery) => Effect.Effect<ReadonlyArray<BrandRecord>, StoreError>
  /** How many brands the account has. */
  readonly count: (accountId: AccountId) => Effect.Effect<number, StoreError>
  /** Makes the brand the account's only default. False when the brand does not exist. */
  readonly setDefault: (accountId: AccountId, id: string) => Effect.Effect<boolean, StoreError>
  /** Deletes the brand. False when it did not exist. */
  readonly delete: (accountId: AccountId, id: string) => Effect.Effect<boolean, StoreError>
  /** The account's designs bound to the brand, newest first. */
  readonly usage: (accountId: AccountId, id: string) => Effect.Effect<ReadonlyArray<Design>, StoreError>
  /** The brand's tracking domain, or none. */
  readonly findTrackingDomain: (accountId: AccountId, brandId: string) => Effect.Effect<Option.Option<TrackingDomain>, StoreError>
  /** The tracking domain with this hostname, of any brand of any account, or none. */
  readonly findTrackingDomainByHostname: (hostname: string) => Effect.Effect<Option.Option<TrackingDomain>, StoreError>
  /** Writes the brand's tracking domain, replacing the one it had; false (and nothing written) when another brand holds
   *  the hostname, which two writes at once can find only here. */
  readonly saveTrackingDomain: (domain: TrackingDomain) => Effect.Effect<boolean, StoreError>
  /** Deletes the brand's tracking domain. False when it had none. */
  readonly deleteTrackingDomain: (accountId: AccountId, brandId: string) => Effect.Effect<boolean, StoreError>
}
