/** The campaigns and campaign_recipients tables behind `Store.campaigns`. A chunk of the audience is resolved and its
 *  messages written set-based (campaign-chunk.ts), keyed per campaign and contact so that a chunk run twice adds
 *  nobody twice. */
import type { SqlClient } from "@effect/sql"
import {
  AccountId, type Campaign, CampaignId, type CampaignRepository, CampaignStatus,
} from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { campaignReasonSql } from "./eligibility-sql.js"
import { EpochMillis, IntegerColumn, JsonColumn, toJson, toMillis } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"
import type { CommitSignal } from "./internal/commit-signal.js"
import { rowLock } from "./internal/row-lock.js"
import { audienceSql, makeQueueChunk } from "./campaign-chunk.js"

const Address = Schema.Struct({ email: Schema.String, name: Schema.optional(Schema.String) })
const Body = Schema.Struct({
  listIds: Schema.Array(Schema.String),
  topicId: Schema.NullOr(Schema.String),
  subject: Schema.String,
  html: Schema.NullOr(Schema.String),
  text: Schema.NullOr(Schema.String),
  from: Address,
  replyTo: Schema.NullOr(Address),
  variables: Schema.Record({ key: Schema.String, value: Schema.String }),
  startedAt: Schema.NullOr(Schema.Number),
  finishedAt: Schema.NullOr(Schema.Number),
  stopReason: Schema.NullOr(Schema.String),
  audienceSize: Schema.NullOr(Schema.Number),
  cursor: Schema.NullOr(Schema.String),
  paceAt: Schema.optionalWith(Schema.NullOr(Schema.Number), { default: () => null }),
})

const CampaignRow = Schema.Struct({
  id: CampaignId,
  account_id: AccountId,
  name: Schema.String,
  status: CampaignStatus,
  template_id: Schema.NullOr(Schema.String),
  brand_id: Schema.NullOr(Schema.String),
  scheduled_at: Schema.NullOr(EpochMillis),
  body: JsonColumn(Body),
  created_at: EpochMillis,
  updated_at: EpochMillis,
})
const decodeCampaigns = Schema.decodeUnknown(Schema.Array(CampaignRow))

