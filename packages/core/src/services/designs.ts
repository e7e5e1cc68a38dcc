/** The designs API: drafts with revisions, publish into immutable releases, rollback, lifecycle, brand binding,
 *  preview and usage. Spec: sending "Design (Studio template)", "States and transitions" (Design rows), "Designs
 *  (template API)", "Limits" (Studio templates). Sources are checked (and MJML compiled) by the TemplateEngine port on
 *  save and publish; a release stores the compiled form, so no send compiles. */
import { Effect, Option } from "effect"
import { type Account, planLimits } from "../domain/account.js"
import {
  accountApplicationKey, changeLifecycle, designLimits, checkDesignRoom, checkStudioPlan, type CompiledContent, type Design,
  type DesignDraft, type DesignId, type DesignSource, type DesignQuery, type DesignRelease, isApplicationTemplate, newDesign,
  oversizedBody, publishDraft, releaseCacheKey, renderModeOf, replaceDraft, rollbackTo, toDraft,
} from "../domain/design.js"
import type {
  BindBrandInput, CreateDesignInput, DesignListFilters, LifecycleInput, PreviewInput, ReplaceDraftInput,
} from "../domain/design-input.js"
import { PayloadTooLarge, ValidationFailed } from "../errors.js"
import { orFailWith } from "../internal/found.js"
import { currentDate } from "../internal/time.js"
import { messageStatus } from "../domain/message-record.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import { TemplateEngine } from "../ports/template-engine.js"
import { RevisionConflict, TemplateInUse, TemplateNotFound } from "../template-errors.js"
import { BrandNotFound } from "../brand-errors.js"
import { themeOf } from "../domain/brand.js"
import type { MessageDetails } from "./messages.js"
import { liveTheme, themeForRelease } from "./template-sends.js"
import { serviceMethod } from "./tracing.js"

/** Who calls: an account's API key (every application of the account), or an application credential, which reaches
 *  only the templates of its application key and sends only from its allowed senders. */
export interface DesignCaller {
  readonly account: Account
  readonly application: { readonly key: string; readonly allowedSenders: ReadonlyArray<string> } | null
  /** "legacy": the call comes through the deprecated /templates API, which is not a Studio route: the Micro plan gate
   *  of the Studio routes does not apply (the plan's template count still does), and delete removes a template that
   *  sent mail too (spec: "Legacy templates", DELETE: sends referencing it fail afterwards). Default "studio". */
  readonly surface?: "studio" | "legacy" | undefined
}

export interface DesignPage {
  readonly designs: ReadonlyArray<Design>
  /** The id after which the next page starts, or null on the last page. */
  readonly nextAfter: string | null
}

/** The values a preview renders with: the variables given, or with `sample`, each variable's example (values given
 *  win over examples). */
export const sampleValues = (draft: Pick<DesignDraft, "variables">, given: Readonly<Record<string, unknown>>, sample: boolean) =>
  sample
    ? { ...Object.fromEntries(Object.entries(draft.variables).flatMap(([name, spec]) =>
      spec.example === undefined ? [] : [[name, spec.example]])), ...given }
    : given

