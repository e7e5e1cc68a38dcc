/** The starter gallery: browse (GET /designs/catalog), inspect with a preview (POST /designs/catalog), adopt as a new
 *  draft, in MJML or as blocks (POST /designs/catalog/adopt), and sync an adopted design with its starter (POST
 *  /designs/{id}/sync). Same callers, scopes and plan gate as the designs routes. */
import { Effect } from "effect"
import { checkStudioPlan, type Design, type DesignDraft, type DraftInput, toDraft } from "../domain/design.js"
import type { AdoptStarterInput, SyncInput } from "../domain/gallery-input.js"
import { defaultTheme } from "../domain/theme.js"
import { ResourceNotFound, ValidationFailed } from "../errors.js"
import { findStarter, type Starter, starterSample, starters } from "../gallery/index.js"
import { TemplateEngine } from "../ports/template-engine.js"
import { type DesignCaller, Designs } from "./designs.js"
import { serviceMethod } from "./tracing.js"

/** The draft input a starter gives: MJML and text compiled from its blocks, or, `asBlocks`, the blocks themselves. */
export const starterInput = (starter: Starter, asBlocks: boolean, name?: string): DraftInput => {
  const common = { name: name ?? starter.name, subject: starter.subject, category: starter.category, variables: starter.variables }
  if (asBlocks) return { ...common, blocks: starter.blocks, preheader: starter.preheader }
  const draft = toDraft({ ...common, blocks: starter.blocks, preheader: starter.preheader }, starter.locale)
  return { ...common, format: "mjml", html: draft.html, text: draft.text }
}

/** The parts of a draft a sync compares, by name. */
const comparedFields = ["name", "subject", "html", "text", "category", "variables", "blocks"] as const
/** JSON with object keys sorted, so that a draft read back from a store compares equal to the same draft built here. */
const canonical = (value: unknown): string => JSON.stringify(value, (_key, inner: unknown) =>
  typeof inner === "object" && inner !== null && !Array.isArray(inner)
    ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : inner)
const differences = (current: DesignDraft, source: DesignDraft) =>
  comparedFields.filter((field) => canonical(current[field] ?? null) !== canonical(source[field] ?? null))

/** A catalog entry as GET /designs/catalog lists it. */
export const catalogEntry = (starter: Starter) => ({
  key: starter.key,
  name: starter.name,
  description: starter.description,
  category: starter.category,
  version: starter.version,
  locale: starter.locale,
  subject: starter.subject,
  variables: starter.variables,
  sampleData: starterSample(starter),
})

export class Gallery extends Effect.Service<Gallery>()("@mailroom/core/Gallery", {
  effect: Effect.gen(function* () {
    const designs = yield* Designs
    const method = yield* serviceMethod

    const starterOf = (key: string, field: string) => {
      const starter = findStarter(key)
      return starter === undefined
        ? Effect.fail(new ValidationFailed({ field, detail: `${key} is not a starter of the gallery; GET /designs/catalog lists them` }))
        : Effect.succeed(starter)
    }

    const catalog = method("Gallery.catalog")(function* (caller: DesignCaller, filters: { readonly category?: string | undefined }) {
      yield* checkStudioPlan(caller.account.plan)
      return starters.filter((starter) => filters.category === undefined || starter.category === filters.category).map(catalogEntry)
    })

    /** One starter with its source (MJML, text, blocks) and a preview rendered with its sample data in the default
     *  theme (values given win over the samples). */
    const inspect = method("Gallery.inspect")(function* (
      caller: DesignCaller,
      input: { readonly key: string; readonly variables: Readonly<Record<string, unknown>> },
    ) {
      yield* checkStudioPlan(caller.account.plan)
      const starter = findStarter(input.key)
      if (starter === undefined) return yield* Effect.fail(new ResourceNotFound({ resource: "starter", id: input.key }))
      const draft = toDraft(starterInput(starter, false), starter.locale)
      const engine = yield* TemplateEngine
      const { engine: _tag, ...compiled } = yield* engine.prepare({ format: "mjml", subject: draft.subject, html: draft.html, text: draft.text })
      const preview = yield* engine.render(
        { cacheKey: `starter:${starter.key}@${starter.version}`, ...compiled },
        { variables: { ...starterSample(starter), ...input.variables }, theme: defaultTheme as unknown as Readonly<Record<string, unknown>> },
        { mode: "lenient", declared: starter.variables },
      )
      return { ...catalogEntry(starter), preheader: starter.preheader, mjml: draft.html, text: draft.text, blocks: starter.blocks, preview }
    })

    /** A new draft from a starter; its source (starter and version) is kept for sync. */
    const adopt = method("Gallery.adopt")(function* (caller: DesignCaller, input: AdoptStarterInput) {
      const starter = yield* starterOf(input.starter, "starter")
      return yield* designs.create(caller, {
        applicationKey: input.applicationKey,
        key: input.key ?? starter.key,
        locale: input.locale,
        draft: starterInput(starter, input.asBlocks, input.name),
      }, { source: { starter: starter.key, version: starter.version } })
    })

    /** Compares an adopted design's draft with its starter's current content (in the design's form: blocks or MJML);
     *  with `apply`, the starter's content becomes a new draft revision (the name the team gave is kept). */
    const sync = method("Gallery.sync")(function* (caller: DesignCaller, id: string, input: SyncInput) {
      const design: Design = yield* designs.get(caller, id)
      if (design.source === null) {
        return yield* Effect.fail(new ValidationFailed({ field: "id", detail: `template ${design.id} was not adopted from the gallery; only adopted templates sync` }))
      }
      const starter = yield* starterOf(design.source.starter, "source")
      const asBlocks = design.draft.blocks !== undefined
      const sourceInput = starterInput(starter, asBlocks, design.draft.name)
      const sourceDraft = toDraft(sourceInput, design.locale)
      const changed = differences(design.draft, sourceDraft)
      const comparison = {
        starter: starter.key,
        adoptedVersion: design.source.version,
        currentVersion: starter.version,
        behind: design.source.version < starter.version,
        changed,
        applied: false,
      }
      if (!input.apply) return { ...comparison, design }
      const updated = yield* designs.replace(caller, id, { expectedRevision: input.expectedRevision!, draft: sourceInput }, {
        source: { starter: starter.key, version: starter.version },
      })
      return { ...comparison, applied: true, design: updated }
    })

    return { catalog, inspect, adopt, sync } as const
  }),
}) {}
