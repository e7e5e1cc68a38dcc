/** Signup forms: what a form collects, whom it subscribes to what, and where its public submissions may come from.
 *  The spec shows only POST /forms/{id}/submit; the rest is Mailroom's design, documented in docs/forms.md.
 *  Spec: audience "Authentication" point 4, Contact.consentText, details of contact.subscribed (formId, listId,
 *  fields). */
import { Either, Schema } from "effect"
import type { AccountId } from "./account.js"

export const FormId = Schema.String.pipe(Schema.brand("FormId"))
export type FormId = typeof FormId.Type

export const formLimits = {
  nameLength: 255,
  consentTextLength: 2000,
  listIds: 50,
  topicIds: 50,
  allowedOrigins: 20,
  fields: 20,
  fieldNameLength: 50,
  fieldLabelLength: 120,
  /** The longest value a field accepts when it sets no maxLength, and the most it may set. */
  fieldValueLength: 1000,
  submitLabelLength: 60,
  urlLength: 2048,
  pageSize: 25,
  maxPageSize: 100,
} as const

/** The input types a field may have; `email` is the form's own address field and is always there. */
export const formFieldTypes = ["text", "tel", "url", "number", "date", "checkbox"] as const
export const FormFieldType = Schema.Literal(...formFieldTypes)
export type FormFieldType = typeof FormFieldType.Type

/** Field names that fill the contact's own fields; every other name becomes a custom field of the contact. */
export const contactFieldNames = ["firstName", "lastName", "phone"] as const

/** The honeypot: a field the hosted form hides from people. A submission that fills it is a bot's; it gets the answer a
 *  person gets, and nothing is written. */
export const honeypotField = "website_url"

/** Names a field may not take: the address, and the names the submit route reserves for itself. */
export const reservedFieldNames = ["email", "website_url", "cf-turnstile-response", "challengeToken"] as const

export interface FormField {
  readonly name: string
  readonly label: string
  readonly type: FormFieldType
  readonly required: boolean
  readonly maxLength: number | null
}

export interface Form {
  readonly id: FormId
  readonly accountId: AccountId
  readonly name: string
  readonly listIds: ReadonlyArray<string>
  readonly topicIds: ReadonlyArray<string>
  readonly doubleOptIn: boolean
  /** Origins (scheme://host[:port]) whose pages may submit the form; the hosted page's own origin always may. */
  readonly allowedOrigins: ReadonlyArray<string>
  /** Where a plain form post is sent after success; null: the hosted page's thank-you. */
  readonly successRedirectUrl: string | null
  readonly fields: ReadonlyArray<FormField>
  /** The wording recorded as consent; null: `Signup form: <form name>` (see `consentTextOf`). */
  readonly consentText: string | null
  /** The label of the submit button; null: "Subscribe". */
  readonly submitLabel: string | null
  /** The account's own template the confirmation mail of a double opt-in is rendered from (as POST /subscriptions
   *  `confirmationTemplateId`); null: Mailroom's default confirmation mail. */
  readonly confirmationTemplateId: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** The consent text a submission records: the form's own, or `Signup form: <form name>` (spec, Contact.consentText). */
export const consentTextOf = (form: Pick<Form, "name" | "consentText">): string =>
  form.consentText ?? `Signup form: ${form.name}`

const text = (field: string, max: number, min = 0) =>
  Schema.String.pipe(
    Schema.minLength(min, { message: () => min === 1 ? `${field} must not be empty` : `${field} is at least ${min} characters` }),
    Schema.maxLength(max, { message: () => `${field} is at most ${max} characters` }),
  )

const localHosts = ["localhost", "127.0.0.1", "[::1]"]

/** An origin a form accepts: https, or http for a local host (development). Answers the canonical origin. */
export const parseOrigin = (value: string): Either.Either<string, string> => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return Either.left("must be an origin such as https://www.example.com")
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && localHosts.includes(url.hostname))) {
    return Either.left("must use https (http only for localhost)")
  }
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    return Either.left("must be an origin only: scheme, host and port, no path")
  }
  return Either.right(url.origin)
}

/** A success redirect: an absolute https URL (http only for localhost), without credentials. */
export const parseRedirectUrl = (value: string): Either.Either<string, string> => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return Either.left("must be an absolute URL")
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && localHosts.includes(url.hostname))) {
    return Either.left("must use https (http only for localhost)")
  }
  if (url.username !== "" || url.password !== "") return Either.left("must not carry credentials")
  return Either.right(url.toString())
}

