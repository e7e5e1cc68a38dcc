/** One chunk of a campaign, set-based: a few INSERT … SELECT statements resolve the audience's next contacts into
 *  campaign_recipients (each with the reason the filtering table drops it, campaignReasonSql, compiled from core's
 *  table) and write, for each eligible one, its message (the campaign's content with the contact's fields, built by the
 *  database), its message_recipients row, its email.queued outbox event and its message-log row. Ids are core's
 *  prefixes + contact id (campaignIdPrefixes), and every insert skips what exists, so a chunk run twice adds nobody
 *  twice. Nothing proportional to the chunk is built in JS but the ids of the messages queued. */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { type AccountId, type CampaignAudience, type CampaignRepository, audienceExcludes } from "@mailroom/core"
import { Effect, Schema } from "effect"
import { campaignReasonSql } from "./eligibility-sql.js"
import { IntegerColumn, toJson, toMillis } from "./internal/columns.js"
import type { CommitSignal } from "./internal/commit-signal.js"
import { orStoreError } from "./internal/errors.js"
import { segmentSql } from "./segment-sql.js"

/** Contacts `c` of the audience: members of a STATIC list (membership not removed) or matches of a DYNAMIC list's
 *  rules, and not PENDING (rule 6). Each contact once, however many lists hold it. */
export const audienceSql = (sql: SqlClient.SqlClient, accountId: AccountId, audience: CampaignAudience, at: Date): Fragment => {
  const sources: Array<Fragment> = []
  if (audience.staticListIds.length > 0) {
    sources.push(sql`EXISTS (SELECT 1 FROM list_members lm WHERE lm.contact_id = c.id AND lm.account_id = ${accountId}
      AND lm.list_id IN ${sql.in(audience.staticListIds)} AND lm.removed_at IS NULL)`)
  }
  for (const rules of audience.segments) sources.push(sql`(${segmentSql(sql, rules, at)})`)
  const any = sources.length === 0 ? sql.literal("1 = 0") : sql.join(" OR ", false)(sources)
  return sql`c.account_id = ${accountId} AND c.status <> ${audienceExcludes} AND (${any})`
}

const Bounds = Schema.Struct({ covered: IntegerColumn, last: Schema.NullOr(Schema.String) })
const Written = Schema.Struct({ message_id: Schema.NullOr(Schema.String) })

