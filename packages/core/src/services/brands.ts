/** The brands API: create, list, read, update (expectedUpdatedAt), delete an unused brand, usage and the account's
 *  default. Same reach as the designs routes: an application credential sees only its application's brands, and
 *  Studio routes need the Micro plan. Spec: sending "Design (Studio template)" (brands), "Designs (template API)"
 *  (brand rows), "Limits" (Studio brands). */
import { Effect, Option } from "effect"
import { BrandInUse, BrandNotFound, BrandRevisionConflict } from "../brand-errors.js"
import {
  type BrandId, type BrandQuery, type BrandRecord, canBeDefault, checkBrandRoom, contrastWarnings, type ContrastWarning,
  type CreateBrandInput, isCurrent, newBrand, updateBrand, type UpdateBrandInput,
} from "../domain/brand.js"
import type { Campaign } from "../domain/campaign.js"
import { accountApplicationKey, checkStudioPlan, type Design } from "../domain/design.js"
import { ValidationFailed } from "../errors.js"
import { currentDate } from "../internal/time.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import type { DesignCaller } from "./designs.js"
import { serviceMethod } from "./tracing.js"

/** A brand as written, with the contrast warnings of its colours (never a refusal). */
export interface SavedBrand {
  readonly brand: BrandRecord
  readonly warnings: ReadonlyArray<ContrastWarning>
}

export interface BrandPage {
  readonly brands: ReadonlyArray<BrandRecord>
  readonly nextAfter: string | null
}

export interface BrandUsage {
  readonly brandId: BrandId
  readonly isDefault: boolean
  readonly templates: ReadonlyArray<Design>
  /** Campaigns using the brand (their `brandId`), newest first. */
  readonly campaigns: ReadonlyArray<Campaign>
}

/** Studio routes need the Micro plan; the deprecated /brand-theme routes do not. */
export const checkDesignStudio = (caller: DesignCaller) =>
  caller.surface === "legacy" ? Effect.void : checkStudioPlan(caller.account.plan)

const saved = (brand: BrandRecord): SavedBrand => ({ brand, warnings: contrastWarnings(brand.colors) })

