/** The forms table behind `Store.forms`. A form's lists, topics, origins and fields are JSON columns read and written
 *  whole with it. */
import type { SqlClient } from "@effect/sql"
import { AccountId, type Form, FormFieldType, FormId, type FormRepository, offsetOf } from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { EpochMillis, IntegerColumn, JsonColumn, toJson, toMillis } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"
import { booleanParam } from "./lists.js"

const BooleanColumn = Schema.Union(
  Schema.Boolean,
  Schema.transform(IntegerColumn, Schema.Boolean, { strict: true, decode: (n) => n !== 0, encode: (b) => (b ? 1 : 0) }),
)

const StoredField = Schema.Struct({
  name: Schema.String,
  label: Schema.String,
  type: FormFieldType,
  required: Schema.Boolean,
  maxLength: Schema.NullOr(Schema.Number),
})

const FormRow = Schema.Struct({
  id: FormId,
  account_id: AccountId,
  name: Schema.String,
  list_ids: JsonColumn(Schema.Array(Schema.String)),
  topic_ids: JsonColumn(Schema.Array(Schema.String)),
  double_opt_in: BooleanColumn,
  allowed_origins: JsonColumn(Schema.Array(Schema.String)),
  success_redirect_url: Schema.NullOr(Schema.String),
  fields: JsonColumn(Schema.Array(StoredField)),
  consent_text: Schema.NullOr(Schema.String),
  submit_label: Schema.NullOr(Schema.String),
  confirmation_template_id: Schema.NullOr(Schema.String),
  created_at: EpochMillis,
  updated_at: EpochMillis,
})
type FormRow = typeof FormRow.Type
const decodeForms = Schema.decodeUnknown(Schema.Array(FormRow))
const decodeCounted = Schema.decodeUnknown(Schema.Array(Schema.extend(FormRow, Schema.Struct({ total: IntegerColumn }))))
const decodeTotal = Schema.decodeUnknown(Schema.Array(Schema.Struct({ total: IntegerColumn })))

const fromRow = (row: FormRow): Form => ({
  id: row.id,
  accountId: row.account_id,
  name: row.name,
  listIds: row.list_ids,
  topicIds: row.topic_ids,
  doubleOptIn: row.double_opt_in,
  allowedOrigins: row.allowed_origins,
  successRedirectUrl: row.success_redirect_url,
  fields: row.fields,
  consentText: row.consent_text,
  submitLabel: row.submit_label,
  confirmationTemplateId: row.confirmation_template_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const mutableColumns = (sql: SqlClient.SqlClient, form: Form) => ({
  name: form.name,
  list_ids: toJson(form.listIds),
  topic_ids: toJson(form.topicIds),
  double_opt_in: booleanParam(sql, form.doubleOptIn),
  allowed_origins: toJson(form.allowedOrigins),
  success_redirect_url: form.successRedirectUrl,
  fields: toJson(form.fields),
  consent_text: form.consentText,
  submit_label: form.submitLabel,
  confirmation_template_id: form.confirmationTemplateId,
  updated_at: toMillis(form.updatedAt),
})

const first = (rows: ReadonlyArray<FormRow>) => Option.map(Option.fromNullable(rows[0]), fromRow)

export const makeFormRepository = (sql: SqlClient.SqlClient): FormRepository => ({
  insert: (form) =>
    sql`INSERT INTO forms ${sql.insert({
      id: form.id, account_id: form.accountId, ...mutableColumns(sql, form), created_at: toMillis(form.createdAt),
    })}`.pipe(Effect.asVoid, orStoreError("forms.insert")),

  update: (form) =>
    sql`UPDATE forms SET ${sql.update(mutableColumns(sql, form))}
      WHERE account_id = ${form.accountId} AND id = ${form.id} RETURNING id`.pipe(
      Effect.map((rows) => rows.length > 0),
      orStoreError("forms.update"),
    ),

  findById: (accountId, id) =>
    sql`SELECT * FROM forms WHERE account_id = ${accountId} AND id = ${id}`.pipe(
      Effect.flatMap(decodeForms), Effect.map(first), orStoreError("forms.findById"),
    ),

  findPublic: (id) =>
    sql`SELECT * FROM forms WHERE id = ${id}`.pipe(Effect.flatMap(decodeForms), Effect.map(first), orStoreError("forms.findPublic")),

  list: (accountId, page) =>
    Effect.gen(function* () {
      const rows = yield* sql`SELECT forms.*, COUNT(*) OVER () AS total FROM forms WHERE account_id = ${accountId}
        ORDER BY created_at, id LIMIT ${page.limit} OFFSET ${offsetOf(page)}`.pipe(Effect.flatMap(decodeCounted))
      // A page past the end has no rows to carry the total.
      const total = rows[0]?.total ?? (yield* sql`SELECT COUNT(*) AS total FROM forms WHERE account_id = ${accountId}`.pipe(
        Effect.flatMap(decodeTotal),
      ))[0]?.total ?? 0
      return { forms: rows.map(fromRow), total }
    }).pipe(orStoreError("forms.list")),

  delete: (accountId, id) =>
    sql`DELETE FROM forms WHERE account_id = ${accountId} AND id = ${id} RETURNING id`.pipe(
      Effect.map((rows) => rows.length > 0),
      orStoreError("forms.delete"),
    ),
})
