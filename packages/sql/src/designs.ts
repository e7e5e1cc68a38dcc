/** The designs and design_releases tables behind `Store.designs`. A design's draft is one JSON column, read and
 *  written whole; a release's content is one JSON column, inserted once and never updated (this module has no UPDATE
 *  of design_releases). */
import type { SqlClient } from "@effect/sql"
import {
  AccountId, type Block, type Design, DesignAlreadyExists, DesignId, type DesignRelease, type DesignRepository, DesignStatus,
  engineTag, type MessageId, type StoreError, type VariablesSchema,
} from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { EpochMillis, IntegerColumn, JsonColumn, toJson, toMillis, toMillisOrNull } from "./internal/columns.js"
import { isUniqueViolation, orStoreError, storeError, type UniqueConstraint } from "./internal/errors.js"

/** The variables schema as stored: it was checked by core's VariablesSchema when the draft was saved. */
const StoredVariables = Schema.Record({ key: Schema.String, value: Schema.Unknown }) as unknown as Schema.Schema<VariablesSchema>

const Draft = Schema.Struct({
  name: Schema.String,
  subject: Schema.String,
  format: Schema.Literal("html", "mjml"),
  html: Schema.String,
  text: Schema.NullOr(Schema.String),
  category: Schema.NullOr(Schema.String),
  variables: StoredVariables,
  /** Checked by core's BlockList when the draft was saved. */
  blocks: Schema.optional(Schema.Array(Schema.Unknown) as unknown as Schema.Schema<ReadonlyArray<Block>>),
  preheader: Schema.optional(Schema.String),
})

const Source = Schema.Struct({ starter: Schema.String, version: Schema.Number })

const ReleaseContent = Schema.Struct({
  content: Draft,
  compiled: Schema.Struct({
    subject: Schema.String,
    html: Schema.String,
    text: Schema.NullOr(Schema.String),
    variables: Schema.Array(Schema.String),
  }),
})

const DesignRow = Schema.Struct({
  id: DesignId,
  account_id: AccountId,
  application_key: Schema.String,
  key: Schema.String,
  locale: Schema.String,
  draft: JsonColumn(Draft),
  revision: IntegerColumn,
  status: DesignStatus,
  live_version: Schema.NullOr(IntegerColumn),
  brand_id: Schema.NullOr(Schema.String),
  replacement_id: Schema.NullOr(DesignId),
  created_at: EpochMillis,
  updated_at: EpochMillis,
  published_at: Schema.NullOr(EpochMillis),
  retired_at: Schema.NullOr(EpochMillis),
  source: Schema.optionalWith(Schema.NullOr(JsonColumn(Source)), { default: () => null }),
})
type DesignRow = typeof DesignRow.Type
export const decodeDesigns = Schema.decodeUnknown(Schema.Array(DesignRow))

const ReleaseRow = Schema.Struct({
  design_id: DesignId,
  version: IntegerColumn,
  account_id: AccountId,
  content: JsonColumn(ReleaseContent),
  brand_id: Schema.NullOr(Schema.String),
  brand: Schema.NullOr(JsonColumn(Schema.Unknown)),
  engine: Schema.Literal(engineTag),
  revision: IntegerColumn,
  rolled_back_from: Schema.NullOr(IntegerColumn),
  created_at: EpochMillis,
})
const decodeReleases = Schema.decodeUnknown(Schema.Array(ReleaseRow))
const decodeTotal = Schema.decodeUnknown(Schema.Array(Schema.Struct({ total: IntegerColumn })))

export const fromRow = (row: DesignRow): Design => ({
  id: row.id,
  accountId: row.account_id,
  applicationKey: row.application_key,
  key: row.key,
  locale: row.locale,
  draft: row.draft,
  revision: row.revision,
  status: row.status,
  liveVersion: row.live_version,
  brandId: row.brand_id,
  replacementId: row.replacement_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  publishedAt: row.published_at,
  retiredAt: row.retired_at,
  source: row.source,
})

const releaseFromRow = (row: typeof ReleaseRow.Type): DesignRelease => ({
  accountId: row.account_id,
  designId: row.design_id,
  version: row.version,
  content: row.content.content,
  compiled: row.content.compiled,
  brandId: row.brand_id,
  brand: row.brand,
  engine: row.engine,
  revision: row.revision,
  rolledBackFrom: row.rolled_back_from,
  createdAt: row.created_at,
})

const draftJson = (draft: Design["draft"]) => toJson({
  name: draft.name,
  subject: draft.subject,
  format: draft.format,
  html: draft.html,
  text: draft.text,
  category: draft.category,
  variables: draft.variables,
  ...(draft.blocks === undefined ? {} : { blocks: draft.blocks }),
  ...(draft.preheader === undefined ? {} : { preheader: draft.preheader }),
})

/** The columns a change of the design writes. */
const changedColumns = (design: Design) => ({
  draft: draftJson(design.draft),
  category: design.draft.category,
  revision: design.revision,
  status: design.status,
  live_version: design.liveVersion,
  brand_id: design.brandId,
  replacement_id: design.replacementId,
  updated_at: toMillis(design.updatedAt),
  published_at: toMillisOrNull(design.publishedAt),
  retired_at: toMillisOrNull(design.retiredAt),
  source: design.source === null ? null : toJson(design.source),
})

