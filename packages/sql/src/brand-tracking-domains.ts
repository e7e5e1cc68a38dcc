/** The brand_tracking_domains table behind the tracking-domain methods of `Store.brands`: one row per brand at most, a
 *  hostname held by one brand at most (a unique index). */
import type { SqlClient } from "@effect/sql"
import { AccountId, BrandId, type BrandRepository, type TrackingDomain, TrackingDomainStatus } from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { EpochMillis, LiteralColumn, toMillis, toMillisOrNull } from "./internal/columns.js"
import { isUniqueViolation, orStoreError } from "./internal/errors.js"

const Row = Schema.Struct({
  brand_id: BrandId,
  account_id: AccountId,
  hostname: Schema.String,
  status: LiteralColumn(TrackingDomainStatus),
  reason: Schema.NullOr(Schema.String),
  created_at: EpochMillis,
  updated_at: EpochMillis,
  last_checked_at: Schema.NullOr(EpochMillis),
  verified_at: Schema.NullOr(EpochMillis),
})
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))

const fromRow = (row: typeof Row.Type): TrackingDomain => ({
  brandId: row.brand_id,
  accountId: row.account_id,
  hostname: row.hostname,
  status: row.status,
  reason: row.reason,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  lastCheckedAt: row.last_checked_at,
  verifiedAt: row.verified_at,
})

type TrackingDomainMethods = Pick<
  BrandRepository, "findTrackingDomain" | "findTrackingDomainByHostname" | "saveTrackingDomain" | "deleteTrackingDomain"
>

/** The unique index on hostnames: a hostname belongs to one brand at most. */
const hostnameKey = { name: "brand_tracking_domains_hostname", table: "brand_tracking_domains", columns: ["hostname"] }

export const makeTrackingDomainMethods = (sql: SqlClient.SqlClient): TrackingDomainMethods => {
  const one = (rows: ReadonlyArray<typeof Row.Type>) => Option.map(Option.fromNullable(rows[0]), fromRow)
  return {
    findTrackingDomain: (accountId, brandId) =>
      sql`SELECT * FROM brand_tracking_domains WHERE account_id = ${accountId} AND brand_id = ${brandId}`.pipe(
        Effect.flatMap(decodeRows), Effect.map(one), orStoreError("brands.findTrackingDomain"),
      ),
    findTrackingDomainByHostname: (hostname) =>
      sql`SELECT * FROM brand_tracking_domains WHERE hostname = ${hostname}`.pipe(
        Effect.flatMap(decodeRows), Effect.map(one), orStoreError("brands.findTrackingDomainByHostname"),
      ),
    // The old row goes first, so that the unique index on hostname never sees the brand's old and new rows together.
    saveTrackingDomain: (domain) =>
      sql.withTransaction(Effect.gen(function* () {
        yield* sql`DELETE FROM brand_tracking_domains WHERE account_id = ${domain.accountId} AND brand_id = ${domain.brandId}`
        yield* sql`INSERT INTO brand_tracking_domains ${sql.insert({
          brand_id: domain.brandId,
          account_id: domain.accountId,
          hostname: domain.hostname,
          status: domain.status,
          reason: domain.reason,
          created_at: toMillis(domain.createdAt),
          updated_at: toMillis(domain.updatedAt),
          last_checked_at: toMillisOrNull(domain.lastCheckedAt),
          verified_at: toMillisOrNull(domain.verifiedAt),
        })}`
      })).pipe(
        Effect.as(true),
        Effect.catchIf((error) => isUniqueViolation(error, hostnameKey), () => Effect.succeed(false)),
        orStoreError("brands.saveTrackingDomain"),
      ),
    deleteTrackingDomain: (accountId, brandId) =>
      sql`DELETE FROM brand_tracking_domains WHERE account_id = ${accountId} AND brand_id = ${brandId} RETURNING brand_id`.pipe(
        Effect.map((rows) => rows.length > 0), orStoreError("brands.deleteTrackingDomain"),
      ),
  }
}
