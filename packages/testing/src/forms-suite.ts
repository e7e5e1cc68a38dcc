/** The forms suite: the Store contract of signup forms and the Forms service, on every backend. Each test makes its own
 *  accounts. Submissions are tested over HTTP (the form routes) and in the browser. */
import { describe, expect, it } from "@effect/vitest"
import {
  Accounts, CreateFormInput, type Form, type FormId, Forms, IdsLive, Lists, servicesLayer, Store,
  Topics, UpdateFormInput,
} from "@mailroom/core"
import { Effect, Either, Layer, Option, Schema } from "effect"
import { fixtureTime, makeAccount, uniqueText } from "./fixtures.js"
import { testTemplateEngine } from "./template-engine.js"

const makeForm = (overrides: Partial<Form> & Pick<Form, "accountId">): Form => ({
  id: uniqueText("frm") as FormId,
  name: "Newsletter signup",
  listIds: ["lst_a", "lst_b"],
  topicIds: ["grp_a"],
  doubleOptIn: true,
  allowedOrigins: ["https://www.example.com", "http://localhost:8080"],
  successRedirectUrl: "https://www.example.com/thanks?x=1",
  fields: [
    { name: "firstName", label: "First name", type: "text", required: true, maxLength: 100 },
    { name: "company", label: "Company", type: "text", required: false, maxLength: null },
    { name: "agree", label: "I agree", type: "checkbox", required: true, maxLength: null },
  ],
  consentText: null,
  submitLabel: "Join",
  confirmationTemplateId: "dsn_confirm",
  createdAt: fixtureTime,
  updatedAt: fixtureTime,
  ...overrides,
})

const freshAccount = Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "forms suite", plan: "pro" })).pipe(
  Effect.map(({ account }) => account),
)

const decodeCreate = Schema.decodeUnknownEither(CreateFormInput)
const decodeUpdate = Schema.decodeUnknownEither(UpdateFormInput)