const keyConstraint: UniqueConstraint = {
  name: "designs_account_key_locale_key", table: "designs", columns: ["account_id", "application_key", "key", "locale"],
}

export const makeDesignRepository = (sql: SqlClient.SqlClient): DesignRepository => ({
  insert: (design) =>
    sql`INSERT INTO designs ${sql.insert({
      id: design.id,
      account_id: design.accountId,
      application_key: design.applicationKey,
      key: design.key,
      locale: design.locale,
      created_at: toMillis(design.createdAt),
      ...changedColumns(design),
    })}`.pipe(
      Effect.asVoid,
      Effect.mapError((error): DesignAlreadyExists | StoreError => isUniqueViolation(error, keyConstraint)
        ? new DesignAlreadyExists({ applicationKey: design.applicationKey, key: design.key, locale: design.locale })
        : storeError("designs.insert")(error)),
    ),

  update: (design, expected) => {
    const live = expected.liveVersion === null ? sql`live_version IS NULL` : sql`live_version = ${expected.liveVersion}`
    return sql`UPDATE designs SET ${sql.update(changedColumns(design))}
      WHERE account_id = ${design.accountId} AND id = ${design.id} AND revision = ${expected.revision} AND ${live}
      RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), orStoreError("designs.update"))
  },

  findById: (accountId, id) =>
    sql`SELECT * FROM designs WHERE account_id = ${accountId} AND id = ${id}`.pipe(
      Effect.flatMap(decodeDesigns),
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), fromRow)),
      orStoreError("designs.findById"),
    ),

  list: (accountId, query) => {
    const where = [
      sql`account_id = ${accountId}`,
      ...(query.applicationKey === undefined ? [] : [sql`application_key = ${query.applicationKey}`]),
      ...(query.key === undefined ? [] : [sql`key = ${query.key}`]),
      ...(query.locale === undefined ? [] : [sql`locale = ${query.locale}`]),
      ...(query.category === undefined ? [] : [sql`category = ${query.category}`]),
      ...(query.status === undefined ? [] : [sql`status = ${query.status}`]),
      ...(query.after === undefined ? [] : [sql`id < ${query.after}`]),
    ]
    return sql`SELECT * FROM designs WHERE ${sql.and(where)} ORDER BY id DESC LIMIT ${query.limit}`.pipe(
      Effect.flatMap(decodeDesigns),
      Effect.map((rows) => rows.map(fromRow)),
      orStoreError("designs.list"),
    )
  },

  count: (accountId) =>
    sql`SELECT COUNT(*) AS total FROM designs WHERE account_id = ${accountId}`.pipe(
      Effect.flatMap(decodeTotal), Effect.map((rows) => rows[0]?.total ?? 0), orStoreError("designs.count"),
    ),

  delete: (accountId, id) =>
    sql`DELETE FROM designs WHERE account_id = ${accountId} AND id = ${id} RETURNING id`.pipe(
      Effect.map((rows) => rows.length > 0), orStoreError("designs.delete"),
    ),

  insertRelease: (release) =>
    sql`INSERT INTO design_releases ${sql.insert({
      design_id: release.designId,
      version: release.version,
      account_id: release.accountId,
      content: toJson({ content: release.content, compiled: release.compiled }),
      brand_id: release.brandId,
      brand: release.brand === null || release.brand === undefined ? null : toJson(release.brand),
      engine: release.engine,
      revision: release.revision,
      rolled_back_from: release.rolledBackFrom,
      created_at: toMillis(release.createdAt),
    })} ON CONFLICT (design_id, version) DO NOTHING RETURNING version`.pipe(
      Effect.map((rows) => rows.length > 0), orStoreError("designs.insertRelease"),
    ),

  findRelease: (accountId, designId, version) =>
    sql`SELECT * FROM design_releases WHERE account_id = ${accountId} AND design_id = ${designId} AND version = ${version}`.pipe(
      Effect.flatMap(decodeReleases),
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), releaseFromRow)),
      orStoreError("designs.findRelease"),
    ),

  listReleases: (accountId, designId) =>
    sql`SELECT * FROM design_releases WHERE account_id = ${accountId} AND design_id = ${designId} ORDER BY version DESC`.pipe(
      Effect.flatMap(decodeReleases), Effect.map((rows) => rows.map(releaseFromRow)), orStoreError("designs.listReleases"),
    ),

  sends: (accountId, designId, page) =>
    sql<{ readonly id: MessageId }>`SELECT id FROM messages WHERE account_id = ${accountId} AND template_id = ${designId}
      ${page.before === undefined ? sql`` : sql`AND id < ${page.before}`}
      ORDER BY id DESC LIMIT ${page.limit}`.pipe(
      Effect.map((rows) => rows.map((row) => row.id)),
      orStoreError("designs.sends"),
    ),
  countSends: (accountId, designId) =>
    sql`SELECT COUNT(*) AS total FROM messages WHERE account_id = ${accountId} AND template_id = ${designId}`.pipe(
      Effect.flatMap(decodeTotal), Effect.map((rows) => rows[0]?.total ?? 0), orStoreError("designs.countSends"),
    ),
})
