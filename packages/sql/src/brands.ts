/** The brands table behind `Store.brands`. A brand's content (colours, logo, fonts, sender, compliance contact,
 *  footer, social links, custom variables, unsubscribe page) is one JSON column, read and written whole. At most one
 *  brand of an account has is_default = 1, which a partial unique index holds. */
import type { SqlClient } from "@effect/sql"
import { AccountId, type BrandContent, brandContentOf, BrandId, type BrandRecord, type BrandRepository } from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { decodeDesigns, fromRow as designFromRow } from "./designs.js"
import { EpochMillis, IntegerColumn, JsonColumn, toJson, toMillis } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"
import { makeTrackingDomainMethods } from "./brand-tracking-domains.js"

/** The content as stored: it was checked by core's brand schemas when it was saved. */
const StoredContent = Schema.Record({ key: Schema.String, value: Schema.Unknown }) as unknown as Schema.Schema<BrandContent>

const BrandRow = Schema.Struct({
  id: BrandId,
  account_id: AccountId,
  application_key: Schema.String,
  name: Schema.String,
  content: JsonColumn(StoredContent),
  is_default: IntegerColumn,
  created_at: EpochMillis,
  updated_at: EpochMillis,
})
const decodeBrands = Schema.decodeUnknown(Schema.Array(BrandRow))
const decodeTotal = Schema.decodeUnknown(Schema.Array(Schema.Struct({ total: IntegerColumn })))

const fromRow = (row: typeof BrandRow.Type): BrandRecord => ({
  id: row.id,
  accountId: row.account_id,
  applicationKey: row.application_key,
  name: row.name,
  colors: row.content.colors,
  logo: row.content.logo,
  fonts: row.content.fonts,
  sender: row.content.sender,
  compliance: row.content.compliance,
  footer: row.content.footer,
  social: row.content.social,
  custom: row.content.custom,
  unsubscribePage: row.content.unsubscribePage,
  isDefault: row.is_default !== 0,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const contentJson = (brand: BrandRecord) => toJson(brandContentOf(brand))

export const makeBrandRepository = (sql: SqlClient.SqlClient): BrandRepository => {
  const one = (rows: ReadonlyArray<typeof BrandRow.Type>) => Option.map(Option.fromNullable(rows[0]), fromRow)
  return {
    ...makeTrackingDomainMethods(sql),
    insert: (brand) =>
      sql`INSERT INTO brands ${sql.insert({
        id: brand.id,
        account_id: brand.accountId,
        application_key: brand.applicationKey,
        name: brand.name,
        content: contentJson(brand),
        is_default: brand.isDefault ? 1 : 0,
        created_at: toMillis(brand.createdAt),
        updated_at: toMillis(brand.updatedAt),
      })}`.pipe(Effect.asVoid, orStoreError("brands.insert")),

    update: (brand, expectedUpdatedAt) =>
      sql`UPDATE brands SET ${sql.update({ name: brand.name, content: contentJson(brand), updated_at: toMillis(brand.updatedAt) })}
        WHERE account_id = ${brand.accountId} AND id = ${brand.id} AND updated_at = ${toMillis(expectedUpdatedAt)}
        RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), orStoreError("brands.update")),

    findById: (accountId, id) =>
      sql`SELECT * FROM brands WHERE account_id = ${accountId} AND id = ${id}`.pipe(
        Effect.flatMap(decodeBrands), Effect.map(one), orStoreError("brands.findById"),
      ),

    findDefault: (accountId) =>
      sql`SELECT * FROM brands WHERE account_id = ${accountId} AND is_default = 1`.pipe(
        Effect.flatMap(decodeBrands), Effect.map(one), orStoreError("brands.findDefault"),
      ),

    list: (accountId, query) => {
      const where = [
        sql`account_id = ${accountId}`,
        ...(query.applicationKey === undefined ? [] : [sql`application_key = ${query.applicationKey}`]),
        ...(query.after === undefined ? [] : [sql`id < ${query.after}`]),
      ]
      return sql`SELECT * FROM brands WHERE ${sql.and(where)} ORDER BY id DESC LIMIT ${query.limit}`.pipe(
        Effect.flatMap(decodeBrands), Effect.map((rows) => rows.map(fromRow)), orStoreError("brands.list"),
      )
    },

    count: (accountId) =>
      sql`SELECT COUNT(*) AS total FROM brands WHERE account_id = ${accountId}`.pipe(
        Effect.flatMap(decodeTotal), Effect.map((rows) => rows[0]?.total ?? 0), orStoreError("brands.count"),
      ),

    // Two statements, the old mark cleared first, so that the partial unique index never sees two defaults.
    setDefault: (accountId, id) =>
      sql.withTransaction(Effect.gen(function* () {
        const found = yield* sql`SELECT id FROM brands WHERE account_id = ${accountId} AND id = ${id}`
        if (found.length === 0) return false
        yield* sql`UPDATE brands SET is_default = 0 WHERE account_id = ${accountId} AND is_default = 1 AND id <> ${id}`
        yield* sql`UPDATE brands SET is_default = 1 WHERE account_id = ${accountId} AND id = ${id}`
        return true
      })).pipe(orStoreError("brands.setDefault")),

    delete: (accountId, id) =>
      sql`DELETE FROM brands WHERE account_id = ${accountId} AND id = ${id} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0), orStoreError("brands.delete"),
      ),

    usage: (accountId, id) =>
      sql`SELECT * FROM designs WHERE account_id = ${accountId} AND brand_id = ${id} ORDER BY id DESC`.pipe(
        Effect.flatMap(decodeDesigns), Effect.map((rows) => rows.map(designFromRow)), orStoreError("brands.usage"),
      ),
  }
}
