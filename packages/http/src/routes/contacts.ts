/** /v1/contacts: list, create, read, update, delete, tags and bulk. Spec: audience "Contacts". Every body refuses
 *  unknown fields; every id of another account answers 404 RESOURCE_NOT_FOUND (the service scopes by account). */
import {
  type BulkCreateInput, BulkDeleteInput, Contacts, type CreateContactInput, TagsInput, type UpdateContactInput,
} from "@mailroom/core"
import { Effect } from "effect"
import { Hono } from "hono"
import { requireScope } from "../auth.js"
import { encodeContact, encodeContacts } from "../contact-response.js"
import { ContactListParams } from "../contact-query.js"
import type { MailroomEnv } from "../env.js"
import { ok, pageEnvelope } from "../envelope.js"
import { rateLimit } from "../rate-limit.js"
import { decodeJson, decodeQuery, readJson } from "../validation.js"

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
      const body = yield* readJson<typeof CreateContactInput.Encoded>(c)
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
      const body = yield* readJson<typeof BulkCreateInput.Encoded>(c)
      const contacts = yield* Contacts
      return c.json(ok(yield* contacts.bulkCreate(c.get("account"), body)))
    })))
  .delete("/contacts/bulk", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      // Decoded here too, for the fields the body may not hold beside contactIds; the ids are few and cheap to check.
      const body = yield* decodeJson(c, BulkDeleteInput)
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
      const body = yield* readJson<typeof UpdateContactInput.Encoded>(c)
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
      const contacts = yield* Contacts
      const contact = yield* contacts.removeTag(c.get("account"), c.req.param("id"), c.req.param("tag"))
      return c.json(ok(yield* encodeContact(contact)))
    })))

export { BulkCreateInput as BulkCreateBody, BulkDeleteInput as BulkDeleteBody, bulkLimits } from "@mailroom/core"
