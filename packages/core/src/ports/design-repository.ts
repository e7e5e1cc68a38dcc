/** The designs part of the Store port: designs with their drafts, and releases, which are written once and never
 *  changed (the repository has no way to change one). Every method is scoped by account. */
import type { Effect, Option } from "effect"
import type { AccountId } from "../domain/account.js"
import type { Design, DesignId, DesignQuery, DesignRelease } from "../domain/design.js"
import type { MessageId } from "../domain/message.js"
import type { StoreError } from "../errors.js"
import type { DesignAlreadyExists } from "../template-errors.js"

export interface DesignRepository {
  /** Inserts a new design. Fails with DesignAlreadyExists when the account has a design with the same application
   *  key, key and locale; nothing is written then. */
  readonly insert: (design: Design) => Effect.Effect<void, DesignAlreadyExists | StoreError>
  /** Replaces every field but id, accountId, applicationKey, key, locale and createdAt, only while the stored design
   *  still has `expected`'s revision and live version, checked and written as one atomic step (a compare-and-set):
   *  false, and nothing written, when a concurrent change moved either, or the design is gone. */
  readonly update: (
    design: Design,
    expected: { readonly revision: number; readonly liveVersion: number | null },
  ) => Effect.Effect<boolean, StoreError>
  /** The account's design, or none (also for another account's id). */
  readonly findById: (accountId: AccountId, id: string) => Effect.Effect<Option.Option<Design>, StoreError>
  /** Up to `query.limit` of the account's designs matching the query (core's matchesDesignQuery), in core's
   *  compareDesigns order (newest first). */
  readonly list: (accountId: AccountId, query: DesignQuery) => Effect.Effect<ReadonlyArray<Design>, StoreError>
  /** How many designs the account has, whatever their status. */
  readonly count: (accountId: AccountId) => Effect.Effect<number, StoreError>
  /** Deletes the account's design with its releases. False when it did not exist. */
  readonly delete: (accountId: AccountId, id: DesignId) => Effect.Effect<boolean, StoreError>
  /** Writes a release once. False, and nothing written, when the design already has a release with this version (a
   *  concurrent publish took it): a release is never replaced. */
  readonly insertRelease: (release: DesignRelease) => Effect.Effect<boolean, StoreError>
  /** The release of the account's design with this version, or none. */
  readonly findRelease: (accountId: AccountId, designId: string, version: number) => Effect.Effect<Option.Option<DesignRelease>, StoreError>
  /** Every release of the account's design, newest version first. */
  readonly listReleases: (accountId: AccountId, designId: string) => Effect.Effect<ReadonlyArray<DesignRelease>, StoreError>
  /** Ids of the account's messages sent with the design (accepted and scheduled ones included), newest first (ids
   *  sort by creation time), only those whose id sorts before `before` when it is given, at most `limit`. */
  readonly sends: (
    accountId: AccountId,
    designId: string,
    page: { readonly before?: string | undefined; readonly limit: number },
  ) => Effect.Effect<ReadonlyArray<MessageId>, StoreError>
  /** How many messages the account has sent with the design (accepted ones included). */
  readonly countSends: (accountId: AccountId, designId: string) => Effect.Effect<number, StoreError>
}