export class Brands extends Effect.Service<Brands>()("@mailroom/core/Brands", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const method = yield* serviceMethod

    const studio = checkDesignStudio

    /** The caller's brand: another account's, or another application's for an application credential, is not found. */
    const find = (caller: DesignCaller, id: string) =>
      store.brands.findById(caller.account.id, id).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new BrandNotFound({ id })),
          onSome: (brand) => caller.application !== null && brand.applicationKey !== caller.application.key
            ? Effect.fail(new BrandNotFound({ id }))
            : Effect.succeed(brand),
        })),
      )

    const create = method("Brands.create")(function* (caller: DesignCaller, input: CreateBrandInput) {
      yield* studio(caller)
      const applicationKey = input.applicationKey ?? caller.application?.key ?? accountApplicationKey
      if (caller.application !== null && applicationKey !== caller.application.key) {
        return yield* Effect.fail(new ValidationFailed({
          field: "applicationKey", detail: `this credential reaches only application ${caller.application.key}`,
        }))
      }
      const at = yield* currentDate
      return yield* store.transaction(Effect.gen(function* () {
        yield* store.accounts.lock(caller.account.id)
        yield* checkBrandRoom(caller.account.plan, yield* store.brands.count(caller.account.id))
        // The account's first account brand becomes its default, so hosted pages and templates show it at once.
        const isDefault = applicationKey === accountApplicationKey &&
          Option.isNone(yield* store.brands.findDefault(caller.account.id))
        const brand = newBrand({
          id: ids.make("brand", at) as BrandId, accountId: caller.account.id, applicationKey, input, isDefault, at,
        })
        yield* store.brands.insert(brand)
        return saved(brand)
      }))
    })

    const list = method("Brands.list")(function* (
      caller: DesignCaller,
      filters: { readonly applicationKey?: string | undefined },
      page: { readonly after?: string | undefined; readonly limit: number },
    ) {
      yield* studio(caller)
      if (caller.application !== null && filters.applicationKey !== undefined && filters.applicationKey !== caller.application.key) {
        return { brands: [], nextAfter: null } satisfies BrandPage
      }
      const query: BrandQuery = {
        applicationKey: caller.application?.key ?? filters.applicationKey, after: page.after, limit: page.limit + 1,
      }
      const rows = yield* store.brands.list(caller.account.id, query)
      const brands = rows.slice(0, page.limit)
      return { brands, nextAfter: rows.length > page.limit ? brands[brands.length - 1]!.id : null } satisfies BrandPage
    })

    const get = method("Brands.get")(function* (caller: DesignCaller, id: string) {
      yield* studio(caller)
      return saved(yield* find(caller, id))
    })

    const conflict = (brand: BrandRecord, expected: string) =>
      new BrandRevisionConflict({ id: brand.id, expected, current: brand.updatedAt.toISOString() })

    /** PATCH: the fields given change when expectedUpdatedAt is the brand's updatedAt (REVISION_CONFLICT otherwise). */
    const update = method("Brands.update")(function* (caller: DesignCaller, id: string, input: UpdateBrandInput) {
      yield* studio(caller)
      const at = yield* currentDate
      return yield* store.transaction(Effect.gen(function* () {
        const brand = yield* find(caller, id)
        if (!isCurrent(brand, input.expectedUpdatedAt)) return yield* Effect.fail(conflict(brand, input.expectedUpdatedAt))
        const next = updateBrand(brand, input, at)
        if (!(yield* store.brands.update(next, brand.updatedAt))) {
          const current = yield* find(caller, id)
          return yield* Effect.fail(conflict(current, input.expectedUpdatedAt))
        }
        return saved(next)
      }))
    })

    const usageOf = (caller: DesignCaller, brand: BrandRecord) =>
      Effect.map(
        Effect.all([store.brands.usage(caller.account.id, brand.id), store.campaigns.using(caller.account.id, { kind: "brand", id: brand.id })]),
        ([templates, campaigns]) => ({ brandId: brand.id, isDefault: brand.isDefault, templates, campaigns }) satisfies BrandUsage,
      )

    /** DELETE: only a brand no template is bound to and no campaign uses, and not the account's default. */
    const remove = method("Brands.remove")(function* (caller: DesignCaller, id: string) {
      yield* studio(caller)
      return yield* store.transaction(Effect.gen(function* () {
        const brand = yield* find(caller, id)
        const usage = yield* usageOf(caller, brand)
        if (usage.templates.length > 0 || usage.campaigns.length > 0 || brand.isDefault) {
          return yield* Effect.fail(new BrandInUse({
            id: brand.id, templates: usage.templates.length, campaigns: usage.campaigns.length, isDefault: brand.isDefault,
          }))
        }
        yield* store.brands.delete(caller.account.id, brand.id)
        return { id: brand.id, deleted: true as const }
      }))
    })

    const usage = method("Brands.usage")(function* (caller: DesignCaller, id: string) {
      yield* studio(caller)
      return yield* usageOf(caller, yield* find(caller, id))
    })

    /** POST /designs/brands/{id}/default: an account brand becomes the account's only default. */
    const makeDefault = method("Brands.makeDefault")(function* (caller: DesignCaller, id: string) {
      yield* studio(caller)
      return yield* store.transaction(Effect.gen(function* () {
        const brand = yield* find(caller, id)
        if (!canBeDefault(brand)) {
          return yield* Effect.fail(new ValidationFailed({
            field: "id", detail: `brand ${brand.id} belongs to application ${brand.applicationKey}; only account brands can be the account's default`,
          }))
        }
        yield* store.brands.setDefault(caller.account.id, brand.id)
        return saved({ ...brand, isDefault: true })
      }))
    })

    /** The account's default brand, or none (legacy /brand-theme and the hosted pages). */
    const defaultBrand = method("Brands.defaultBrand")(function* (accountId: BrandRecord["accountId"]) {
      return yield* store.brands.findDefault(accountId)
    })

    return { create, list, get, update, remove, usage, makeDefault, defaultBrand, find } as const
  }),
}) {}
