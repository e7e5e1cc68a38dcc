/** The campaign repository of the Store: campaigns, their resolved recipients (one row per campaign and contact, the
 *  key that keeps a recipient from getting a campaign twice) and their figures. */
import type { Effect, Option } from "effect"
import type { AccountId } from "../domain/account.js"
import type {
  Campaign, CampaignAudience, CampaignChunk, CampaignId, CampaignProgress, CampaignStatus, QueuedRecipient,
} from "../domain/campaign.js"
import type { StoreError } from "../errors.js"

export interface CampaignRepository {
  /** Inserts, or replaces the campaign with the same id. */
  readonly save: (campaign: Campaign) => Effect.Effect<void, StoreError>
  /** The account's campaign, if any. `forUpdate` locks its row until the transaction ends (Postgres). */
  readonly findById: (accountId: AccountId, id: string, options?: { readonly forUpdate?: boolean }) => Effect.Effect<Option.Option<Campaign>, StoreError>
  /** A page of the account's campaigns, newest first, and how many match. */
  readonly page: (accountId: AccountId, query: { readonly status?: CampaignStatus | undefined; readonly limit: number; readonly offset: number }) =>
    Effect.Effect<{ readonly campaigns: ReadonlyArray<Campaign>; readonly total: number }, StoreError>
  /** Deletes the account's campaign; false when there was none. */
  readonly delete: (accountId: AccountId, id: string) => Effect.Effect<boolean, StoreError>
  /** The audience's size (contacts that are not PENDING, each once however many lists hold it) and, when `eligible` is
   *  asked for, how many of them the filtering table keeps (else null: the size alone skips the filter's joins). One
   *  query. */
  readonly audienceCounts: (accountId: AccountId, audience: CampaignAudience, at: Date, options: { readonly eligible: boolean }) =>
    Effect.Effect<{ readonly total: number; readonly eligible: number | null }, StoreError>
  /** Resolves the next `limit` contacts of the audience after `after` (contact id order) into the campaign's queue
   *  (its recipients) with one INSERT … SELECT: each with its message id (`messagePrefix` + contact id) or the reason the
   *  filtering table drops it. A contact already resolved for the campaign is skipped (the per-recipient key). Nothing
   *  of the audience comes back to the process: only how many contacts the chunk covered and the last one. */
  readonly queueChunk: (input: {
    readonly accountId: AccountId
    readonly campaignId: CampaignId
    readonly audience: CampaignAudience
    readonly after: string | null
    readonly limit: number
    readonly messagePrefix: string
    readonly at: Date
  }) => Effect.Effect<CampaignChunk, StoreError>
  /** The next `limit` queued recipients after `after` (contact id order) that were not dropped and whose contact still
   *  exists, with the fields personalisation uses. Reads only. */
  readonly nextRecipients: (input: {
    readonly accountId: AccountId
    readonly campaignId: CampaignId
    readonly after: string | null
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<QueuedRecipient>, StoreError>
  /** Drops the campaign's queued recipients after `after` up to `upTo` (to the end when null), in contact id order,
   *  whose contact was deleted since they were queued: their message is never written, and they count as dropped with
   *  the reason `contactDeletedReason`. One statement. */
  readonly dropDeleted: (input: {
    readonly accountId: AccountId
    readonly campaignId: CampaignId
    readonly after: string | null
    readonly upTo: string | null
  }) => Effect.Effect<void, StoreError>
  /** The campaign's figures: recipients resolved and dropped (by reason), their messages' statuses, human opens and
   *  clicks (distinct recipients), unsubscribes recorded with the campaign, and `waiting`: the recipients not dropped
   *  after `sendCursor`, whose messages are not written yet. */
  readonly progress: (accountId: AccountId, id: CampaignId, sendCursor: string | null) =>
    Effect.Effect<Omit<CampaignProgress, "audienceSize" | "cancelled"> & { readonly waiting: number }, StoreError>
  /** Records an unsubscribe that came through a link of the campaign (once per recipient): the recipient of the
   *  contact when its id is known, else of the address. */
  readonly recordUnsubscribe: (
    accountId: AccountId, id: string, recipient: { readonly contactId: string | null; readonly email: string }, at: Date,
  ) => Effect.Effect<void, StoreError>
  /** The account's campaigns that use the design (`templateId`) or the brand (`brandId`), newest first. */
  readonly using: (accountId: AccountId, ref: CampaignRef) => Effect.Effect<ReadonlyArray<Campaign>, StoreError>
}

/** What a campaign may use: a design or a brand. */
export interface CampaignRef {
  readonly kind: "design" | "brand"
  readonly id: string
}
