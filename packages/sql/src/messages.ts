/** The tables behind `Store.messages`: messages (content as JSON), their recipients with delivery status, and
 *  per-recipient events. Inserts are multi-row statements, so a batch of 1,000 messages costs a few statements. */
import type { SqlClient } from "@effect/sql"
import {
  AccountId, type MessageEvent, MessageId, type MessageRecipient, type MessageRepository, RecipientStatus,
  type StoredMessage, StoredContent,
} from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { atomically, forEachChunk, insertRows, maxInList, rowsStatement } from "./internal/batch.js"
import { EpochMillis, IntegerColumn, JsonColumn, toJson, toMillis } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"

const MessageRow = Schema.Struct({
  id: MessageId,
  account_id: AccountId,
  batch_id: Schema.NullOr(Schema.String),
  state: Schema.Literal("scheduled", "queued", "cancelled"),
  content: JsonColumn(StoredContent),
  scheduled_for: Schema.NullOr(EpochMillis),
  created_at: EpochMillis,
})

const RecipientRow = Schema.Struct({
  message_id: MessageId,
  position: IntegerColumn,
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  field: Schema.Literal("to", "cc", "bcc"),
  status: RecipientStatus,
  attempts: IntegerColumn,
  last_response: Schema.NullOr(Schema.String),
  updated_at: EpochMillis,
})

const EventRow = Schema.Struct({
  id: Schema.String,
  account_id: AccountId,
  message_id: MessageId,
  recipient: Schema.String,
  type: Schema.String,
  occurred_at: EpochMillis,
  smtp_response: Schema.NullOr(Schema.String),
  bounce_type: Schema.NullOr(Schema.String),
  bounce_code: Schema.NullOr(Schema.String),
  bounce_reason: Schema.NullOr(Schema.String),
})

const decodeMessages = Schema.decodeUnknown(Schema.Array(MessageRow))
const decodeRecipients = Schema.decodeUnknown(Schema.Array(RecipientRow))
const decodeEvents = Schema.decodeUnknown(Schema.Array(EventRow))
const decodeDue = Schema.decodeUnknown(Schema.Array(Schema.Struct({ account_id: AccountId, id: MessageId, scheduled_for: EpochMillis })))

const toRecipient = (row: typeof RecipientRow.Type): MessageRecipient => ({
  position: row.position,
  email: row.email,
  name: row.name ?? undefined,
  field: row.field,
  status: row.status,
  attempts: row.attempts,
  lastResponse: row.last_response,
  updatedAt: row.updated_at,
})

const messageRow = (message: StoredMessage) => ({
  id: message.id,
  account_id: message.accountId,
  batch_id: message.batchId,
  state: message.state,
  stream: message.content.stream,
  topic_id: message.content.topicId,
  from_email: message.content.from.email,
  subject: message.content.subject,
  // JSON leaves out undefined fields; the content schema reads them back as undefined.
  content: toJson(message.content),
  template_id: message.content.template?.id ?? null,
  template_version: message.content.template?.version ?? null,
  scheduled_for: message.scheduledFor === null ? null : toMillis(message.scheduledFor),
  created_at: toMillis(message.createdAt),
})

const recipientRows = (message: StoredMessage) =>
  message.recipients.map((recipient) => ({
    message_id: message.id,
    position: recipient.position,
    account_id: message.accountId,
    email: recipient.email,
    name: recipient.name ?? null,
    field: recipient.field,
    status: recipient.status,
    attempts: recipient.attempts,
    last_response: recipient.lastResponse,
    updated_at: toMillis(recipient.updatedAt),
  }))

const eventRow = (event: MessageEvent) => ({
  id: event.id,
  account_id: event.accountId,
  message_id: event.messageId,
  recipient: event.recipient,
  type: event.type,
  occurred_at: toMillis(event.occurredAt),
  smtp_response: event.smtpResponse,
  bounce_type: event.bounceType,
  bounce_code: event.bounceCode,
  bounce_reason: event.bounceReason,
})

const recipientColumns = "message_id, position, email, name, field, status, attempts, last_response, updated_at"

