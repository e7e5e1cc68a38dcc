/** /v1/contacts: list, create, read, update, delete, tags and bulk. Spec: audience "Contacts". Every body refuses
 *  unknown fields; every id of another account answers 404 RESOURCE_NOT_FOUND (the service scopes by account). */
import { Contacts, CreateContactInput, TagName, TagsInput, UpdateContactInput } from "@mailroom/core"
import { Effect, Schema } from "effect"
import { Hono } from "hono"
import { requireScope } from "../auth.js"
import { encodeContact, encodeContacts } from "../contact-response.js"
import { ContactListParams } from "../contact-query.js"
import type { MailroomEnv } from "../env.js"
import { ok, pageEnvelope } from "../envelope.js"
import { rateLimit } from "../rate-limit.js"
import { decodeInput, decodeJson, decodeQuery } from "../validation.js"

export const bulkLimits = { min: 1, max: 1000 } as const

const countMessages = (what: string) => ({
  min: { message: () => `give at least ${bulkLimits.min} ${what}` },
  max: { message: () => `give at most ${bulkLimits.max} ${what}` },
})
const contactsCount = countMessages("contacts")
const idsCount = countMessages("contact ids")

/** POST /contacts/bulk: 1-1,000 contacts with the fields of POST /contacts; skipDuplicates defaults to true. */
export const BulkCreateBody = Schema.Struct({
  contacts: Schema.Array(CreateContactInput).pipe(
    Schema.minItems(bulkLimits.min, contactsCount.min),
    Schema.maxItems(bulkLimits.max, contactsCount.max),
  ),
  skipDuplicates: Schema.optionalWith(Schema.Boolean, { default: () => true }),
})

/** DELETE /contacts/bulk: 1-1,000 contact ids. */
export const BulkDeleteBody = Schema.Struct({
  contactIds: Schema.Array(Schema.NonEmptyString).pipe(
    Schema.minItems(bulkLimits.min, idsCount.min),
    Schema.maxItems(bulkLimits.max, idsCount.max),
  ),
})

const TagParam = Schema.Struct({ tag: TagName })

/** `/contacts/{id}` without capturing the fixed paths beside it, whatever order route files are registered in. */
const byId = "/contacts/:id{(?!(?:tags|bulk|export|import|lists)$)[^/]+}"

const read = requireScope("contacts:read")
const write = requireScope("contacts:write")

export const contactRoutes = new Hono<MailroomEnv>()
  .get("/contacts", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const params = yield* decodeQuery(c, ContactListParams)
      const contacts = yield* Contacts
      const page = yield* contacts.list(c.get("account"), params)
      return c.json(pageEnvelope(yield* encodeContacts(page.contacts), params, page.total))
    })))
  .post("/contacts", write, rateLimit("contactsCreate"), (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, CreateContactInput)
      const contacts = yield* Contacts
      const contact = yield* contacts.create(c.get("account"), body)
      return c.json(ok(yield* encodeContact(contact)), 201)
    })))
  .get("/contacts/tags", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const contacts = yield* Contacts
      return c.json(ok(yield* contacts.tags(c.get("account"))))
    })))
  .post("/contacts/bulk", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, BulkCreateBody)
      const contacts = yield* Contacts
      return c.json(ok(yield* contacts.bulkCreate(c.get("account"), body)))
    })))
  .delete("/contacts/bulk", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, BulkDeleteBody)
      const contacts = yield* Contacts
      return c.json(ok(yield* contacts.bulkDelete(c.get("account"), body.contactIds)))
    })))
  .get(byId, read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const contacts = yield* Contacts
      const contact = yield* contacts.get(c.get("account"), c.req.param("id"))
      return c.json(ok(yield* encodeContact(contact)))
    })))
  .patch(byId, write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, UpdateContactInput)
      const contacts = yield* Contacts
      const contact = yield* contacts.update(c.get("account"), c.req.param("id"), body)
      return c.json(ok(yield* encodeContact(contact)))
    })))
  .delete(byId, write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const id = c.req.param("id")
      const contacts = yield* Contacts
      yield* contacts.delete(c.get("account"), id)
      return c.json(ok({ message: `contact ${id} deleted` }))
    })))
  .post(`${byId}/tags`, write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, TagsInput)
      const contacts = yield* Contacts
      const contact = yield* contacts.addTags(c.get("account"), c.req.param("id"), body.tags)
      return c.json(ok(yield* encodeContact(contact)))
    })))
  .delete(`${byId}/tags/:tag`, write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const { tag } = yield* decodeInput(TagParam, { tag: c.req.param("tag") })
      const contacts = yield* Contacts
      const contact = yield* contacts.removeTag(c.get("account"), c.req.param("id"), tag)
      return c.json(ok(yield* encodeContact(contact)))
    })))