export const makeQueueChunk = (sql: SqlClient.SqlClient, commits: CommitSignal): CampaignRepository["queueChunk"] =>
  (input) => Effect.gen(function* () {
    const { accountId, audience, mail } = input
    const at = sql`CAST(${toMillis(input.at)} AS BIGINT)`
    const text = (value: string) => sql`CAST(${value} AS TEXT)`
    const optionalText = (value: string | null) => sql`CAST(${value} AS TEXT)`
    const after = (column: string) => input.after === null ? sql.literal("") : sql`AND ${sql.literal(column)} > ${input.after}`
    const [bounds] = yield* Schema.decodeUnknown(Schema.Array(Bounds))(yield* sql`SELECT count(*) AS covered, max(x.id) AS last
      FROM (SELECT c.id FROM contacts c WHERE ${audienceSql(sql, accountId, audience, input.at)} ${after("c.id")}
        ORDER BY c.id LIMIT ${input.limit}) x`)
    if (bounds === undefined || bounds.last === null) return { covered: 0, last: null, queued: [] }
    const last = bounds.last

    const { reason, joins } = campaignReasonSql(sql, accountId, audience)
    const written = yield* Schema.decodeUnknown(Schema.Array(Written))(yield* sql`INSERT INTO campaign_recipients
        (campaign_id, contact_id, account_id, email, message_id, reason, unsubscribed_at, created_at)
      SELECT ${input.campaignId}, x.id, x.account_id, x.email, CASE WHEN x.reason IS NULL THEN ${text(mail.ids.message)} || x.id END,
        x.reason, NULL, ${at}
      FROM (SELECT c.id, c.account_id, c.email, ${reason} AS reason FROM contacts c ${joins}
        WHERE ${audienceSql(sql, accountId, audience, input.at)} ${after("c.id")} AND c.id <= ${last}) x
      WHERE true
      ON CONFLICT (campaign_id, contact_id) DO NOTHING
      RETURNING message_id`)
    const queued = written.flatMap((r) => r.message_id === null ? [] : [r.message_id]).sort()
    if (queued.length === 0) return { covered: bounds.covered, last, queued }

    // The chunk's eligible recipients, as the statements below read them.
    const chunk = sql`cr.campaign_id = ${input.campaignId} ${after("cr.contact_id")} AND cr.contact_id <= ${last}
      AND cr.message_id IS NOT NULL`
    const content = toJson(mail.content)
    const { template } = mail.content
    // The contact's fields as {{contact.*}} reads them (core's contactValues): its custom fields, then id, email,
    // firstName and lastName over them.
    const message = sql.onDialectOrElse({
      pg: () => sql`CAST(CAST(${content} AS jsonb) || jsonb_build_object('contact',
        COALESCE((SELECT jsonb_object_agg(f.key, f.value) FROM contact_custom_fields f
          WHERE f.account_id = ${accountId} AND f.contact_id = c.id), '{}'::jsonb)
        || jsonb_build_object('id', c.id, 'email', c.email, 'firstName', COALESCE(c.first_name, ''), 'lastName', COALESCE(c.last_name, ''))
      ) AS json)`,
      orElse: () => sql`json_set(${content}, '$.contact', json(json_patch(
        COALESCE((SELECT json_group_object(f.key, f.value) FROM contact_custom_fields f
          WHERE f.account_id = ${accountId} AND f.contact_id = c.id), '{}'),
        json_object('id', c.id, 'email', c.email, 'firstName', COALESCE(c.first_name, ''), 'lastName', COALESCE(c.last_name, '')))))`,
    })
    yield* sql`INSERT INTO messages (id, account_id, batch_id, state, stream, topic_id, from_email, subject, content,
        template_id, template_version, scheduled_for, created_at)
      SELECT cr.message_id, cr.account_id, NULL, 'queued', ${text(mail.content.stream)}, ${optionalText(mail.content.topicId)},
        ${text(mail.content.from.email)}, ${text(mail.content.subject)}, ${message}, ${optionalText(template?.id ?? null)},
        CAST(${template?.version ?? null} AS INTEGER), NULL, ${at}
      FROM campaign_recipients cr JOIN contacts c ON c.id = cr.contact_id
      WHERE ${chunk}
      ON CONFLICT (id) DO NOTHING`
    yield* sql`INSERT INTO message_recipients (message_id, position, account_id, email, name, field, status, attempts, last_response, updated_at)
      SELECT cr.message_id, 0, cr.account_id, cr.email, NULL, 'to', 'queued', 0, NULL, ${at}
      FROM campaign_recipients cr WHERE ${chunk}
      ON CONFLICT (message_id, position) DO NOTHING`
    // The envelope of core's emailEvent for email.queued, keys in its order.
    const details = sql.onDialectOrElse({
      pg: () => sql`json_build_object('messageId', cr.message_id, 'sender', ${text(mail.content.from.email)},
        'subject', ${text(mail.content.subject)}, 'status', 'queued', 'campaignId', ${text(mail.campaignId)})`,
      orElse: () => sql`json_object('messageId', cr.message_id, 'sender', ${mail.content.from.email},
        'subject', ${mail.content.subject}, 'status', 'queued', 'campaignId', ${mail.campaignId})`,
    })
    yield* sql`INSERT INTO events (id, account_id, type, recipient, details, occurred_at)
      SELECT ${text(mail.ids.event)} || cr.contact_id, cr.account_id, 'email.queued', cr.email, ${details}, ${at}
      FROM campaign_recipients cr WHERE ${chunk} ORDER BY cr.contact_id
      ON CONFLICT (id) DO NOTHING`
    yield* sql`INSERT INTO message_events (id, account_id, message_id, recipient, type, occurred_at, smtp_response, bounce_type,
        bounce_code, bounce_reason)
      SELECT ${text(mail.ids.messageEvent)} || cr.contact_id, cr.account_id, cr.message_id, cr.email, 'email.queued', ${at},
        NULL, NULL, NULL, NULL
      FROM campaign_recipients cr WHERE ${chunk} ORDER BY cr.contact_id
      ON CONFLICT (id) DO NOTHING`
    yield* commits.appended(["email.queued"])
    return { covered: bounds.covered, last, queued }
  }).pipe(orStoreError("campaigns.queueChunk"))
