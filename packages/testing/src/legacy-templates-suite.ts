/** The legacy template scenario suite: every rule of the spec's "Legacy templates (deprecated)" table through the
 *  LegacyTemplates service, which adapts them to designs. Each backend package runs it against its own Store layer,
 *  with the real handlebars-email-v2 engine. */
import { expect, it } from "@effect/vitest"
import {
  Brands, type Account, Accounts, type DesignCaller, Designs, IdsLive, LegacyTemplates, type MailroomError, type Plan, Quota,
  servicesLayer, Store, type TemplateEngine,
} from "@mailroom/core"
import { Effect, Layer } from "effect"
import { makeStoredMessage } from "./store-suite/messages.js"
import { testTemplateEngine } from "./template-engine.js"

const newAccount = (plan: Plan = "pro") =>
  Effect.map(Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "legacy templates", plan })), ({ account }) => account)

const studio = (account: Account): DesignCaller => ({ account, application: null })

const codeOf = <A, R>(effect: Effect.Effect<A, MailroomError, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.code)

const welcome = {
  name: "Welcome",
  subject: "Welcome, {{first_name}}",
  html: "<p>Hello {{first_name}} from {{company}}</p>",
  text: "Hello {{first_name}}",
}

let counter = 0
const freshKey = () => `legacy-${Date.now().toString(36)}-${(counter++).toString(36)}`