const checked = (parse: (value: string) => Either.Either<string, string>) => (value: string) =>
  Either.match(parse(value), { onLeft: (problem) => problem, onRight: () => true })

const Origin = Schema.Trim.pipe(Schema.filter(checked(parseOrigin)))
const RedirectUrl = Schema.Trim.pipe(
  Schema.maxLength(formLimits.urlLength, { message: () => `successRedirectUrl is at most ${formLimits.urlLength} characters` }),
  Schema.filter(checked(parseRedirectUrl)),
)

const FieldName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z][A-Za-z0-9_]*$/, {
    message: () => "a field name starts with a letter and holds letters, digits and underscores",
  }),
  Schema.maxLength(formLimits.fieldNameLength, { message: () => `a field name is at most ${formLimits.fieldNameLength} characters` }),
  Schema.filter((name) => !(reservedFieldNames as ReadonlyArray<string>).includes(name) || `${name} is a reserved field name`),
)

export const FormFieldInput = Schema.Struct({
  name: FieldName,
  label: text("label", formLimits.fieldLabelLength, 1),
  type: Schema.optionalWith(FormFieldType, { default: () => "text" as const }),
  required: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  maxLength: Schema.optionalWith(Schema.NullOr(Schema.Number.pipe(
    Schema.int({ message: () => "maxLength must be a whole number" }),
    Schema.between(1, formLimits.fieldValueLength, { message: () => `maxLength must be between 1 and ${formLimits.fieldValueLength}` }),
  )), { default: () => null }),
})

const uniqueNames = (fields: ReadonlyArray<{ readonly name: string }>) => {
  const seen = new Set<string>()
  for (const { name } of fields) {
    if (seen.has(name)) return `field ${name} appears twice`
    seen.add(name)
  }
  return true
}

const Ids = (field: string, max: number) => Schema.Array(Schema.String).pipe(
  Schema.maxItems(max, { message: () => `${field} holds at most ${max} ids` }),
)

/** The fields of a form besides its name, as POST and PATCH /forms take them. */
const formFields = {
  listIds: Schema.optional(Ids("listIds", formLimits.listIds)),
  topicIds: Schema.optional(Ids("topicIds", formLimits.topicIds)),
  doubleOptIn: Schema.optional(Schema.Boolean),
  allowedOrigins: Schema.optional(Schema.Array(Origin).pipe(
    Schema.maxItems(formLimits.allowedOrigins, { message: () => `allowedOrigins holds at most ${formLimits.allowedOrigins} origins` }),
  )),
  successRedirectUrl: Schema.optional(Schema.NullOr(RedirectUrl)),
  fields: Schema.optional(Schema.Array(FormFieldInput).pipe(
    Schema.maxItems(formLimits.fields, { message: () => `fields holds at most ${formLimits.fields} fields` }),
    Schema.filter(uniqueNames),
  )),
  consentText: Schema.optional(Schema.NullOr(text("consentText", formLimits.consentTextLength, 1))),
  submitLabel: Schema.optional(Schema.NullOr(text("submitLabel", formLimits.submitLabelLength, 1))),
  confirmationTemplateId: Schema.optional(Schema.NullOr(text("confirmationTemplateId", 255, 1))),
}

export const FormName = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "name must not be empty" }),
  Schema.maxLength(formLimits.nameLength, { message: () => `name is at most ${formLimits.nameLength} characters` }),
)

/** Body of POST /forms. */
export const CreateFormInput = Schema.Struct({ name: FormName, ...formFields })
export type CreateFormInput = typeof CreateFormInput.Type

/** Body of PATCH /forms/{id}: only sent fields change. */
export const UpdateFormInput = Schema.Struct({ name: Schema.optional(FormName), ...formFields })
export type UpdateFormInput = typeof UpdateFormInput.Type

/** The canonical origin of an allowed-origins entry (lower-case host, no trailing slash). */
export const canonicalOrigin = (origin: string): string => Either.getOrElse(parseOrigin(origin.trim()), () => origin)

/** Whether `hostname` (as URL spells it) names this machine: localhost, 127.0.0.0/8 or [::1]. */
const isLoopbackHost = (hostname: string): boolean =>
  hostname === "localhost" || hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(hostname)

/** Whether `origin` is the hosted page's own origin. When that origin is on this machine (APP_URL on localhost, as in
 *  development), every spelling of the loopback host counts as the same origin: a page opened at
 *  http://127.0.0.1:3000 submits to an APP_URL of http://localhost:3000. Scheme and port must still match. */
