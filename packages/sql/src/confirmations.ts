/** The subscription_confirmations table behind `Store.confirmations`: one outstanding double opt-in per contact. */
import type { SqlClient } from "@effect/sql"
import {
  AccountId, ContactId, type ConfirmationRepository, confirmationSources, type PendingConfirmation,
} from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { EpochMillis, JsonColumn, toJson, toMillis } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"

const ConfirmationRow = Schema.Struct({
  contact_id: ContactId,
  account_id: AccountId,
  nonce: Schema.String,
  list_ids: JsonColumn(Schema.Array(Schema.String)),
  topic_ids: JsonColumn(Schema.Array(Schema.String)),
  redirect_url: Schema.NullOr(Schema.String),
  source: Schema.Literal(...confirmationSources),
  form_id: Schema.NullOr(Schema.String),
  template_id: Schema.NullOr(Schema.String),
  expires_at: EpochMillis,
  created_at: EpochMillis,
})
const decodeRows = Schema.decodeUnknown(Schema.Array(ConfirmationRow))

export const makeConfirmationRepository = (sql: SqlClient.SqlClient): ConfirmationRepository => ({
  put: (confirmation) => {
    const row = {
      contact_id: confirmation.contactId,
      account_id: confirmation.accountId,
      nonce: confirmation.nonce,
      list_ids: toJson(confirmation.listIds),
      topic_ids: toJson(confirmation.topicIds),
      redirect_url: confirmation.redirectUrl,
      source: confirmation.source,
      form_id: confirmation.formId,
      template_id: confirmation.templateId,
      expires_at: toMillis(confirmation.expiresAt),
      created_at: toMillis(confirmation.createdAt),
    }
    return sql`INSERT INTO subscription_confirmations ${sql.insert(row)}
      ON CONFLICT (contact_id) DO UPDATE SET ${sql.update(row, ["contact_id"])}`.pipe(
      Effect.asVoid,
      orStoreError("confirmations.put"),
    )
  },

  find: (accountId, contactId) =>
    sql`SELECT * FROM subscription_confirmations WHERE account_id = ${accountId} AND contact_id = ${contactId}`.pipe(
      Effect.flatMap(decodeRows),
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row): PendingConfirmation => ({
        accountId: row.account_id,
        contactId: row.contact_id,
        nonce: row.nonce,
        listIds: row.list_ids,
        topicIds: row.topic_ids,
        redirectUrl: row.redirect_url,
        source: row.source,
        formId: row.form_id,
        templateId: row.template_id,
        expiresAt: row.expires_at,
        createdAt: row.created_at,
      }))),
      orStoreError("confirmations.find"),
    ),

  delete: (accountId, contactId) =>
    sql`DELETE FROM subscription_confirmations WHERE account_id = ${accountId} AND contact_id = ${contactId}
      RETURNING contact_id`.pipe(
      Effect.map((rows) => rows.length > 0),
      orStoreError("confirmations.delete"),
    ),
})
