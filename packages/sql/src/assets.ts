/** The design_assets and asset_contents tables behind `Store.assets`: asset records by account (one per image hash),
 *  and the bytes by hash, base64 text, written once and never changed or deleted. */
import type { SqlClient } from "@effect/sql"
import { AccountId, type Asset, AssetId, type AssetRepository } from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { EpochMillis, IntegerColumn, toMillis } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"

const AssetRow = Schema.Struct({
  id: AssetId,
  account_id: AccountId,
  application_key: Schema.String,
  name: Schema.NullOr(Schema.String),
  hash: Schema.String,
  format: Schema.Literal("png", "jpeg"),
  width: IntegerColumn,
  height: IntegerColumn,
  size: IntegerColumn,
  created_at: EpochMillis,
  deleted_at: Schema.NullOr(EpochMillis),
})
const decodeAssets = Schema.decodeUnknown(Schema.Array(AssetRow))
const decodeContents = Schema.decodeUnknown(Schema.Array(Schema.Struct({ content_type: Schema.String, data: Schema.String })))

const fromRow = (row: typeof AssetRow.Type): Asset => ({
  id: row.id,
  accountId: row.account_id,
  applicationKey: row.application_key,
  name: row.name,
  hash: row.hash,
  format: row.format,
  width: row.width,
  height: row.height,
  size: row.size,
  createdAt: row.created_at,
  deletedAt: row.deleted_at,
})

export const makeAssetRepository = (sql: SqlClient.SqlClient): AssetRepository => {
  const byHash = (accountId: string, hash: string) =>
    sql`SELECT * FROM design_assets WHERE account_id = ${accountId} AND hash = ${hash}`.pipe(Effect.flatMap(decodeAssets))
  return {
    insert: (asset) =>
      Effect.gen(function* () {
        yield* sql`INSERT INTO design_assets ${sql.insert({
          id: asset.id,
          account_id: asset.accountId,
          application_key: asset.applicationKey,
          name: asset.name,
          hash: asset.hash,
          format: asset.format,
          width: asset.width,
          height: asset.height,
          size: asset.size,
          created_at: toMillis(asset.createdAt),
          deleted_at: null,
        })} ON CONFLICT (account_id, hash) DO UPDATE SET deleted_at = NULL`
        const rows = yield* byHash(asset.accountId, asset.hash)
        return fromRow(rows[0]!)
      }).pipe(orStoreError("assets.insert")),

    findById: (accountId, id) =>
      sql`SELECT * FROM design_assets WHERE account_id = ${accountId} AND id = ${id}`.pipe(
        Effect.flatMap(decodeAssets),
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), fromRow)),
        orStoreError("assets.findById"),
      ),

    list: (accountId, query) => {
      const where = [
        sql`account_id = ${accountId}`,
        sql`deleted_at IS NULL`,
        ...(query.applicationKey === undefined ? [] : [sql`application_key = ${query.applicationKey}`]),
        ...(query.before === undefined ? [] : [sql`id < ${query.before}`]),
      ]
      return sql`SELECT * FROM design_assets WHERE ${sql.and(where)} ORDER BY id DESC LIMIT ${query.limit}`.pipe(
        Effect.flatMap(decodeAssets), Effect.map((rows) => rows.map(fromRow)), orStoreError("assets.list"),
      )
    },

    markDeleted: (accountId, id, at) =>
      sql`UPDATE design_assets SET deleted_at = ${toMillis(at)}
        WHERE account_id = ${accountId} AND id = ${id} AND deleted_at IS NULL RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0), orStoreError("assets.markDeleted"),
      ),

    putContent: (hash, content) =>
      sql`INSERT INTO asset_contents ${sql.insert({
        hash, content_type: content.contentType, data: Buffer.from(content.bytes).toString("base64"),
      })} ON CONFLICT (hash) DO NOTHING`.pipe(Effect.asVoid, orStoreError("assets.putContent")),

    getContent: (hash) =>
      sql`SELECT content_type, data FROM asset_contents WHERE hash = ${hash}`.pipe(
        Effect.flatMap(decodeContents),
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => ({
          contentType: row.content_type, bytes: Uint8Array.from(Buffer.from(row.data, "base64")),
        }))),
        orStoreError("assets.getContent"),
      ),
  }
}
