/** The brands scenario suite, through the Brands service on each backend's own Store: the compare-and-set of
 *  expectedUpdatedAt, one default per account, usage and delete, plan room and application reach, and the theme a
 *  template reads (live, default brand, default theme). Each backend package runs it against its Store layer. */
import { expect, it } from "@effect/vitest"
import {
  type Account, Accounts, Brands, type DesignCaller, Designs, defaultTheme, IdsLive, liveTheme, type MailroomError,
  type Plan, servicesLayer, Store,
} from "@mailroom/core"
import { Effect, Layer, Option } from "effect"
import { testTemplateEngine } from "./template-engine.js"

let counter = 0
const freshKey = () => `branded-${Date.now().toString(36)}-${(counter++).toString(36)}`

const newAccount = (plan: Plan = "pro") =>
  Effect.map(Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "brands", plan })), ({ account }) => account)

const asAccount = (account: Account): DesignCaller => ({ account, application: null })
const asApplication = (account: Account, key: string): DesignCaller => ({ account, application: { key, allowedSenders: [] } })

const codeOf = <A, R>(effect: Effect.Effect<A, MailroomError, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.code)

export const brandsSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  it.layer(Layer.provideMerge(servicesLayer, Layer.mergeAll(storeLayer, IdsLive, testTemplateEngine)), { timeout: "60 seconds" })(
    `Brands (${backend})`,
    (it) => {
      it.effect("an update needs the current updatedAt; a stale one is REVISION_CONFLICT and writes nothing", () =>
        Effect.gen(function* () {
          const brands = yield* Brands
          const caller = asAccount(yield* newAccount())
          const { brand } = yield* brands.create(caller, { name: "Acme", colors: { primary: "#123456" } })
          const read = brand.updatedAt.toISOString()
          const first = yield* brands.update(caller, brand.id, { expectedUpdatedAt: read, name: "Acme Two" })
          expect(first.brand.updatedAt.getTime()).toBeGreaterThan(brand.updatedAt.getTime())
          expect(yield* codeOf(brands.update(caller, brand.id, { expectedUpdatedAt: read, name: "Lost" }))).toBe("REVISION_CONFLICT")
          const stored = (yield* brands.get(caller, brand.id)).brand
          expect(stored).toMatchObject({ name: "Acme Two", colors: { primary: "#123456" } })
          expect(stored.updatedAt.toISOString()).toBe(first.brand.updatedAt.toISOString())
        }))

      it.effect("one default per account: the first account brand, then whichever was made default last", () =>
        Effect.gen(function* () {
          const brands = yield* Brands
          const store = yield* Store
          const account = yield* newAccount()
          const caller = asAccount(account)
          const a = (yield* brands.create(caller, { name: "A" })).brand
          const b = (yield* brands.create(caller, { name: "B" })).brand
          expect([a.isDefault, b.isDefault]).toEqual([true, false])
          yield* brands.makeDefault(caller, b.id)
          const all = (yield* brands.list(caller, {}, { limit: 10 })).brands
          expect(all.filter((brand) => brand.isDefault).map((brand) => brand.id)).toEqual([b.id])
          expect(Option.map(yield* store.brands.findDefault(account.id), (brand) => brand.id)).toEqual(Option.some(b.id))
          // Another account's default is its own.
          const other = yield* newAccount()
          expect(Option.isNone(yield* store.brands.findDefault(other.id))).toBe(true)
        }))

      it.effect("usage lists bound designs; delete refuses a used or default brand and removes an unused one", () =>
        Effect.gen(function* () {
          const brands = yield* Brands
          const designs = yield* Designs
          const caller = asAccount(yield* newAccount())
          const main = (yield* brands.create(caller, { name: "Main" })).brand
          const side = (yield* brands.create(caller, { name: "Side" })).brand
          const design = yield* designs.create(caller, {
            key: freshKey(), locale: "en", brandId: side.id, draft: { name: "T", subject: "S {{theme.name}}", text: "x" },
          })
          expect((yield* brands.usage(caller, side.id)).templates.map((t) => t.id)).toEqual([design.id])
          expect(yield* codeOf(brands.remove(caller, side.id))).toBe("BRAND_IN_USE")
          expect(yield* codeOf(brands.remove(caller, main.id))).toBe("BRAND_IN_USE")
          yield* designs.bindBrand(caller, design.id, { brandId: null })
          expect(yield* brands.remove(caller, side.id)).toEqual({ id: side.id, deleted: true })
          expect(yield* codeOf(brands.get(caller, side.id))).toBe("BRAND_NOT_FOUND")
        }))

      it.effect("plan room: none below Micro, Micro 3; an application credential reaches only its application", () =>
        Effect.gen(function* () {
          const brands = yield* Brands
          expect(yield* codeOf(brands.create(asAccount(yield* newAccount("starter")), { name: "A" }))).toBe("PLAN_UPGRADE_REQUIRED")
          const micro = asAccount(yield* newAccount("micro"))
          for (const name of ["A", "B", "C"]) yield* brands.create(micro, { name })
          expect(yield* codeOf(brands.create(micro, { name: "D" }))).toBe("API_KEY_LIMIT_REACHED")
          const account = yield* newAccount()
          const shop = (yield* brands.create(asAccount(account), { name: "Shop", applicationKey: "shop" })).brand
          const blog = (yield* brands.create(asAccount(account), { name: "Blog", applicationKey: "blog" })).brand
          const app = asApplication(account, "shop")
          expect((yield* brands.list(app, {}, { limit: 10 })).brands.map((brand) => brand.id)).toEqual([shop.id])
          expect(yield* codeOf(brands.get(app, blog.id))).toBe("BRAND_NOT_FOUND")
          expect(yield* codeOf(brands.makeDefault(asAccount(account), shop.id))).toBe("VALIDATION_ERROR")
        }))

      it.effect("the live theme: the bound brand, else the default brand, else the default theme", () =>
        Effect.gen(function* () {
          const brands = yield* Brands
          const store = yield* Store
          const account = yield* newAccount()
          expect(yield* liveTheme(store, account.id, null)).toEqual(defaultTheme)
          const house = (yield* brands.create(asAccount(account), { name: "House", custom: { plan: "Gold" } })).brand
          const other = (yield* brands.create(asAccount(account), { name: "Other" })).brand
          expect((yield* liveTheme(store, account.id, null)).name).toBe("House")
          expect(yield* liveTheme(store, account.id, other.id)).toMatchObject({ name: "Other", custom: {} })
          expect((yield* liveTheme(store, account.id, house.id)).custom).toEqual({ plan: "Gold" })
        }))
    },
  )
