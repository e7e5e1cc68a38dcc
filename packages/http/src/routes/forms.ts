/** /v1/forms: signup forms (docs/forms.md). Every route needs contacts:write: a form decides who is subscribed to
 *  what. Answers { success, data } (the list adds meta). A form carries its hosted page URL, its submit URL and the
 *  embed snippet to paste into a page of one of its allowed origins. */
import {
  consentTextOf, CreateFormInput, type Form, formLimits, Forms, limitParam, LinksConfig, PageParam, UpdateFormInput,
} from "@mailroom/core"
import { Effect, Schema } from "effect"
import { Hono } from "hono"
import { requireScope } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { ok, pageEnvelope } from "../envelope.js"
import { embedSnippet, formLinks } from "../pages/form-page.js"
import { decodeJson, decodeQuery } from "../validation.js"

/** GET /forms: page, limit 1-100 (default 25). */
export const FormsParams = Schema.Struct({
  page: Schema.optionalWith(PageParam, { default: () => 1 }),
  limit: Schema.optionalWith(limitParam(formLimits.maxPageSize), { default: () => formLimits.pageSize }),
})

/** A form as the API shows it: `consentText` is the text a submission records (the default when none was set),
 *  `customConsentText` tells whether it was set. */
export const FormResponse = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  listIds: Schema.Array(Schema.String),
  topicIds: Schema.Array(Schema.String),
  doubleOptIn: Schema.Boolean,
  allowedOrigins: Schema.Array(Schema.String),
  successRedirectUrl: Schema.NullOr(Schema.String),
  fields: Schema.Array(Schema.Struct({
    name: Schema.String, label: Schema.String, type: Schema.String, required: Schema.Boolean,
    maxLength: Schema.NullOr(Schema.Number),
  })),
  consentText: Schema.String,
  customConsentText: Schema.Boolean,
  submitLabel: Schema.NullOr(Schema.String),
  confirmationTemplateId: Schema.NullOr(Schema.String),
  hostedUrl: Schema.String,
  submitUrl: Schema.String,
  embedHtml: Schema.String,
  createdAt: Schema.Date,
  updatedAt: Schema.Date,
})

const encodeForm = (form: Form) =>
  Effect.gen(function* () {
    const links = formLinks((yield* LinksConfig).appUrl, form)
    return yield* Schema.encode(FormResponse)({
      id: form.id,
      name: form.name,
      listIds: form.listIds,
      topicIds: form.topicIds,
      doubleOptIn: form.doubleOptIn,
      allowedOrigins: form.allowedOrigins,
      successRedirectUrl: form.successRedirectUrl,
      fields: form.fields,
      consentText: consentTextOf(form),
      customConsentText: form.consentText !== null,
      submitLabel: form.submitLabel,
      confirmationTemplateId: form.confirmationTemplateId,
      hostedUrl: links.pageUrl,
      submitUrl: links.submitUrl,
      embedHtml: embedSnippet(form, links),
      createdAt: form.createdAt,
      updatedAt: form.updatedAt,
    }).pipe(Effect.orDie)
  })

const write = requireScope("contacts:write")

export const formRoutes = new Hono<MailroomEnv>()
  .get("/forms", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const params = yield* decodeQuery(c, FormsParams)
      const forms = yield* Forms
      const page = yield* forms.list(c.get("account"), params)
      return c.json(pageEnvelope(yield* Effect.forEach(page.forms, encodeForm), params, page.total))
    })))
  .post("/forms", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, CreateFormInput)
      const forms = yield* Forms
      return c.json(ok(yield* encodeForm(yield* forms.create(c.get("account"), body))), 201)
    })))
  .get("/forms/:id", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const forms = yield* Forms
      return c.json(ok(yield* encodeForm(yield* forms.get(c.get("account"), c.req.param("id")))))
    })))
  .patch("/forms/:id", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, UpdateFormInput)
      const forms = yield* Forms
      return c.json(ok(yield* encodeForm(yield* forms.update(c.get("account"), c.req.param("id"), body))))
    })))
  .delete("/forms/:id", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const forms = yield* Forms
      const form = yield* forms.remove(c.get("account"), c.req.param("id"))
      return c.json(ok({ id: form.id, deleted: true }))
    })))