export const makeMessageRepository = (sql: SqlClient.SqlClient): MessageRepository => {
  /** The account's messages among `ids`, in the order of `ids`: one read of the messages and one of their recipients
   *  per chunk of ids. */
  const findByIds: MessageRepository["findByIds"] = (accountId, ids) =>
    Effect.gen(function* () {
      if (ids.length === 0) return []
      const rows = yield* forEachChunk(sql, ids, maxInList, (chunk) =>
        sql`SELECT id, account_id, batch_id, state, content, scheduled_for, created_at
          FROM messages WHERE account_id = ${accountId} AND id IN ${sql.in(chunk)}`.pipe(Effect.flatMap(decodeMessages)))
      if (rows.length === 0) return []
      const recipients = yield* forEachChunk(sql, rows.map((row) => row.id), maxInList, (chunk) =>
        sql`SELECT ${sql.literal(recipientColumns)} FROM message_recipients
          WHERE message_id IN ${sql.in(chunk)} ORDER BY message_id, position`.pipe(Effect.flatMap(decodeRecipients)))
      const byMessage = new Map<string, Array<MessageRecipient>>()
      for (const recipient of recipients) {
        const list = byMessage.get(recipient.message_id)
        if (list === undefined) byMessage.set(recipient.message_id, [toRecipient(recipient)])
        else list.push(toRecipient(recipient))
      }
      const byId = new Map(rows.map((row) => [row.id as string, row]))
      return ids.flatMap((id): Array<StoredMessage> => {
        const row = byId.get(id)
        return row === undefined ? [] : [{
          id: row.id,
          accountId: row.account_id,
          batchId: row.batch_id,
          state: row.state,
          content: row.content,
          recipients: byMessage.get(row.id) ?? [],
          scheduledFor: row.scheduled_for,
          createdAt: row.created_at,
        }]
      })
    }).pipe(orStoreError("messages.findByIds"))

  /** Recipients' new state, one row each: `(message_id, position, account_id, status, add_attempts, last_response, at)`;
   *  one statement for any number of messages. */
  const updateRows = rowsStatement(sql, [
    ["message_id", "text"], ["position", "integer"], ["account_id", "text"], ["status", "text"], ["add_attempts", "integer"],
    ["last_response", "text"], ["at", "bigint"],
  ], (source) => `WITH v (message_id, position, account_id, status, add_attempts, last_response, at) AS (${source})
    UPDATE message_recipients SET status = v.status, attempts = message_recipients.attempts + v.add_attempts,
      last_response = v.last_response, updated_at = v.at
    FROM v WHERE message_recipients.message_id = v.message_id AND message_recipients.position = v.position
      AND message_recipients.account_id = v.account_id`)

  return {
    insertMany: (messages) =>
      messages.length === 0
        ? Effect.void
        : atomically(sql, Effect.zipRight(
          insertRows(sql, "messages", messages.map(messageRow)),
          insertRows(sql, "message_recipients", messages.flatMap(recipientRows)),
        )).pipe(Effect.asVoid, orStoreError("messages.insertMany")),

    findById: (accountId, id) => Effect.map(findByIds(accountId, [id]), (found) => Option.fromNullable(found[0])),

    findByIds,

    updateRecipients: (accountId, updates) =>
      updateRows(updates.map((u) => [
        u.messageId, u.position, accountId, u.status, u.addAttempts, u.lastResponse, toMillis(u.at),
      ])).pipe(Effect.asVoid, orStoreError("messages.updateRecipients")),

    moveScheduled: (accountId, id, to) =>
      sql<{ readonly id: string }>`UPDATE messages SET state = ${to}
        WHERE id = ${id} AND account_id = ${accountId} AND state = 'scheduled' RETURNING id`.pipe(
        Effect.map((rows) => rows.length === 1),
        orStoreError("messages.moveScheduled"),
      ),

    dueScheduled: (at, limit) =>
      sql`SELECT account_id, id, scheduled_for FROM messages
        WHERE state = 'scheduled' AND scheduled_for <= ${toMillis(at)}
        ORDER BY scheduled_for, id LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeDue),
        Effect.map((rows) => rows.map((row) => ({ accountId: row.account_id, id: row.id, scheduledFor: row.scheduled_for }))),
        orStoreError("messages.dueScheduled"),
      ),

    recipientsWithStatus: (accountId, status, limit) =>
      sql`SELECT ${sql.literal(recipientColumns)} FROM message_recipients
        WHERE account_id = ${accountId} AND status = ${status}
        ORDER BY updated_at, message_id, position LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeRecipients),
        Effect.map((rows) => rows.map((row) => ({ messageId: row.message_id, recipient: toRecipient(row) }))),
        orStoreError("messages.recipientsWithStatus"),
      ),

    appendEvents: (events) =>
      insertRows(sql, "message_events", events.map(eventRow)).pipe(Effect.asVoid, orStoreError("messages.appendEvents")),

    events: (accountId, id) =>
      sql`SELECT id, account_id, message_id, recipient, type, occurred_at, smtp_response, bounce_type, bounce_code,
          bounce_reason
        FROM message_events WHERE message_id = ${id} AND account_id = ${accountId} ORDER BY occurred_at, seq`.pipe(
        Effect.flatMap(decodeEvents),
        Effect.map((rows) => rows.map((row): MessageEvent => ({
          id: row.id,
          accountId: row.account_id,
          messageId: row.message_id,
          recipient: row.recipient,
          type: row.type,
          occurredAt: row.occurred_at,
          smtpResponse: row.smtp_response,
          bounceType: row.bounce_type,
          bounceCode: row.bounce_code,
          bounceReason: row.bounce_reason,
        }))),
        orStoreError("messages.events"),
      ),
  }
}