export class Designs extends Effect.Service<Designs>()("@mailroom/core/Designs", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const method = yield* serviceMethod

    /** The caller's design: another account's, or another application's for an application credential, is not found. */
    const find = (caller: DesignCaller, id: string) =>
      store.designs.findById(caller.account.id, id).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new TemplateNotFound({ id })),
          onSome: (design) => caller.application !== null && design.applicationKey !== caller.application.key
            ? Effect.fail(new TemplateNotFound({ id }))
            : Effect.succeed(design),
        })),
      )

    const studio = (caller: DesignCaller) =>
      caller.surface === "legacy" ? Effect.void : checkStudioPlan(caller.account.plan)

    /** The brand a design of `applicationKey` may bind: one of the same application (and so, for an application
     *  credential, its own); BRAND_NOT_FOUND otherwise. */
    const bindable = (caller: DesignCaller, applicationKey: string, brandId: string) =>
      store.brands.findById(caller.account.id, brandId).pipe(
        Effect.flatMap((found) => Option.isSome(found) && found.value.applicationKey === applicationKey &&
            (caller.application === null || found.value.applicationKey === caller.application.key)
          ? Effect.succeed(found.value)
          : Effect.fail(new BrandNotFound({ id: brandId }))),
      )

    /** Checks (and for MJML compiles) a draft's source; the refusals name what and where (400, or 413 past a size). */
    const prepare = (draft: DesignDraft) =>
      Effect.gen(function* () {
        const oversized = oversizedBody(draft)
        if (oversized !== undefined) {
          return yield* Effect.fail(new PayloadTooLarge({ limitBytes: designLimits.bodyBytes, field: `draft.${oversized}` }))
        }
        const engine = yield* TemplateEngine
        const { engine: _tag, ...compiled } = yield* engine.prepare({
          format: draft.format, subject: draft.subject, html: draft.html, text: draft.text,
        })
        return compiled satisfies CompiledContent
      })

    /** Writes a changed design when nobody changed it since `before` was read; RevisionConflict otherwise. */
    const save = (before: Design, after: Design) =>
      Effect.flatMap(
        store.designs.update(after, { revision: before.revision, liveVersion: before.liveVersion }),
        (written) => written ? Effect.succeed(after) : Effect.flatMap(store.designs.findById(before.accountId, before.id), (current) =>
          Effect.fail<TemplateNotFound | RevisionConflict>(Option.isNone(current)
            ? new TemplateNotFound({ id: before.id })
            : new RevisionConflict({ id: before.id, expected: before.revision, current: current.value.revision }))),
      )

    /** `options.id`: the id the design takes (a legacy template's key is its id, so the caller picks it first). */
    const create = method("Designs.create")(function* (
      caller: DesignCaller,
      input: CreateDesignInput,
      options: { readonly id?: DesignId | undefined; readonly source?: DesignSource | undefined } = {},
    ) {
      yield* studio(caller)
      const applicationKey = input.applicationKey ?? caller.application?.key ?? accountApplicationKey
      if (caller.application !== null && applicationKey !== caller.application.key) {
        return yield* Effect.fail(new ValidationFailed({
          field: "applicationKey", detail: `this credential reaches only application ${caller.application.key}`,
        }))
      }
      const draft = toDraft(input.draft, input.locale)
      yield* prepare(draft)
      if (typeof input.brandId === "string") yield* bindable(caller, applicationKey, input.brandId)
      const at = yield* currentDate
      const design = newDesign({
        source: options.source ?? null,
        id: options.id ?? ids.make("design", at) as DesignId,
        accountId: caller.account.id,
        applicationKey,
        key: input.key,
        locale: input.locale,
        draft,
        brandId: input.brandId ?? null,
        at,
      })
      yield* store.transaction(Effect.gen(function* () {
        yield* store.accounts.lock(caller.account.id)
        yield* checkDesignRoom(caller.account.plan, yield* store.designs.count(caller.account.id))
        yield* store.designs.insert(design)
      }))
      return design
    })

    const list = method("Designs.list")(function* (
      caller: DesignCaller,
      filters: typeof DesignListFilters.Type,
      page: { readonly after?: string | undefined; readonly limit: number },
    ) {
      yield* studio(caller)
      if (caller.application !== null && filters.applicationKey !== undefined && filters.applicationKey !== caller.application.key) {
        return { designs: [], nextAfter: null } satisfies DesignPage
      }
      const query: DesignQuery = {
        ...filters,
        applicationKey: caller.application?.key ?? filters.applicationKey,
        after: page.after,
        limit: page.limit + 1,
      }
      const rows = yield* store.designs.list(caller.account.id, query)
      const designs = rows.slice(0, page.limit)
      return { designs, nextAfter: rows.length > page.limit ? designs[designs.length - 1]!.id : null } satisfies DesignPage
    })

    const get = method("Designs.get")(function* (caller: DesignCaller, id: string) {
      yield* studio(caller)
      return yield* find(caller, id)
    })

    /** PATCH: the draft is replaced whole; the live release is untouched until the next publish. */
    /** `options.source`: the starter version the new draft takes (POST /designs/{id}/sync). */
    const replace = method("Designs.replace")(function* (
      caller: DesignCaller,
      id: string,
      input: ReplaceDraftInput,
      options: { readonly source?: DesignSource | undefined } = {},
    ) {
      yield* studio(caller)
      const draft = toDraft(input.draft, (yield* find(caller, id)).locale)
      yield* prepare(draft)
      const at = yield* currentDate
      return yield* store.transaction(Effect.gen(function* () {
        const design = yield* find(caller, id)
        const next = yield* replaceDraft(design, draft, input.expectedRevision, at)
        return yield* save(design, options.source === undefined ? next : { ...next, source: options.source })
      }))
    })

    /** DELETE: only a template that never sent (messages name their template and release); through the legacy API,
     *  any template, after which sends naming it find no template. */
    const remove = method("Designs.remove")(function* (caller: DesignCaller, id: string) {
      yield* studio(caller)
      return yield* store.transaction(Effect.gen(function* () {
        const design = yield* find(caller, id)
        const sends = yield* store.designs.countSends(caller.account.id, design.id)
        if (sends > 0 && caller.surface !== "legacy") return yield* Effect.fail(new TemplateInUse({ id: design.id, sends }))
        yield* store.designs.delete(caller.account.id, design.id)
        return { id: design.id, deleted: true as const }
      }))
    })

    /** Writes a new release and moves the design to it, in one transaction; a concurrent publish that took the
     *  version first makes this one a REVISION_CONFLICT. */
    const release = (design: Design, made: { design: Design; release: DesignRelease }) =>
      Effect.gen(function* () {
        const written = yield* store.designs.insertRelease(made.release)
        if (!written) {
          return yield* Effect.fail(new RevisionConflict({ id: design.id, expected: design.revision, current: design.revision }))
        }
        yield* save(design, made.design)
        return made
      })

    const publish = method("Designs.publish")(function* (caller: DesignCaller, id: string, expectedRevision: number) {
      yield* studio(caller)
      const before = yield* find(caller, id)
      const compiled = yield* prepare(before.draft)
      const at = yield* currentDate
      return yield* store.transaction(Effect.gen(function* () {
        const design = yield* find(caller, id)
        // The draft compiled above is the one published only while its revision is still current.
        if (design.revision !== before.revision) {
          return yield* Effect.fail(new RevisionConflict({ id, expected: expectedRevision, current: design.revision }))
        }
        // An application template freezes its brand (the bound one, else the account's default, else the default
        // theme) into the release; account templates read theirs live at each send.
        const frozen = isApplicationTemplate(design) ? yield* liveTheme(store, design.accountId, design.brandId) : null
        return yield* release(design, yield* publishDraft(design, expectedRevision, compiled, frozen, at))
      }))
    })

    const releases = method("Designs.releases")(function* (caller: DesignCaller, id: string) {
      yield* studio(caller)
      const design = yield* find(caller, id)
      return yield* store.designs.listReleases(caller.account.id, design.id)
    })

    const findRelease = (caller: DesignCaller, design: Design, version: number) =>
      store.designs.findRelease(caller.account.id, design.id, version).pipe(
        orFailWith(() => new ValidationFailed({ field: "version", detail: `template ${design.id} has no release ${version}` })),
      )

    const releaseAt = method("Designs.releaseAt")(function* (caller: DesignCaller, id: string, version: number) {
      yield* studio(caller)
      return yield* findRelease(caller, yield* find(caller, id), version)
    })

    /** Copies an earlier version's content into a new release with the next version; the draft is left alone. */
    const rollback = method("Designs.rollback")(function* (caller: DesignCaller, id: string, version: number) {
      yield* studio(caller)
      const at = yield* currentDate
      return yield* store.transaction(Effect.gen(function* () {
        const design = yield* find(caller, id)
        const earlier = yield* findRelease(caller, design, version)
        return yield* release(design, rollbackTo(design, earlier, at))
      }))
    })

    const lifecycle = method("Designs.lifecycle")(function* (caller: DesignCaller, id: string, input: LifecycleInput) {
      yield* studio(caller)
      const at = yield* currentDate
      return yield* store.transaction(Effect.gen(function* () {
        const design = yield* find(caller, id)
        let replacementId: DesignId | null = null
        if (input.action === "retire" && input.replacementId !== undefined && input.replacementId !== null) {
          if (input.replacementId === design.id) {
            return yield* Effect.fail(new ValidationFailed({ field: "replacementId", detail: "a template cannot replace itself" }))
          }
          replacementId = (yield* find(caller, input.replacementId)).id
        }
        return yield* save(design, changeLifecycle(design, input.action, replacementId, at))
      }))
    })

    /** Binds a brand (or none). Account templates read it live; application templates freeze it at their next publish. */
    const bindBrand = method("Designs.bindBrand")(function* (caller: DesignCaller, id: string, input: typeof BindBrandInput.Type) {
      yield* studio(caller)
      const at = yield* currentDate
      return yield* store.transaction(Effect.gen(function* () {
        const design = yield* find(caller, id)
        if (input.brandId !== null) yield* bindable(caller, design.applicationKey, input.brandId)
        return yield* save(design, { ...design, brandId: input.brandId, updatedAt: at })
      }))
    })

    /** Renders the draft, the live release or a version, with the variables given or the schema's examples. */
    const preview = method("Designs.preview")(function* (caller: DesignCaller, id: string, input: PreviewInput) {
      yield* studio(caller)
      const design = yield* find(caller, id)
      const engine = yield* TemplateEngine
      let content: { cacheKey: string; compiled: CompiledContent; draft: DesignDraft; brand: unknown; live: boolean }
      if (input.version !== undefined || input.source === "live") {
        const version = input.version ?? design.liveVersion
        if (version === null) {
          return yield* Effect.fail(new ValidationFailed({ field: "source", detail: `template ${design.id} has no live release yet; preview its draft` }))
        }
        const stored = yield* findRelease(caller, design, version)
        content = { cacheKey: releaseCacheKey(stored), compiled: stored.compiled, draft: stored.content, brand: stored.brand, live: false }
      } else {
        // A draft is compiled for its preview only; its cache key names the revision, which no other content shares.
        content = { cacheKey: `${design.id}#r${design.revision}`, compiled: yield* prepare(design.draft), draft: design.draft, brand: null, live: true }
      }
      // brandId previews another brand; a draft shows the brand its next release (or send) would use; a release the
      // brand it renders with (frozen for an application template, live for an account template).
      const theme = input.brandId !== undefined
        ? themeOf(yield* bindable(caller, design.applicationKey, input.brandId))
        : content.live ? yield* liveTheme(store, design.accountId, design.brandId) : yield* themeForRelease(store, design, content)
      const rendered = yield* engine.render(
        { cacheKey: content.cacheKey, subject: content.compiled.subject, html: content.compiled.html, text: content.compiled.text },
        { variables: sampleValues(content.draft, input.variables, input.sample), theme: theme as unknown as Readonly<Record<string, unknown>> },
        { mode: renderModeOf(design), declared: content.draft.variables },
      )
      return { ...rendered, brandId: input.brandId ?? design.brandId }
    })

    const usage = method("Designs.usage")(function* (caller: DesignCaller, id: string) {
      yield* studio(caller)
      const design = yield* find(caller, id)
      const campaigns = yield* store.campaigns.using(caller.account.id, { kind: "design", id: design.id })
      return {
        sends: yield* store.designs.countSends(caller.account.id, design.id),
        campaigns: campaigns.map((c) => ({ id: c.id, name: c.name, status: c.status, createdAt: c.createdAt.toISOString() })),
      }
    })

    /** GET /designs/{id}/deliveries: the messages sent through the template, newest first, each with its status,
     *  recipients and events, `limit` to a page after the message id `before`. */
    const deliveries = method("Designs.deliveries")(function* (
      caller: DesignCaller,
      id: string,
      page: { readonly before?: string | undefined; readonly limit: number },
    ) {
      yield* studio(caller)
      const design = yield* find(caller, id)
      const sent = yield* store.designs.sends(caller.account.id, design.id, { before: page.before, limit: page.limit + 1 })
      const shown = sent.slice(0, page.limit)
      const details = yield* Effect.forEach(shown, (messageId) => Effect.gen(function* () {
        const found = yield* store.messages.findById(caller.account.id, messageId)
        if (Option.isNone(found)) return []
        const events = yield* store.messages.events(caller.account.id, messageId)
        const message = found.value
        return [{ message, status: messageStatus(message.state, message.recipients), events } satisfies MessageDetails]
      }))
      return { deliveries: details.flat(), nextAfter: sent.length > page.limit ? shown[shown.length - 1]! : null }
    })

    /** GET /capabilities: the plan's Studio capacity, with the templates the account holds. */
    const capacity = method("Designs.capacity")(function* (caller: DesignCaller) {
      const limits = planLimits[caller.account.plan]
      return {
        plan: caller.account.plan,
        studio: limits.studioTemplates !== 0,
        templates: { used: yield* store.designs.count(caller.account.id), allowed: limits.studioTemplates },
        brands: { allowed: limits.studioBrands },
      }
    })

    return {
      capacity, create, list, get, replace, remove, publish, releases, releaseAt, rollback, lifecycle, bindBrand, preview, usage, find,
      deliveries,
    } as const
  }),
}) {}