export const formsSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  it.layer(Layer.provideMerge(servicesLayer, Layer.mergeAll(storeLayer, IdsLive, testTemplateEngine)), { timeout: "60 seconds" })(
    `Forms (${backend})`,
    (it) => {
      describe("Store.forms", () => {
        const insertAccount = Effect.gen(function* () {
          const store = yield* Store
          const account = makeAccount()
          yield* store.accounts.insert(account)
          return account.id
        })

        it.effect("keeps every field of a form as written, and finds it by id in its account or publicly", () =>
          Effect.gen(function* () {
            const { forms } = yield* Store
            const accountId = yield* insertAccount
            const form = makeForm({ accountId })
            yield* forms.insert(form)
            expect(Option.getOrThrow(yield* forms.findById(accountId, form.id))).toEqual(form)
            expect(Option.getOrThrow(yield* forms.findPublic(form.id))).toEqual(form)
            const other = yield* insertAccount
            expect(yield* forms.findById(other, form.id)).toEqual(Option.none())
            expect(yield* forms.findPublic("frm_unknown")).toEqual(Option.none())
          }))

        it.effect("update replaces the fields but the account and creation time, and refuses another account's form", () =>
          Effect.gen(function* () {
            const { forms } = yield* Store
            const accountId = yield* insertAccount
            const form = makeForm({ accountId })
            yield* forms.insert(form)
            const changed: Form = {
              ...form, name: "Other", listIds: [], topicIds: [], doubleOptIn: false, allowedOrigins: [],
              successRedirectUrl: null, fields: [], consentText: "I agree to the newsletter", submitLabel: null, confirmationTemplateId: null,
              updatedAt: new Date(fixtureTime.getTime() + 1000),
            }
            expect(yield* forms.update(changed)).toBe(true)
            expect(Option.getOrThrow(yield* forms.findById(accountId, form.id))).toEqual(changed)
            const other = yield* insertAccount
            expect(yield* forms.update({ ...changed, accountId: other, name: "Stolen" })).toBe(false)
            expect(Option.getOrThrow(yield* forms.findById(accountId, form.id)).name).toBe("Other")
          }))

        it.effect("lists an account's forms oldest first with the total, and pages past the end keep the total", () =>
          Effect.gen(function* () {
            const { forms } = yield* Store
            const accountId = yield* insertAccount
            const made = [0, 1, 2].map((i) => makeForm({ accountId, createdAt: new Date(fixtureTime.getTime() + (2 - i) * 1000) }))
            for (const form of made) yield* forms.insert(form)
            yield* forms.insert(makeForm({ accountId: yield* insertAccount }))
            const page = yield* forms.list(accountId, { page: 1, limit: 2 })
            expect(page.total).toBe(3)
            expect(page.forms.map((f) => f.id)).toEqual([made[2]!.id, made[1]!.id])
            expect(yield* forms.list(accountId, { page: 3, limit: 2 })).toEqual({ forms: [], total: 3 })
          }))

        it.effect("delete removes the account's form only", () =>
          Effect.gen(function* () {
            const { forms } = yield* Store
            const accountId = yield* insertAccount
            const form = makeForm({ accountId })
            yield* forms.insert(form)
            expect(yield* forms.delete(yield* insertAccount, form.id)).toBe(false)
            expect(yield* forms.delete(accountId, form.id)).toBe(true)
            expect(yield* forms.findPublic(form.id)).toEqual(Option.none())
            expect(yield* forms.delete(accountId, form.id)).toBe(false)
          }))
      })

      describe("Forms service", () => {
        it.effect("creates a form with defaults: no lists, single opt-in, no origins, default consent text", () =>
          Effect.gen(function* () {
            const forms = yield* Forms
            const account = yield* freshAccount
            const input = Either.getOrThrow(decodeCreate({ name: "  Footer signup  " }))
            const form = yield* forms.create(account, input)
            expect(form).toMatchObject({
              name: "Footer signup", listIds: [], topicIds: [], doubleOptIn: false, allowedOrigins: [],
              successRedirectUrl: null, fields: [], consentText: null, submitLabel: null,
            })
            expect(form.id).toMatch(/^frm_/)
            expect(yield* forms.get(account, form.id)).toEqual(form)
          }))

        it.effect("creates a form naming the account's lists and topics, canonical origins and typed fields", () =>
          Effect.gen(function* () {
            const forms = yield* Forms
            const account = yield* freshAccount
            const list = yield* (yield* Lists).create(account, { name: uniqueText("List") })
            const { topic } = yield* (yield* Topics).create(account, { name: uniqueText("Topic") })
            const input = Either.getOrThrow(decodeCreate({
              name: "Shop", listIds: [list.list.id, list.list.id], topicIds: [topic.id], doubleOptIn: true,
              allowedOrigins: ["https://Shop.Example.com", "http://localhost:8080/"],
              successRedirectUrl: "https://shop.example.com/thanks",
              fields: [{ name: "firstName", label: "First name", required: true }, { name: "age", label: "Age", type: "number" }],
              consentText: "Yes, send me the shop's news",
            }))
            const form = yield* forms.create(account, input)
            expect(form).toMatchObject({
              listIds: [list.list.id], topicIds: [topic.id], doubleOptIn: true,
              allowedOrigins: ["https://shop.example.com", "http://localhost:8080"],
              fields: [
                { name: "firstName", label: "First name", type: "text", required: true, maxLength: null },
                { name: "age", label: "Age", type: "number", required: false, maxLength: null },
              ],
              consentText: "Yes, send me the shop's news",
            })
          }))

        it.effect("refuses another account's list or topic as not found, and stores nothing", () =>
          Effect.gen(function* () {
            const forms = yield* Forms
            const account = yield* freshAccount
            const other = yield* freshAccount
            const foreignList = yield* (yield* Lists).create(other, { name: uniqueText("List") })
            const foreignTopic = yield* (yield* Topics).create(other, { name: uniqueText("Topic") })
            const byList = yield* Effect.flip(forms.create(account, { name: "x", listIds: [foreignList.list.id] }))
            expect(byList).toMatchObject({ code: "LIST_NOT_FOUND", listId: foreignList.list.id })
            const byTopic = yield* Effect.flip(forms.create(account, { name: "x", topicIds: [foreignTopic.topic.id] }))
            expect(byTopic).toMatchObject({ code: "TOPIC_NOT_FOUND", topicId: foreignTopic.topic.id })
            expect((yield* forms.list(account, { page: 1, limit: 25 })).total).toBe(0)
          }))

        it.effect("updates only the fields sent, clears with null, and answers another account's form as not found", () =>
          Effect.gen(function* () {
            const forms = yield* Forms
            const account = yield* freshAccount
            const form = yield* forms.create(account, Either.getOrThrow(decodeCreate({
              name: "A", consentText: "Custom", allowedOrigins: ["https://a.example"], successRedirectUrl: "https://a.example/t",
            })))
            const next = yield* forms.update(account, form.id, Either.getOrThrow(decodeUpdate({ name: "B", consentText: null })))
            expect(next).toMatchObject({
              name: "B", consentText: null, allowedOrigins: ["https://a.example"], successRedirectUrl: "https://a.example/t",
            })
            const other = yield* freshAccount
            expect((yield* Effect.flip(forms.update(other, form.id, { name: "C" }))).code).toBe("RESOURCE_NOT_FOUND")
            expect((yield* Effect.flip(forms.remove(other, form.id))).code).toBe("RESOURCE_NOT_FOUND")
            expect((yield* forms.get(account, form.id)).name).toBe("B")
            yield* forms.remove(account, form.id)
            expect((yield* Effect.flip(forms.get(account, form.id))).code).toBe("RESOURCE_NOT_FOUND")
            expect((yield* Effect.flip(forms.findPublic(form.id))).code).toBe("RESOURCE_NOT_FOUND")
          }))
      })
    },
  )

/** The body rules of POST and PATCH /forms, backend-free. */
export const formInputCases = {
  refused: [
    [{ name: "" }, "must not be empty"],
    [{ name: "x", allowedOrigins: ["http://shop.example.com"] }, "must use https"],
    [{ name: "x", allowedOrigins: ["https://shop.example.com/path"] }, "must be an origin only"],
    [{ name: "x", successRedirectUrl: "javascript:alert(1)" }, "must use https"],
    [{ name: "x", fields: [{ name: "email", label: "Email" }] }, "reserved"],
    [{ name: "x", fields: [{ name: "a", label: "A" }, { name: "a", label: "B" }] }, "appears twice"],
    [{ name: "x", fields: [{ name: "1a", label: "A" }] }, "starts with a letter"],
    [{ name: "x", fields: [{ name: "a", label: "A", type: "password" }] }, "password"],
    [{ name: "x", consentText: "" }, "must not be empty"],
  ] as ReadonlyArray<readonly [unknown, string]>,
}
