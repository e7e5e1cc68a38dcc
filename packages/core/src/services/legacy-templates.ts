/** The deprecated /templates API over the Designs service: every legacy template is the design with the same id under
 *  the application key `account`. Reads show the live release; writes publish at once; render keeps unresolved
 *  variables as the literal `{{name}}`; a test send is a real send that counts against the monthly quota. Spec: sending
 *  "Legacy template", "Legacy templates (deprecated)", "Versioning" 4. */
import { Effect } from "effect"
import type { Account } from "../domain/account.js"
import {
  accountApplicationKey, type Design, type DesignId, designLimits, oversizedBody, releaseCacheKey,
} from "../domain/design.js"
import {
  type CreateLegacyTemplateInput, createdDraft, hasLegacyBody, type LegacyTemplate, type LegacyTemplateListParams,
  matchesLegacySearch, type TestLegacyTemplateInput, toLegacyTemplate, type UpdateLegacyTemplateInput, updatedDraft,
} from "../domain/legacy-template.js"
import { offsetOf } from "../domain/paging.js"
import { PayloadTooLarge, ValidationFailed } from "../errors.js"
import { currentDate } from "../internal/time.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import { TemplateEngine } from "../ports/template-engine.js"
import { TemplateNotFound } from "../template-errors.js"
import { type DesignCaller, Designs } from "./designs.js"
import { Sending } from "./sending.js"
import { serviceMethod } from "./tracing.js"

/** Designs read per step while a list walks the account's templates. */
const listChunk = 500

export interface LegacyTemplatePage {
  readonly templates: ReadonlyArray<LegacyTemplate>
  readonly total: number
}

export class LegacyTemplates extends Effect.Service<LegacyTemplates>()("@mailroom/core/LegacyTemplates", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const designs = yield* Designs
    const sending = yield* Sending
    const method = yield* serviceMethod

    const callerOf = (account: Account): DesignCaller => ({ account, application: null, surface: "legacy" })

    /** Each html or text body at most 1 MiB, named as the legacy body names it (the designs name `draft.html`). */
    const checkBodies = (fields: { readonly html?: string | null | undefined; readonly text?: string | null | undefined }) => {
      const oversized = oversizedBody(fields)
      return oversized === undefined
        ? Effect.void
        : Effect.fail(new PayloadTooLarge({ limitBytes: designLimits.bodyBytes, field: oversized }))
    }

    /** The account's legacy template: a design of the application key `account` with a live release. Any other design
     *  (another application's, or one never published) answers as not found. */
    const live = (account: Account, id: string) =>
      Effect.gen(function* () {
        const design = yield* designs.find(callerOf(account), id)
        if (design.applicationKey !== accountApplicationKey || design.liveVersion === null) {
          return yield* Effect.fail(new TemplateNotFound({ id }))
        }
        const release = yield* designs.releaseAt(callerOf(account), id, design.liveVersion)
        return { design, release }
      })

    const view = (account: Account, id: string) =>
      Effect.map(live(account, id), ({ design, release }) => toLegacyTemplate(design, release))

    /** Every design of the application key `account`, newest first, walked in chunks. */
    const accountDesigns = (account: Account) =>
      Effect.gen(function* () {
        const all: Array<Design> = []
        let after: string | undefined
        for (;;) {
          const chunk = yield* store.designs.list(account.id, { applicationKey: accountApplicationKey, after, limit: listChunk })
          all.push(...chunk)
          if (chunk.length < listChunk) return all
          after = chunk[chunk.length - 1]!.id
        }
      })

    /** GET /templates: the account's published templates, newest first, searched by name (of the live release). */
    const list = method("LegacyTemplates.list")(function* (account: Account, params: LegacyTemplateListParams) {
      const published = (yield* accountDesigns(account)).filter((design) => design.liveVersion !== null)
      const templates: Array<LegacyTemplate> = []
      for (const design of published) {
        const release = yield* designs.releaseAt(callerOf(account), design.id, design.liveVersion!)
        const template = toLegacyTemplate(design, release)
        if (matchesLegacySearch(template, params.search)) templates.push(template)
      }
      const start = offsetOf(params)
      return { templates: templates.slice(start, start + params.limit), total: templates.length } satisfies LegacyTemplatePage
    })

    const get = method("LegacyTemplates.get")(function* (account: Account, id: string) {
      return yield* view(account, id)
    })

    /** POST /templates: a design whose id is also its key, published as release 1, in one transaction. */
    const create = method("LegacyTemplates.create")(function* (account: Account, input: CreateLegacyTemplateInput) {
      const caller = callerOf(account)
      yield* checkBodies(input)
      const id = ids.make("design", yield* currentDate) as DesignId
      yield* store.transaction(Effect.gen(function* () {
        const design = yield* designs.create(
          caller,
          { key: id, locale: "en", draft: createdDraft(input), brandId: input.themeId ?? null },
          { id },
        )
        yield* designs.publish(caller, design.id, design.revision)
      }))
      return yield* view(account, id)
    })

    /** PUT /templates/{id}: the live content with the fields given becomes the draft and is published at once; a
     *  themeId given binds that brand (null unbinds) before the publish, so the release records it. */
    const update = method("LegacyTemplates.update")(function* (account: Account, id: string, input: UpdateLegacyTemplateInput) {
      const caller = callerOf(account)
      yield* checkBodies(input)
      yield* store.transaction(Effect.gen(function* () {
        const { design, release } = yield* live(account, id)
        const draft = updatedDraft(release.content, input)
        if (!hasLegacyBody(draft)) {
          return yield* Effect.fail(new ValidationFailed({ field: "html", detail: "a template keeps at least one of html and text" }))
        }
        const replaced = yield* designs.replace(caller, id, { expectedRevision: design.revision, draft })
        if (input.themeId !== undefined) yield* designs.bindBrand(caller, id, { brandId: input.themeId })
        yield* designs.publish(caller, id, replaced.revision)
      }))
      return yield* view(account, id)
    })

    /** DELETE /templates/{id}: the design goes with its releases, whether or not it sent; later sends naming the id
     *  find no template (TEMPLATE_NOT_FOUND). */
    const remove = method("LegacyTemplates.remove")(function* (account: Account, id: string) {
      yield* live(account, id)
      return yield* designs.remove(callerOf(account), id)
    })

    /** POST /templates/{id}/render: the live release with `variables`; a variable not given stays as `{{name}}`. */
    const render = method("LegacyTemplates.render")(function* (
      account: Account,
      id: string,
      variables: Readonly<Record<string, string>>,
    ) {
      const { release } = yield* live(account, id)
      const engine = yield* TemplateEngine
      const rendered = yield* engine.render(
        { cacheKey: releaseCacheKey(release), ...release.compiled },
        { variables },
        { mode: "legacy" },
      )
      return { subject: rendered.subject, html: release.compiled.html === "" ? null : rendered.html, text: rendered.text }
    })

    /** POST /templates/{id}/test: sends the live release to one address through the sending pipeline, so it reaches
     *  the relay (or the dev outbox) and reserves quota like any send (QUOTA_EXCEEDED when the month is used up). It is a
     *  send by templateId, so the message and its events name the template and the release that went out. */
    const test = method("LegacyTemplates.test")(function* (account: Account, id: string, input: TestLegacyTemplateInput) {
      const { design } = yield* live(account, id)
      const sent = yield* sending.send(account, {
        from: input.from,
        to: [{ email: input.to }],
        content: { templateId: design.id },
        variables: input.variables,
      })
      return { id: sent.id, status: sent.status, templateId: design.id }
    })

    return { list, get, create, update, remove, render, test } as const
  }),
}) {}
