/** The designs scenario suite: every rule of the spec's Design rows ("States and transitions"), the Studio plan limits
 *  and the scoping of application credentials, through the Designs service. Each backend package runs it against its
 *  own Store layer; the TemplateEngine is the double of ./template-engine-double.ts (the engine has its own tests). */
import { expect, it } from "@effect/vitest"
import {
  type Account, Accounts, Brands, type DesignCaller, Designs, IdsLive, type MailroomError, type Plan, servicesLayer, Store,
} from "@mailroom/core"
import { Effect, Layer } from "effect"
import { makeStoredMessage } from "./store-suite/messages.js"
import { testTemplateEngine } from "./template-engine.js"

let counter = 0
const freshKey = () => `welcome-${Date.now().toString(36)}-${(counter++).toString(36)}`

const draft = (overrides: Record<string, unknown> = {}) => ({
  name: "Welcome",
  subject: "Hello {{first_name}}",
  html: "<p>Hi {{first_name}}, see {{link}}</p>",
  category: "NOTIFICATION",
  variables: {
    first_name: { type: "string" as const, required: true, example: "Ada" },
    link: { type: "string" as const, format: "url" as const, example: "https://example.com/start" },
  },
  ...overrides,
})

const newAccount = (plan: Plan = "pro") =>
  Effect.map(Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "designs", plan })), ({ account }) => account)

const asAccount = (account: Account): DesignCaller => ({ account, application: null })
const asApplication = (account: Account, key: string): DesignCaller => ({ account, application: { key, allowedSenders: [] } })

const codeOf = <A, R>(effect: Effect.Effect<A, MailroomError, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.code)

