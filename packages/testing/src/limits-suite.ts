/** Every limit of the spec, enforced by core's services: an Effect host calling Contacts, Lists or Accounts directly
 *  gets the VALIDATION_ERROR (with the field) that an HTTP client gets, and nothing is written. Text that is not
 *  well-formed Unicode is refused the same way. Each backend package runs it against its own Store layer. */
import { expect, it } from "@effect/vitest"
import {
  type Account, Accounts, Contacts, IdsLive, Lists, type MailroomError, servicesLayer, type Store,
} from "@mailroom/core"
import { Effect, Layer, Stream } from "effect"
import { testTemplateEngine } from "./template-engine.js"

const long = (length: number) => "x".repeat(length)
const lone = "Ad\ud800a"
const nul = "Ad\u0000a"
const ids = (count: number) => Array.from({ length: count }, (_, i) => `ct_${i}`)
const people = (count: number) => Array.from({ length: count }, (_, i) => ({ email: `p${i}@example.com` }))

/** Each refused call with the field its VALIDATION_ERROR names. */
const refusals: ReadonlyArray<readonly [string, string | undefined, (account: Account) => Effect.Effect<unknown, unknown, Contacts | Lists | Accounts>]> = [
  ["a contact page larger than 1,000", "limit", (a) => Effect.flatMap(Contacts, (c) => c.list(a, { limit: 1001 }))],
  ["a contact page number of 0", "page", (a) => Effect.flatMap(Contacts, (c) => c.list(a, { page: 0 }))],
  ["a search longer than 254 characters", "search", (a) => Effect.flatMap(Contacts, (c) => c.list(a, { search: long(255) }))],
  ["an export filter with an unknown status", "status", (a) =>
    Effect.flatMap(Contacts, (c) => Stream.runDrain(c.export(a, { status: "GONE" as never })))],
  ["a first name longer than 100 characters", "firstName", (a) =>
    Effect.flatMap(Contacts, (c) => c.create(a, { email: "long@example.com", firstName: long(101) }))],
  ["an invalid address", "email", (a) => Effect.flatMap(Contacts, (c) => c.create(a, { email: "not an address" }))],
  ["a first name holding a lone surrogate", "firstName", (a) =>
    Effect.flatMap(Contacts, (c) => c.create(a, { email: "lone@example.com", firstName: lone }))],
  ["a custom field value holding a lone surrogate", "customFields.city", (a) =>
    Effect.flatMap(Contacts, (c) => c.create(a, { email: "lone@example.com", customFields: { city: lone } }))],
  ["a metadata key holding a lone surrogate", "metadata", (a) =>
    Effect.flatMap(Contacts, (c) => c.create(a, { email: "lone@example.com", metadata: { [lone]: 1 } }))],
  ["51 tags on create", "tags", (a) =>
    Effect.flatMap(Contacts, (c) => c.create(a, { email: "tags@example.com", tags: ids(51).map((_, i) => `t${i}`) }))],
  ["51 tags added at once", "tags", (a) => Effect.flatMap(Contacts, (c) => c.addTags(a, "ct_any", ids(51).map((_, i) => `t${i}`)))],
  ["a tag name that is not a tag", "tag", (a) => Effect.flatMap(Contacts, (c) => c.removeTag(a, "ct_any", "Not A Tag!"))],
  ["a bulk create of 1,001 contacts", "contacts", (a) =>
    Effect.flatMap(Contacts, (c) => c.bulkCreate(a, { contacts: people(1001) }))],
  ["an empty bulk create", "contacts", (a) => Effect.flatMap(Contacts, (c) => c.bulkCreate(a, { contacts: [] }))],
  ["a bulk create with a lone surrogate in one contact", "contacts.1.lastName", (a) =>
    Effect.flatMap(Contacts, (c) => c.bulkCreate(a, { contacts: [{ email: "a@example.com" }, { email: "b@example.com", lastName: lone }] }))],
  ["a bulk delete of 1,001 ids", "contactIds", (a) => Effect.flatMap(Contacts, (c) => c.bulkDelete(a, ids(1001)))],
  ["an empty bulk delete", "contactIds", (a) => Effect.flatMap(Contacts, (c) => c.bulkDelete(a, []))],
  ["a list page larger than 100", "limit", (a) => Effect.flatMap(Lists, (l) => l.list(a, { limit: 101 }))],
  ["a list search longer than 255 characters", "search", (a) => Effect.flatMap(Lists, (l) => l.list(a, { search: long(256) }))],
  ["a list name longer than 255 characters", "name", (a) => Effect.flatMap(Lists, (l) => l.create(a, { name: long(256) }))],
  ["a list description longer than 1,000 characters", "description", (a) =>
    Effect.flatMap(Lists, (l) => l.create(a, { name: "n", description: long(1001) }))],
  ["a list name holding a lone surrogate", "name", (a) => Effect.flatMap(Lists, (l) => l.create(a, { name: lone }))],
  ["a first name holding a NUL character", "firstName", (a) =>
    Effect.flatMap(Contacts, (c) => c.create(a, { email: "nul@example.com", firstName: nul }))],
  ["a custom field key holding a NUL character", "customFields", (a) =>
    Effect.flatMap(Contacts, (c) => c.create(a, { email: "nul@example.com", customFields: { [nul]: "v" } }))],
  ["a list name holding a NUL character", "name", (a) => Effect.flatMap(Lists, (l) => l.create(a, { name: nul }))],
  ["a list search holding a NUL character", "search", (a) => Effect.flatMap(Lists, (l) => l.list(a, { search: nul }))],
  ["a contact search holding a NUL character", "search", (a) => Effect.flatMap(Contacts, (c) => c.list(a, { search: nul }))],
  ["a member page larger than 100", "limit", (a) => Effect.flatMap(Lists, (l) => l.members(a, "lst_any", { limit: 101 }))],
  ["1,001 contact ids to add", "contactIds", (a) => Effect.flatMap(Lists, (l) => l.addMembers(a, "lst_any", { contactIds: ids(1001) }))],
  ["1,001 addresses to add", "emails", (a) =>
    Effect.flatMap(Lists, (l) => l.addMembers(a, "lst_any", { emails: people(1001).map((p) => p.email) }))],
  ["nobody to add", "contactIds", (a) => Effect.flatMap(Lists, (l) => l.addMembers(a, "lst_any", {}))],
  ["1,001 contact ids to remove", "contactIds", (a) =>
    Effect.flatMap(Lists, (l) => l.removeMembers(a, "lst_any", { contactIds: ids(1001) }))],
  ["an account name longer than 255 characters", "name", () => Effect.flatMap(Accounts, (s) => s.create({ name: long(256) }))],
  ["an unknown plan", "plan", () => Effect.flatMap(Accounts, (s) => s.create({ plan: "gold" as never }))],
  ["an unknown scope", "scopes.0", (a) =>
    Effect.flatMap(Accounts, (s) => s.createApiKey(a.id, { scopes: ["everything" as never] }))],
]

export const limitsSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  it.layer(Layer.provideMerge(servicesLayer, Layer.mergeAll(storeLayer, IdsLive, testTemplateEngine)), { timeout: "60 seconds" })(
    `Limits enforced by the services (${backend})`,
    (it) => {
      for (const [name, field, call] of refusals) {
        it.effect(`${name}: VALIDATION_ERROR naming ${field}, nothing written`, () =>
          Effect.gen(function* () {
            const { account } = yield* (yield* Accounts).create({ name: "limits", plan: "pro" })
            const error = (yield* Effect.flip(call(account))) as MailroomError
            expect({ code: error.code, field: error._tag === "ValidationFailed" ? error.field : undefined })
              .toEqual({ code: "VALIDATION_ERROR", field })
            expect((yield* (yield* Contacts).list(account, {})).total).toBe(0)
            expect((yield* (yield* Lists).list(account, {})).total).toBe(0)
          }))
      }
    },
  )