const toCampaign = (row: typeof CampaignRow.Type): Campaign => ({
  id: row.id,
  accountId: row.account_id,
  name: row.name,
  status: row.status,
  listIds: row.body.listIds,
  topicId: row.body.topicId,
  templateId: row.template_id,
  brandId: row.brand_id,
  subject: row.body.subject,
  html: row.body.html,
  text: row.body.text,
  from: row.body.from as Campaign["from"],
  replyTo: row.body.replyTo as Campaign["replyTo"],
  variables: row.body.variables,
  scheduledAt: row.scheduled_at,
  startedAt: row.body.startedAt === null ? null : new Date(row.body.startedAt),
  finishedAt: row.body.finishedAt === null ? null : new Date(row.body.finishedAt),
  stopReason: row.body.stopReason,
  audienceSize: row.body.audienceSize,
  cursor: row.body.cursor,
  paceAt: row.body.paceAt === null ? null : new Date(row.body.paceAt),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const toRow = (c: Campaign) => ({
  id: c.id,
  account_id: c.accountId,
  name: c.name,
  status: c.status,
  template_id: c.templateId,
  brand_id: c.brandId,
  scheduled_at: c.scheduledAt === null ? null : toMillis(c.scheduledAt),
  body: toJson({
    listIds: c.listIds, topicId: c.topicId, subject: c.subject, html: c.html, text: c.text, from: c.from,
    replyTo: c.replyTo, variables: c.variables, startedAt: c.startedAt?.getTime() ?? null,
    finishedAt: c.finishedAt?.getTime() ?? null, stopReason: c.stopReason, audienceSize: c.audienceSize, cursor: c.cursor,
    paceAt: c.paceAt?.getTime() ?? null,
  }),
  created_at: toMillis(c.createdAt),
  updated_at: toMillis(c.updatedAt),
})

const columns = "id, account_id, name, status, template_id, brand_id, scheduled_at, body, created_at, updated_at"

const Counts = Schema.Struct({ total: Schema.NullOr(IntegerColumn), eligible: Schema.NullOr(IntegerColumn) })
const Grouped = Schema.Struct({ key: Schema.NullOr(Schema.String), n: IntegerColumn })

export const makeCampaignRepository = (sql: SqlClient.SqlClient, commits: CommitSignal): CampaignRepository => ({
  save: (campaign) => {
    const row = toRow(campaign)
    return sql`INSERT INTO campaigns ${sql.insert(row)} ON CONFLICT (id) DO UPDATE SET ${sql.update(row, ["id"])}`.pipe(
      Effect.asVoid, orStoreError("campaigns.save"))
  },

  findById: (accountId, id, options) =>
    sql`SELECT ${sql.literal(columns)} FROM campaigns WHERE id = ${id} AND account_id = ${accountId} ${rowLock(sql, options)}`.pipe(
      Effect.flatMap(decodeCampaigns),
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toCampaign)),
      orStoreError("campaigns.findById")),

  page: (accountId, query) => Effect.gen(function* () {
    const status = query.status === undefined ? sql.literal("") : sql`AND status = ${query.status}`
    const rows = yield* decodeCampaigns(yield* sql`SELECT ${sql.literal(columns)} FROM campaigns
      WHERE account_id = ${accountId} ${status} ORDER BY created_at DESC, id DESC LIMIT ${query.limit} OFFSET ${query.offset}`)
    const [count] = yield* sql<{ readonly n: number | string }>`SELECT count(*) AS n FROM campaigns WHERE account_id = ${accountId} ${status}`
    return { campaigns: rows.map(toCampaign), total: Number(count?.n ?? 0) }
  }).pipe(orStoreError("campaigns.page")),

  delete: (accountId, id) =>
    sql`DELETE FROM campaigns WHERE id = ${id} AND account_id = ${accountId} RETURNING id`.pipe(
      Effect.map((rows) => rows.length > 0), orStoreError("campaigns.delete")),

  audienceCounts: (accountId, audience, at) => Effect.gen(function* () {
    const { reason, joins } = campaignReasonSql(sql, accountId, audience)
    const rows = yield* sql`SELECT count(*) AS total, sum(CASE WHEN x.reason IS NULL THEN 1 ELSE 0 END) AS eligible
      FROM (SELECT ${reason} AS reason FROM contacts c ${joins} WHERE ${audienceSql(sql, accountId, audience, at)}) x`
    const [counts] = yield* Schema.decodeUnknown(Schema.Array(Counts))(rows)
    return { total: counts?.total ?? 0, eligible: counts?.eligible ?? 0 }
  }).pipe(orStoreError("campaigns.audienceCounts")),

  queueChunk: makeQueueChunk(sql, commits),

  progress: (accountId, id) => Effect.gen(function* () {
    const decode = Schema.decodeUnknown(Schema.Array(Grouped))
    const reasons = yield* decode(yield* sql`SELECT reason AS key, count(*) AS n FROM campaign_recipients
      WHERE campaign_id = ${id} AND account_id = ${accountId} GROUP BY reason`)
    const statuses = yield* decode(yield* sql`SELECT mr.status AS key, count(*) AS n FROM campaign_recipients cr
      JOIN message_recipients mr ON mr.message_id = cr.message_id
      WHERE cr.campaign_id = ${id} AND cr.account_id = ${accountId} GROUP BY mr.status`)
    const engaged = yield* decode(yield* sql`SELECT kind AS key, count(DISTINCT recipient) AS n FROM tracking_hits
      WHERE account_id = ${accountId} AND campaign_id = ${id} AND classification = 'human' GROUP BY kind`)
    const [unsubscribed] = yield* decode(yield* sql`SELECT NULL AS key, count(*) AS n FROM campaign_recipients
      WHERE campaign_id = ${id} AND account_id = ${accountId} AND unsubscribed_at IS NOT NULL`)
    const status = (name: string) => statuses.find((s) => s.key === name)?.n ?? 0
    return {
      resolved: reasons.reduce((t, r) => t + r.n, 0),
      dropped: Object.fromEntries(reasons.flatMap((r) => r.key === null ? [] : [[r.key, r.n]])),
      queued: status("queued") + status("deferred"),
      sent: status("delivered") + status("bounced") + status("held"),
      delivered: status("delivered"),
      bounced: status("bounced"),
      opened: engaged.find((e) => e.key === "open")?.n ?? 0,
      clicked: engaged.find((e) => e.key === "click")?.n ?? 0,
      unsubscribed: unsubscribed?.n ?? 0,
    }
  }).pipe(orStoreError("campaigns.progress")),

  recordUnsubscribe: (accountId, id, email, at) =>
    sql`UPDATE campaign_recipients SET unsubscribed_at = ${toMillis(at)}
      WHERE campaign_id = ${id} AND account_id = ${accountId} AND email = ${email} AND unsubscribed_at IS NULL`.pipe(
      Effect.asVoid, orStoreError("campaigns.recordUnsubscribe")),

  using: (accountId, ref) =>
    sql`SELECT ${sql.literal(columns)} FROM campaigns WHERE account_id = ${accountId}
      AND ${sql.literal(ref.kind === "design" ? "template_id" : "brand_id")} = ${ref.id}
      ORDER BY created_at DESC, id DESC`.pipe(
      Effect.flatMap(decodeCampaigns), Effect.map((rows) => rows.map(toCampaign)), orStoreError("campaigns.using")),
})