export const designsSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  it.layer(Layer.provideMerge(servicesLayer, Layer.mergeAll(storeLayer, IdsLive, testTemplateEngine)), { timeout: "60 seconds" })(
    `Designs (${backend})`,
    (it) => {
      const setup = (plan: Plan = "pro") => Effect.gen(function* () {
        const designs = yield* Designs
        const account = yield* newAccount(plan)
        const caller = asAccount(account)
        const design = yield* designs.create(caller, { key: freshKey(), locale: "en", draft: draft() })
        return { designs, account, caller, design }
      })

      it.effect("create makes a draft at revision 1 that only its account reads", () =>
        Effect.gen(function* () {
          const { designs, caller, design } = yield* setup()
          expect(design).toMatchObject({ applicationKey: "account", status: "draft", revision: 1, liveVersion: null })
          expect(design.id).toMatch(/^tpl_/)
          expect((yield* designs.get(caller, design.id)).draft.subject).toBe("Hello {{first_name}}")
          expect(yield* codeOf(designs.get(asAccount(yield* newAccount()), design.id))).toBe("TEMPLATE_NOT_FOUND")
        }))

      it.effect("Studio needs the Micro plan: Free and Starter are refused with PLAN_UPGRADE_REQUIRED", () =>
        Effect.gen(function* () {
          const designs = yield* Designs
          for (const plan of ["free", "starter"] as const) {
            const caller = asAccount(yield* newAccount(plan))
            expect(yield* codeOf(designs.create(caller, { key: freshKey(), locale: "en", draft: draft() }))).toBe("PLAN_UPGRADE_REQUIRED")
            expect(yield* codeOf(designs.list(caller, {}, { limit: 10 }))).toBe("PLAN_UPGRADE_REQUIRED")
          }
        }))

      it.effect("the Micro plan holds 25 templates; the 26th is refused naming the limit and nothing is written", () =>
        Effect.gen(function* () {
          const designs = yield* Designs
          const caller = asAccount(yield* newAccount("micro"))
          for (let i = 0; i < 25; i++) yield* designs.create(caller, { key: freshKey(), locale: "en", draft: draft() })
          const error = yield* Effect.flip(designs.create(caller, { key: freshKey(), locale: "en", draft: draft() }))
          expect(error.code).toBe("API_KEY_LIMIT_REACHED")
          expect(error.message).toContain("at most 25 templates")
          expect((yield* designs.list(caller, {}, { limit: 100 })).designs).toHaveLength(25)
        }))

      it.effect("a second design with the same application key, key and locale is refused", () =>
        Effect.gen(function* () {
          const { designs, caller, design } = yield* setup()
          expect(yield* codeOf(designs.create(caller, { key: design.key, locale: "en", draft: draft() }))).toBe("DESIGN_ALREADY_EXISTS")
          const french = yield* designs.create(caller, { key: design.key, locale: "fr", draft: draft() })
          expect(french.locale).toBe("fr")
        }))

      it.effect("a body over 1 MiB is refused with PAYLOAD_TOO_LARGE naming it, and nothing is written", () =>
        Effect.gen(function* () {
          const { designs, caller, design } = yield* setup()
          const big = draft({ html: `<p>${"x".repeat(1024 * 1024)}</p>` })
          expect(yield* codeOf(designs.create(caller, { key: freshKey(), locale: "en", draft: big }))).toBe("PAYLOAD_TOO_LARGE")
          expect(yield* codeOf(designs.replace(caller, design.id, { expectedRevision: 1, draft: big }))).toBe("PAYLOAD_TOO_LARGE")
          expect((yield* designs.get(caller, design.id)).revision).toBe(1)
        }))

      it.effect("PATCH with a stale expectedRevision is a REVISION_CONFLICT and changes nothing", () =>
        Effect.gen(function* () {
          const { designs, caller, design } = yield* setup()
          const edited = yield* designs.replace(caller, design.id, { expectedRevision: 1, draft: draft({ subject: "Second" }) })
          expect(edited.revision).toBe(2)
          const error = yield* Effect.flip(designs.replace(caller, design.id, { expectedRevision: 1, draft: draft({ subject: "Lost" }) }))
          expect(error.code).toBe("REVISION_CONFLICT")
          expect(error.message).toContain("revision 2")
          expect((yield* designs.get(caller, design.id)).draft.subject).toBe("Second")
        }))

      it.effect("publish makes release 1; a stale revision is refused; editing the draft leaves the release as it was", () =>
        Effect.gen(function* () {
          const { designs, caller, design } = yield* setup()
          expect(yield* codeOf(designs.publish(caller, design.id, 2))).toBe("REVISION_CONFLICT")
          expect((yield* designs.releases(caller, design.id))).toEqual([])
          const { design: live, release } = yield* designs.publish(caller, design.id, 1)
          expect(live).toMatchObject({ status: "published", liveVersion: 1, revision: 1 })
          expect(release).toMatchObject({ version: 1, revision: 1, engine: "handlebars-email-v2", rolledBackFrom: null })
          yield* designs.replace(caller, design.id, { expectedRevision: 1, draft: draft({ subject: "Changed" }) })
          expect(yield* codeOf(designs.bindBrand(caller, design.id, { brandId: "brd_unknown" }))).toBe("BRAND_NOT_FOUND")
          const other = (yield* (yield* Brands).create(caller, { name: "Other" })).brand
          yield* designs.bindBrand(caller, design.id, { brandId: other.id })
          const stored = yield* designs.releaseAt(caller, design.id, 1)
          expect(stored.content.subject).toBe("Hello {{first_name}}")
          expect(stored.compiled.subject).toBe("Hello {{first_name}}")
          expect(stored.brandId).toBeNull()
          expect((yield* designs.get(caller, design.id)).liveVersion).toBe(1)
          const second = yield* designs.publish(caller, design.id, 2)
          expect(second.release.version).toBe(2)
          expect((yield* designs.releases(caller, design.id)).map((r) => r.version)).toEqual([2, 1])
        }))

      it.effect("rollback copies an earlier version into a new release and leaves the draft alone", () =>
        Effect.gen(function* () {
          const { designs, caller, design } = yield* setup()
          yield* designs.publish(caller, design.id, 1)
          yield* designs.replace(caller, design.id, { expectedRevision: 1, draft: draft({ subject: "Version two" }) })
          yield* designs.publish(caller, design.id, 2)
          const { design: after, release } = yield* designs.rollback(caller, design.id, 1)
          expect(release).toMatchObject({ version: 3, rolledBackFrom: 1, revision: 1 })
          expect(release.content.subject).toBe("Hello {{first_name}}")
          expect(after.liveVersion).toBe(3)
          expect(after.draft.subject).toBe("Version two")
          expect(yield* codeOf(designs.rollback(caller, design.id, 9))).toBe("VALIDATION_ERROR")
        }))

      it.effect("retire names an optional replacement of the account; restore brings the design back", () =>
        Effect.gen(function* () {
          const { designs, caller, design } = yield* setup()
          const other = yield* designs.create(caller, { key: freshKey(), locale: "en", draft: draft() })
          const foreign = (yield* setup()).design
          expect(yield* codeOf(designs.lifecycle(caller, design.id, { action: "retire", replacementId: foreign.id }))).toBe("TEMPLATE_NOT_FOUND")
          expect(yield* codeOf(designs.lifecycle(caller, design.id, { action: "retire", replacementId: design.id }))).toBe("VALIDATION_ERROR")
          const retired = yield* designs.lifecycle(caller, design.id, { action: "retire", replacementId: other.id })
          expect(retired).toMatchObject({ status: "retired", replacementId: other.id })
          expect((yield* designs.list(caller, { status: "retired" }, { limit: 10 })).designs.map((d) => d.id)).toEqual([design.id])
          const restored = yield* designs.lifecycle(caller, design.id, { action: "restore" })
          expect(restored).toMatchObject({ status: "draft", replacementId: null, retiredAt: null })
        }))

      it.effect("delete removes a template that never sent; one that sent answers TEMPLATE_IN_USE and stays", () =>
        Effect.gen(function* () {
          const { designs, account, caller, design } = yield* setup()
          const unused = yield* designs.create(caller, { key: freshKey(), locale: "en", draft: draft() })
          expect(yield* designs.remove(caller, unused.id)).toEqual({ id: unused.id, deleted: true })
          expect(yield* codeOf(designs.get(caller, unused.id))).toBe("TEMPLATE_NOT_FOUND")
          const store = yield* Store
          const message = makeStoredMessage(account.id)
          yield* store.messages.insertMany([{ ...message, content: { ...message.content, template: { id: design.id, version: 1 } } }])
          expect(yield* codeOf(designs.remove(caller, design.id))).toBe("TEMPLATE_IN_USE")
          expect((yield* designs.usage(caller, design.id)).sends).toBe(1)
          expect((yield* designs.get(caller, design.id)).id).toBe(design.id)
        }))

      it.effect("list filters and pages with a cursor, newest first", () =>
        Effect.gen(function* () {
          const { designs, caller, design: first } = yield* setup()
          const second = yield* designs.create(caller, { key: freshKey(), locale: "de", draft: draft({ category: "BILLING" }) })
          const third = yield* designs.create(caller, { key: freshKey(), locale: "en", draft: draft() })
          const page1 = yield* designs.list(caller, {}, { limit: 2 })
          expect(page1.designs.map((d) => d.id)).toEqual([third.id, second.id])
          expect(page1.nextAfter).toBe(second.id)
          const page2 = yield* designs.list(caller, {}, { limit: 2, after: page1.nextAfter! })
          expect(page2).toEqual({ designs: [expect.objectContaining({ id: first.id })], nextAfter: null })
          expect((yield* designs.list(caller, { locale: "de" }, { limit: 10 })).designs.map((d) => d.id)).toEqual([second.id])
          expect((yield* designs.list(caller, { category: "BILLING" }, { limit: 10 })).designs.map((d) => d.id)).toEqual([second.id])
        }))

      it.effect("an application credential reaches only its application's templates", () =>
        Effect.gen(function* () {
          const { designs, account, design } = yield* setup()
          const shop = asApplication(account, "shop")
          const own = yield* designs.create(shop, { key: freshKey(), locale: "en", draft: draft() })
          expect(own.applicationKey).toBe("shop")
          expect(yield* codeOf(designs.get(shop, design.id))).toBe("TEMPLATE_NOT_FOUND")
          expect(yield* codeOf(designs.publish(shop, design.id, 1))).toBe("TEMPLATE_NOT_FOUND")
          expect(yield* codeOf(designs.create(shop, { applicationKey: "account", key: freshKey(), locale: "en", draft: draft() })))
            .toBe("VALIDATION_ERROR")
          expect((yield* designs.list(shop, {}, { limit: 10 })).designs.map((d) => d.id)).toEqual([own.id])
          expect((yield* designs.list(shop, { applicationKey: "account" }, { limit: 10 })).designs).toEqual([])
        }))

      it.effect("preview renders the draft, the live release or a version, with the variables' examples as sample", () =>
        Effect.gen(function* () {
          const { designs, caller, design } = yield* setup()
          const sample = yield* designs.preview(caller, design.id, { source: "draft", variables: {}, sample: true })
          expect(sample.subject).toBe("Hello Ada")
          expect(sample.html).toContain("https://example.com/start")
          expect(yield* codeOf(designs.preview(caller, design.id, { source: "live", variables: {}, sample: false }))).toBe("VALIDATION_ERROR")
          yield* designs.publish(caller, design.id, 1)
          yield* designs.replace(caller, design.id, { expectedRevision: 1, draft: draft({ subject: "Draft {{first_name}}" }) })
          const other = (yield* (yield* Brands).create(caller, { name: "Other" })).brand
          const live = yield* designs.preview(caller, design.id, { source: "live", variables: { first_name: "Bo" }, sample: false, brandId: other.id })
          expect(live).toMatchObject({ subject: "Hello Bo", brandId: other.id })
          expect(yield* codeOf(designs.preview(caller, design.id, { source: "live", variables: {}, sample: false, brandId: "brd_x" })))
            .toBe("BRAND_NOT_FOUND")
          const drafted = yield* designs.preview(caller, design.id, { source: "draft", variables: { first_name: "Bo" }, sample: false })
          expect(drafted.subject).toBe("Draft Bo")
          const versioned = yield* designs.preview(caller, design.id, { source: "draft", version: 1, variables: {}, sample: true })
          expect(versioned.subject).toBe("Hello Ada")
        }))
    },
  )