const isOwnOrigin = (origin: string, ownOrigin: string): boolean => {
  if (origin === ownOrigin) return true
  if (!URL.canParse(origin) || !URL.canParse(ownOrigin)) return false
  const [from, own] = [new URL(origin), new URL(ownOrigin)]
  return isLoopbackHost(own.hostname) && isLoopbackHost(from.hostname) && from.protocol === own.protocol && from.port === own.port
}

/** Whether a request's Origin may submit the form: one of its allowed origins, or the hosted page's own origin (any
 *  loopback spelling of it when it is a loopback origin). */
export const originAllowed = (form: Pick<Form, "allowedOrigins">, origin: string | null, ownOrigin: string): boolean =>
  origin !== null && (isOwnOrigin(origin, ownOrigin) || form.allowedOrigins.includes(origin))

/** What a submission carries once checked against its form. */
export interface Submission {
  readonly email: string
  readonly firstName?: string | undefined
  readonly lastName?: string | undefined
  readonly phone?: string | undefined
  /** Fields other than the contact's own, as custom fields of the contact. */
  readonly customFields: Readonly<Record<string, string>>
  /** Every declared field that was sent, as contact.subscribed reports it (checkboxes as booleans). */
  readonly fields: Readonly<Record<string, string | boolean>>
}

/** Names the submit route reads besides the form's fields: the address, the honeypot and a challenge's answer. */
export const submissionControlNames: ReadonlyArray<string> = reservedFieldNames

const ticked = new Set(["yes", "on", "true", "1"])
const typeProblems: Record<FormFieldType, (value: string) => string | undefined> = {
  text: () => undefined,
  checkbox: () => undefined,
  tel: (value) => (/^[+0-9 ().-]{3,40}$/.test(value) ? undefined : "must be a phone number"),
  number: (value) => (/^-?\d+(\.\d+)?$/.test(value) ? undefined : "must be a number"),
  date: (value) => (/^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)) ? undefined : "must be a date (YYYY-MM-DD)"),
  url: (value) => (/^https?:\/\/\S+$/i.test(value) && Either.isRight(Either.try(() => new URL(value))) ? undefined : "must be an http(s) URL"),
}

/** Checks a submission's name/value pairs against its form: no unknown or repeated name, required fields present,
 *  no value over its length, each value of its field's type. The address is checked by the Subscriptions service. A
 *  failure names the field and the problem; the value is never repeated in it. */
export const parseSubmission = (
  form: Pick<Form, "fields">,
  entries: ReadonlyArray<readonly [string, string]>,
): Either.Either<Submission, { readonly field: string; readonly detail: string }> => {
  const values = new Map<string, string>()
  for (const [name, value] of entries) {
    if (values.has(name)) return Either.left({ field: name, detail: "is sent more than once" })
    values.set(name, value)
  }
  const declared = new Map(form.fields.map((field) => [field.name, field]))
  for (const name of values.keys()) {
    if (!declared.has(name) && !submissionControlNames.includes(name)) {
      return Either.left({ field: name.slice(0, formLimits.fieldNameLength), detail: "is not a field of this form" })
    }
  }
  const email = (values.get("email") ?? "").trim()
  if (email === "") return Either.left({ field: "email", detail: "is required" })
  if (email.length > 254) return Either.left({ field: "email", detail: "is at most 254 characters" })
  const fields: Record<string, string | boolean> = {}
  const customFields: Record<string, string> = {}
  const own: Record<string, string> = {}
  for (const field of form.fields) {
    const raw = values.get(field.name)
    if (field.type === "checkbox") {
      const on = raw !== undefined && ticked.has(raw.trim().toLowerCase())
      if (field.required && !on) return Either.left({ field: field.name, detail: "must be ticked" })
      if (raw !== undefined) {
        fields[field.name] = on
        customFields[field.name] = on ? "true" : "false"
      }
      continue
    }
    const value = (raw ?? "").trim()
    if (value === "") {
      if (field.required) return Either.left({ field: field.name, detail: "is required" })
      continue
    }
    const max = field.maxLength ?? formLimits.fieldValueLength
    if (value.length > max) return Either.left({ field: field.name, detail: `is at most ${max} characters` })
    const problem = typeProblems[field.type](value)
    if (problem !== undefined) return Either.left({ field: field.name, detail: problem })
    fields[field.name] = value
    if ((contactFieldNames as ReadonlyArray<string>).includes(field.name)) own[field.name] = value
    else customFields[field.name] = value
  }
  return Either.right({ email, ...own, customFields, fields })
}
