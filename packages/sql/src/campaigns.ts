/** The campaigns and campaign_recipients tables behind `Store.campaigns`. A chunk of the audience is resolved by one
 *  INSERT … SELECT: the audience's next contacts in id order, each with the reason the filtering table drops it
 *  (campaignReasonSql, compiled from core's table), keyed per campaign and contact so that a chunk run twice adds
 *  nobody twice. */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import {
  AccountId, type Campaign, CampaignId, type CampaignAudience, type CampaignRepository, CampaignStatus, audienceExcludes,
  contactDeletedReason,
} from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { campaignReasonSql } from "./eligibility-sql.js"
import { EpochMillis, IntegerColumn, JsonColumn, toJson, toMillis } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"
import { rowLock } from "./internal/row-lock.js"
import { segmentSql } from "./segment-sql.js"

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
  // Campaigns stored before sending had two cursors carry neither.
  queuedAt: Schema.optionalWith(Schema.NullOr(Schema.Number), { default: () => null }),
  sendCursor: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
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
  queuedAt: row.body.queuedAt === null ? null : new Date(row.body.queuedAt),
  sendCursor: row.body.sendCursor,
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
    queuedAt: c.queuedAt?.getTime() ?? null, sendCursor: c.sendCursor,
  }),
  created_at: toMillis(c.createdAt),
  updated_at: toMillis(c.updatedAt),
})

const columns = "id, account_id, name, status, template_id, brand_id, scheduled_at, body, created_at, updated_at"

/** Contacts `c` of the audience: members of a STATIC list (membership not removed) or matches of a DYNAMIC list's
 *  rules, and not PENDING (rule 6). Each contact once, however many lists hold it. `after` limits both the contacts
 *  and the memberships to ids past a chunk's cursor, so that the planner starts both index walks there. */
const audienceSql = (sql: SqlClient.SqlClient, accountId: AccountId, audience: CampaignAudience, at: Date, after: string | null = null): Fragment => {
  const sources: Array<Fragment> = []
  if (audience.staticListIds.length > 0) {
    const past = after === null ? sql.literal("") : sql`AND lm.contact_id > ${after}`
    sources.push(sql`EXISTS (SELECT 1 FROM list_members lm WHERE lm.contact_id = c.id AND lm.account_id = ${accountId}
      AND lm.list_id IN ${sql.in(audience.staticListIds)} AND lm.removed_at IS NULL ${past})`)
  }
  for (const rules of audience.segments) sources.push(sql`(${segmentSql(sql, rules, at)})`)
  const any = sources.length === 0 ? sql.literal("1 = 0") : sql.join(" OR ", false)(sources)
  const past = after === null ? sql.literal("") : sql`AND c.id > ${after}`
  return sql`c.account_id = ${accountId} AND c.status <> ${audienceExcludes} AND (${any}) ${past}`
}

const Counts = Schema.Struct({ total: Schema.NullOr(IntegerColumn), eligible: Schema.NullOr(IntegerColumn) })
const Extent = Schema.Struct({ covered: IntegerColumn, last: Schema.NullOr(Schema.String) })
const Queued = Schema.Struct({
  contact_id: Schema.String, email: Schema.String, message_id: Schema.String,
  first_name: Schema.NullOr(Schema.String), last_name: Schema.NullOr(Schema.String),
})
const FieldRow = Schema.Struct({ contact_id: Schema.String, key: Schema.String, value: Schema.String })
const Grouped = Schema.Struct({ key: Schema.NullOr(Schema.String), n: IntegerColumn })