export const legacyTemplatesSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  it.layer(Layer.provideMerge(servicesLayer, Layer.mergeAll(storeLayer, IdsLive, testTemplateEngine)), { timeout: "60 seconds" })(
    `Legacy templates (${backend})`,
    (it) => {
      const setup = (plan: Plan = "pro") => Effect.gen(function* () {
        const legacy = yield* LegacyTemplates
        const designs = yield* Designs
        const account = yield* newAccount(plan)
        const template = yield* legacy.create(account, welcome)
        return { legacy, designs, account, template }
      })

      it.effect("create publishes at once: the template is the design with the same id, application key account", () =>
        Effect.gen(function* () {
          const { designs, account, template } = yield* setup()
          expect(template).toMatchObject({
            name: "Welcome", subject: "Welcome, {{first_name}}", html: welcome.html, text: welcome.text, themeId: null,
          })
          expect(template.variables).toEqual(["company", "first_name"])
          const design = yield* designs.get(studio(account), template.id)
          expect(design).toMatchObject({ id: template.id, key: template.id, applicationKey: "account", status: "published", liveVersion: 1 })
          expect((yield* designs.releaseAt(studio(account), template.id, 1)).engine).toBe("handlebars-email-v2")
        }))

      it.effect("reads show the live release: a Studio draft edit changes nothing until it is published", () =>
        Effect.gen(function* () {
          const { legacy, designs, account, template } = yield* setup()
          const design = yield* designs.get(studio(account), template.id)
          yield* designs.replace(studio(account), template.id, {
            expectedRevision: design.revision,
            draft: { ...design.draft, subject: "Draft only {{first_name}}" },
          })
          expect((yield* legacy.get(account, template.id)).subject).toBe("Welcome, {{first_name}}")
          expect((yield* legacy.list(account, { page: 1, limit: 25 })).templates[0]!.subject).toBe("Welcome, {{first_name}}")
          yield* designs.publish(studio(account), template.id, design.revision + 1)
          expect((yield* legacy.get(account, template.id)).subject).toBe("Draft only {{first_name}}")
        }))

      it.effect("update publishes at once; null removes a body or the theme; removing both bodies changes nothing", () =>
        Effect.gen(function* () {
          const { legacy, designs, account, template } = yield* setup()
          const brand = (yield* (yield* Brands).create({ account, application: null }, { name: "Acme" })).brand
          expect(yield* codeOf(legacy.update(account, template.id, { themeId: "brd_unknown" }))).toBe("BRAND_NOT_FOUND")
          const themed = yield* legacy.update(account, template.id, { subject: "Hi {{nick}}", themeId: brand.id })
          expect(themed).toMatchObject({ subject: "Hi {{nick}}", html: welcome.html, themeId: brand.id })
          expect(themed.variables).toEqual(["company", "first_name", "nick"])
          expect((yield* designs.get(studio(account), template.id)).liveVersion).toBe(2)
          expect((yield* designs.releaseAt(studio(account), template.id, 2)).brandId).toBe(brand.id)
          const textOnly = yield* legacy.update(account, template.id, { html: null, themeId: null })
          expect(textOnly).toMatchObject({ html: null, text: welcome.text, themeId: null })
          expect(yield* codeOf(legacy.update(account, template.id, { text: null }))).toBe("VALIDATION_ERROR")
          expect((yield* designs.get(studio(account), template.id)).liveVersion).toBe(3)
          expect((yield* legacy.get(account, template.id)).text).toBe(welcome.text)
        }))

      it.effect("unsafe markup and bodies over 1 MiB are refused, and nothing is written", () =>
        Effect.gen(function* () {
          const { legacy, account, template } = yield* setup()
          expect(yield* codeOf(legacy.create(account, { ...welcome, html: `<a href="jav&#x61;script:alert(1)">x</a>` }))).toBe("VALIDATION_ERROR")
          const big = `<p>${"x".repeat(1024 * 1024)}</p>`
          expect(yield* codeOf(legacy.create(account, { ...welcome, html: big }))).toBe("PAYLOAD_TOO_LARGE")
          expect(yield* codeOf(legacy.update(account, template.id, { text: "x".repeat(1024 * 1024 + 1) }))).toBe("PAYLOAD_TOO_LARGE")
          expect((yield* legacy.list(account, { page: 1, limit: 25 })).total).toBe(1)
          expect((yield* legacy.get(account, template.id)).text).toBe(welcome.text)
        }))

      it.effect("the list pages by page and limit with a total, newest first, and searches names", () =>
        Effect.gen(function* () {
          const { legacy, designs, account, template } = yield* setup()
          const second = yield* legacy.create(account, { ...welcome, name: "Password reset" })
          const third = yield* legacy.create(account, { ...welcome, name: "Receipt" })
          // A design never published and another application's design are not legacy templates.
          yield* designs.create(studio(account), { key: freshKey(), locale: "en", draft: { ...welcome, name: "Draft only" } })
          const other = yield* designs.create(studio(account), {
            applicationKey: "billing", key: freshKey(), locale: "en", draft: { ...welcome, name: "Welcome billing" },
          })
          yield* designs.publish(studio(account), other.id, 1)
          const first = yield* legacy.list(account, { page: 1, limit: 2 })
          expect(first.total).toBe(3)
          expect(first.templates.map((t) => t.id)).toEqual([third.id, second.id])
          expect((yield* legacy.list(account, { page: 2, limit: 2 })).templates.map((t) => t.id)).toEqual([template.id])
          const found = yield* legacy.list(account, { page: 1, limit: 25, search: "RESET" })
          expect(found).toMatchObject({ total: 1, templates: [{ id: second.id }] })
          expect(yield* codeOf(legacy.get(account, other.id))).toBe("TEMPLATE_NOT_FOUND")
        }))

      it.effect("render fills the variables given, escapes them in the html, and keeps the others as {{name}}", () =>
        Effect.gen(function* () {
          const { legacy, account, template } = yield* setup()
          const rendered = yield* legacy.render(account, template.id, { first_name: "<Ada>" })
          expect(rendered).toEqual({
            subject: "Welcome, <Ada>",
            html: "<p>Hello &lt;Ada&gt; from {{company}}</p>",
            text: "Hello <Ada>",
          })
          const literal = yield* legacy.render(account, template.id, {})
          expect(literal.subject).toBe("Welcome, {{first_name}}")
        }))

      it.effect("a test send is queued to the address given and counts one recipient against the monthly quota", () =>
        Effect.gen(function* () {
          const { legacy, account, template } = yield* setup()
          const quota = yield* Quota
          const before = (yield* quota.usage(account)).used
          const sent = yield* legacy.test(account, template.id, {
            to: "ada@example.org" as never, from: { email: "hello@example.com" as never }, variables: { first_name: "Ada" },
          })
          expect(sent).toMatchObject({ status: "queued", templateId: template.id })
          expect((yield* quota.usage(account)).used).toBe(before + 1)
          const store = yield* Store
          const message = yield* store.messages.findById(account.id, sent.id as never)
          expect(message._tag).toBe("Some")
        }))

      it.effect("a test send with the month's quota used up is refused with QUOTA_EXCEEDED and queues nothing", () =>
        Effect.gen(function* () {
          const { legacy, account, template } = yield* setup("micro")
          const quota = yield* Quota
          yield* quota.reserve(account, 20_000)
          const error = yield* Effect.flip(legacy.test(account, template.id, {
            to: "ada@example.org" as never, from: { email: "hello@example.com" as never }, variables: {},
          }))
          expect(error.code).toBe("QUOTA_EXCEEDED")
          expect((yield* quota.usage(account)).used).toBe(20_000)
        }))

      it.effect("delete removes the design and its releases, also after it sent; the id is then not found", () =>
        Effect.gen(function* () {
          const { legacy, designs, account, template } = yield* setup()
          const store = yield* Store
          const message = makeStoredMessage(account.id)
          yield* store.messages.insertMany([{ ...message, content: { ...message.content, template: { id: template.id, version: 1 } } }])
          expect(yield* legacy.remove(account, template.id)).toEqual({ id: template.id, deleted: true })
          expect(yield* codeOf(designs.find(studio(account), template.id))).toBe("TEMPLATE_NOT_FOUND")
          expect(yield* store.designs.listReleases(account.id, template.id)).toEqual([])
          const attempts: ReadonlyArray<Effect.Effect<unknown, MailroomError, TemplateEngine>> = [
            legacy.get(account, template.id), legacy.render(account, template.id, {}), legacy.remove(account, template.id),
          ]
          for (const attempt of attempts) expect(yield* codeOf(attempt)).toBe("TEMPLATE_NOT_FOUND")
        }))

      it.effect("another account's template answers as not found, and is left as it was", () =>
        Effect.gen(function* () {
          const { legacy, account, template } = yield* setup()
          const stranger = yield* newAccount()
          const attempts: ReadonlyArray<Effect.Effect<unknown, MailroomError, TemplateEngine>> = [
            legacy.get(stranger, template.id), legacy.update(stranger, template.id, { name: "Mine" }),
            legacy.remove(stranger, template.id), legacy.render(stranger, template.id, {}),
          ]
          for (const attempt of attempts) expect(yield* codeOf(attempt)).toBe("TEMPLATE_NOT_FOUND")
          expect((yield* legacy.get(account, template.id)).name).toBe("Welcome")
        }))

      it.effect("legacy routes are not Studio routes: below Micro, reads answer and creating is refused by the plan", () =>
        Effect.gen(function* () {
          const legacy = yield* LegacyTemplates
          const starter = yield* newAccount("starter")
          expect(yield* legacy.list(starter, { page: 1, limit: 25 })).toEqual({ templates: [], total: 0 })
          expect(yield* codeOf(legacy.create(starter, welcome))).toBe("PLAN_UPGRADE_REQUIRED")
          expect(yield* codeOf(legacy.get(starter, "tpl_missing"))).toBe("TEMPLATE_NOT_FOUND")
        }))

      it.effect("legacy templates count toward the plan's templates: Micro's 26th is refused naming the limit", () =>
        Effect.gen(function* () {
          const legacy = yield* LegacyTemplates
          const designs = yield* Designs
          const account = yield* newAccount("micro")
          for (let i = 0; i < 24; i++) yield* legacy.create(account, welcome)
          yield* designs.create(studio(account), { key: freshKey(), locale: "en", draft: welcome })
          const error = yield* Effect.flip(legacy.create(account, welcome))
          expect(error.code).toBe("API_KEY_LIMIT_REACHED")
          expect(error.message).toContain("at most 25 templates")
          expect((yield* legacy.list(account, { page: 1, limit: 100 })).total).toBe(24)
        }))
    },
  )