export const makeCampaignRepository = (sql: SqlClient.SqlClient): CampaignRepository => ({
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

  audienceCounts: (accountId, audience, at, options) => Effect.gen(function* () {
    const members = audienceSql(sql, accountId, audience, at)
    const { reason, joins } = campaignReasonSql(sql, accountId, audience)
    const rows = options.eligible
      ? yield* sql`SELECT count(*) AS total, sum(CASE WHEN x.reason IS NULL THEN 1 ELSE 0 END) AS eligible
          FROM (SELECT ${reason} AS reason FROM contacts c ${joins} WHERE ${members}) x`
      : yield* sql`SELECT count(*) AS total, NULL AS eligible FROM contacts c WHERE ${members}`
    const [counts] = yield* Schema.decodeUnknown(Schema.Array(Counts))(rows)
    return { total: counts?.total ?? 0, eligible: options.eligible ? counts?.eligible ?? 0 : null }
  }).pipe(orStoreError("campaigns.audienceCounts")),

  queueChunk: (input) => Effect.gen(function* () {
    const { accountId, audience } = input
    const { reason, joins } = campaignReasonSql(sql, accountId, audience)
    // The chunk's contacts first (an index walk from the cursor), then the filter's joins over those alone.
    const chunk = sql`SELECT c.id, c.account_id, c.email, ${reason} AS reason
      FROM (SELECT c.id, c.account_id, c.email, c.status FROM contacts c
        WHERE ${audienceSql(sql, accountId, audience, input.at, input.after)} ORDER BY c.id LIMIT ${input.limit}) c ${joins}`
    const insert = (rows: Fragment) => sql`INSERT INTO campaign_recipients
        (campaign_id, contact_id, account_id, email, message_id, reason, unsubscribed_at, created_at)
      SELECT ${input.campaignId}, x.id, x.account_id, x.email,
        CASE WHEN x.reason IS NULL THEN CAST(${input.messagePrefix} AS TEXT) || x.id END, x.reason, NULL,
        CAST(${toMillis(input.at)} AS BIGINT)
      FROM ${rows} x
      WHERE true
      ON CONFLICT (campaign_id, contact_id) DO NOTHING`
    // PostgreSQL answers the chunk's extent from the statement itself. SQLite has no DML in a CTE: the chunk's rows are
    // the campaign's queue past the cursor (chunks run in cursor order, under the campaign's row lock), read from its key.
    const past = input.after === null ? sql.literal("") : sql`AND contact_id > ${input.after}`
    const rows = yield* sql.onDialectOrElse({
      pg: () => sql`WITH x AS MATERIALIZED (${chunk}), written AS (${insert(sql`x`)})
        SELECT count(*) AS covered, max(x.id) AS last FROM x`,
      orElse: () => Effect.zipRight(insert(sql`(${chunk})`),
        sql`SELECT count(*) AS covered, max(contact_id) AS last FROM campaign_recipients
          WHERE campaign_id = ${input.campaignId} ${past}`),
    })
    const [extent] = yield* Schema.decodeUnknown(Schema.Array(Extent))(rows)
    return { covered: extent?.covered ?? 0, last: extent?.last ?? null }
  }).pipe(orStoreError("campaigns.queueChunk")),

  nextRecipients: (input) => Effect.gen(function* () {
    const { accountId } = input
    const after = input.after === null ? sql.literal("") : sql`AND cr.contact_id > ${input.after}`
    const queued = yield* Schema.decodeUnknown(Schema.Array(Queued))(yield* sql`SELECT cr.contact_id, cr.email, cr.message_id,
        c.first_name, c.last_name
      FROM campaign_recipients cr JOIN contacts c ON c.id = cr.contact_id AND c.account_id = cr.account_id
      WHERE cr.campaign_id = ${input.campaignId} AND cr.account_id = ${accountId} AND cr.message_id IS NOT NULL ${after}
      ORDER BY cr.contact_id LIMIT ${input.limit}`)
    if (queued.length === 0) return []
    const json = JSON.stringify(queued.map((r) => r.contact_id))
    const ids = sql.onDialectOrElse({
      pg: () => sql`SELECT value FROM json_array_elements_text(${json}::json)`,
      orElse: () => sql`SELECT value FROM json_each(${json})`,
    })
    const fields = yield* Schema.decodeUnknown(Schema.Array(FieldRow))(
      yield* sql`SELECT contact_id, key, value FROM contact_custom_fields WHERE account_id = ${accountId} AND contact_id IN (${ids})`)
    const custom = new Map<string, Record<string, string>>()
    for (const f of fields) custom.set(f.contact_id, { ...custom.get(f.contact_id), [f.key]: f.value })
    return queued.map((r) => ({
      contactId: r.contact_id, email: r.email, messageId: r.message_id, firstName: r.first_name, lastName: r.last_name,
      customFields: custom.get(r.contact_id) ?? {},
    }))
  }).pipe(orStoreError("campaigns.nextRecipients")),

  dropDeleted: (input) => {
    const after = input.after === null ? sql.literal("") : sql`AND contact_id > ${input.after}`
    const upTo = input.upTo === null ? sql.literal("") : sql`AND contact_id <= ${input.upTo}`
    return sql`UPDATE campaign_recipients SET reason = ${contactDeletedReason}, message_id = NULL
      WHERE campaign_id = ${input.campaignId} AND account_id = ${input.accountId} AND message_id IS NOT NULL ${after} ${upTo}
        AND NOT EXISTS (SELECT 1 FROM contacts c WHERE c.id = campaign_recipients.contact_id AND c.account_id = campaign_recipients.account_id)`.pipe(
      Effect.asVoid, orStoreError("campaigns.dropDeleted"))
  },

  progress: (accountId, id, sendCursor) => Effect.gen(function* () {
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
    const after = sendCursor === null ? sql.literal("") : sql`AND contact_id > ${sendCursor}`
    const [waiting] = yield* decode(yield* sql`SELECT NULL AS key, count(*) AS n FROM campaign_recipients
      WHERE campaign_id = ${id} AND account_id = ${accountId} AND message_id IS NOT NULL ${after}`)
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
      waiting: waiting?.n ?? 0,
    }
  }).pipe(orStoreError("campaigns.progress")),

  recordUnsubscribe: (accountId, id, recipient, at) => {
    const which = recipient.contactId === null ? sql`email = ${recipient.email}` : sql`contact_id = ${recipient.contactId}`
    return sql`UPDATE campaign_recipients SET unsubscribed_at = ${toMillis(at)}
      WHERE campaign_id = ${id} AND account_id = ${accountId} AND ${which} AND unsubscribed_at IS NULL`.pipe(
      Effect.asVoid, orStoreError("campaigns.recordUnsubscribe"))
  },

  using: (accountId, ref) =>
    sql`SELECT ${sql.literal(columns)} FROM campaigns WHERE account_id = ${accountId}
      AND ${sql.literal(ref.kind === "design" ? "template_id" : "brand_id")} = ${ref.id}
      ORDER BY created_at DESC, id DESC`.pipe(
      Effect.flatMap(decodeCampaigns), Effect.map((rows) => rows.map(toCampaign)), orStoreError("campaigns.using")),
})
