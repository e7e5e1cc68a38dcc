/** Sending by template: which release a send by templateId uses, and how it renders. Acceptance resolves the template
 *  and renders each message once (so that a missing variable, an unsafe URL value or a retired template is refused
 *  before anything is queued); delivery renders again for each recipient from the release the message recorded, with
 *  the pipeline's values ({{unsubscribe_url}}, {{preferences_url}}, {{confirm_url}}). Both go through the
 *  TemplateEngine port, which compiles a release once (keyed by the release) and never per send. Spec: sending rules 5
 *  and 6, "Design (Studio template)" (account and application templates), "States and transitions" (Design rows). */
import { Effect, Option } from "effect"
import type { AccountId } from "../domain/account.js"
import {
  type Design, type DesignRelease, isApplicationTemplate, releaseCacheKey, releaseTheme, renderModeOf, sendableVersion,
} from "../domain/design.js"
import { themeOf } from "../domain/brand.js"
import { defaultTheme, type Theme } from "../domain/theme.js"
import {
  MissingTemplateVariables, MistypedTemplateVariables, type StoreError, UnknownTemplateVariables, ValidationFailed,
} from "../errors.js"
import { type RenderedTemplate, TemplateEngine } from "../ports/template-engine.js"
import type { Store } from "../ports/store.js"
import { TemplateNotFound } from "../template-errors.js"

/** The application an application credential (svc_app_) reaches, or null for an account key (every application). */
export type TemplateApplication = { readonly key: string; readonly allowedSenders: ReadonlyArray<string> } | null

export interface SendableTemplate {
  readonly design: Design
  readonly release: DesignRelease
  /** What `{{theme.*}}` reads: the brand frozen into an application template's release, or for an account template
   *  its bound brand (else the account's default brand, else defaultTheme) as it is now. */
  readonly theme: Theme
}

/** The brand an account template reads live: the bound brand, else the account's default brand, else defaultTheme.
 *  A bound brand that is gone (it cannot be deleted while bound, but an account may be changed directly) falls back
 *  the same way. */
export const liveTheme = (store: Store["Type"], accountId: AccountId, brandId: string | null) =>
  Effect.gen(function* () {
    const bound = brandId === null ? Option.none() : yield* store.brands.findById(accountId, brandId)
    const brand = Option.isSome(bound) ? bound : yield* store.brands.findDefault(accountId)
    return Option.match(brand, { onNone: () => defaultTheme, onSome: themeOf })
  })

/** The theme a release renders with: frozen for application templates (defaultTheme when the release froze none),
 *  live for account templates. Spec: the account/application table, Brand row. */
export const themeForRelease = (
  store: Store["Type"],
  design: Design,
  release: Pick<DesignRelease, "brand">,
  brandId: string | null = design.brandId,
) =>
  isApplicationTemplate(design)
    ? Effect.succeed(releaseTheme(release) as unknown as Theme)
    : liveTheme(store, design.accountId, brandId)

/** Releases read recently, by account and release: a release never changes once written, so a kept copy is never
 *  stale. It is only looked up after the design itself was read (status and live version always come from the Store),
 *  so a deleted or retired template is never sent from it. */
export const makeReleaseCache = (max = 1_000) => {
  const kept = new Map<string, DesignRelease>()
  return {
    get: (accountId: AccountId, designId: string, version: number) => {
      const key = `${accountId}/${designId}@${version}`
      const release = kept.get(key)
      if (release !== undefined) {
        kept.delete(key)
        kept.set(key, release)
      }
      return release
    },
    put: (release: DesignRelease) => {
      kept.set(`${release.accountId}/${releaseCacheKey(release)}`, release)
      if (kept.size > max) kept.delete(kept.keys().next().value!)
    },
  }
}
export type ReleaseCache = ReturnType<typeof makeReleaseCache>

/** The caller's template and its live release: TEMPLATE_NOT_FOUND for an unknown id, another account's, or (for an
 *  application credential) another application's; TEMPLATE_RETIRED and TEMPLATE_NOT_PUBLISHED as sendableVersion
 *  decides. The design is read every time; its release comes from `cache` when it holds it. */
export const resolveSendable = (
  store: Store["Type"],
  accountId: AccountId,
  application: TemplateApplication,
  id: string,
  cache?: ReleaseCache,
) =>
  Effect.gen(function* () {
    const found = yield* store.designs.findById(accountId, id)
    if (Option.isNone(found) || (application !== null && found.value.applicationKey !== application.key)) {
      return yield* Effect.fail(new TemplateNotFound({ id }))
    }
    const design = found.value
    const version = yield* sendableVersion(design)
    const cached = cache?.get(accountId, design.id, version)
    if (cached !== undefined) return { design, release: cached, theme: yield* themeForRelease(store, design, cached) } satisfies SendableTemplate
    const release = yield* store.designs.findRelease(accountId, design.id, version)
    if (Option.isNone(release)) return yield* Effect.fail(new TemplateNotFound({ id }))
    cache?.put(release.value)
    return { design, release: release.value, theme: yield* themeForRelease(store, design, release.value) } satisfies SendableTemplate
  })

/** Why a message by template cannot be delivered any more, as the reason of its email.dropped: the template was
 *  deleted (its releases with it) or retired since the message was accepted. Undefined when it can be rendered. */
export const undeliverableReason = (
  store: Store["Type"],
  accountId: AccountId,
  use: { readonly id: string; readonly version: number; readonly brandId?: string | undefined },
): Effect.Effect<{ readonly reason: string } | SendableTemplate, StoreError> =>
  Effect.gen(function* () {
    const found = yield* store.designs.findById(accountId, use.id)
    if (Option.isNone(found)) return { reason: "TEMPLATE_NOT_FOUND" }
    if (found.value.status === "retired") return { reason: "TEMPLATE_RETIRED" }
    const release = yield* store.designs.findRelease(accountId, use.id, use.version)
    if (Option.isNone(release)) return { reason: "TEMPLATE_NOT_FOUND" }
    const theme = yield* themeForRelease(store, found.value, release.value, use.brandId ?? found.value.brandId)
    return { design: found.value, release: release.value, theme }
  })

export interface TemplateValues {
  readonly variables: Readonly<Record<string, unknown>>
  /** The pipeline's values (unsubscribe_url, preferences_url, confirm_url): never required, never unknown. */
  readonly pipeline?: Readonly<Record<string, string>> | undefined
  /** The request's subject, overriding the template's (account templates; see subjectOverride). */
  readonly subject?: string | undefined
}

/** Renders a release for one message (or recipient): strict for application templates, lenient for account ones, with
 *  `{{theme.*}}` from the template's theme (themeForRelease). A subject override renders like an inline subject, with the same values. */
export const renderRelease = (template: SendableTemplate, values: TemplateValues) =>
  Effect.gen(function* () {
    const engine = yield* TemplateEngine
    const { design, release } = template
    const rendered: RenderedTemplate = yield* engine.render(
      {
        cacheKey: releaseCacheKey(release),
        subject: release.compiled.subject,
        html: release.compiled.html,
        text: release.compiled.text,
      },
      { variables: values.variables, theme: template.theme as unknown as Readonly<Record<string, unknown>>, pipeline: values.pipeline },
      { mode: renderModeOf(design), declared: release.content.variables },
    )
    if (values.subject === undefined) return rendered
    // Strings, and records of strings (campaign mail's {{contact.*}}), which Handlebars reads by path.
    const flat = (value: unknown) => typeof value === "string"
      || (typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === "string"))
    const strings = Object.fromEntries(Object.entries({ ...values.variables, ...values.pipeline })
      .flatMap(([name, value]) => flat(value) ? [[name, value]] : []))
    const subject = yield* engine.renderInline({ subject: values.subject, text: "" }, { variables: strings })
    return { ...rendered, subject: subject.subject }
  })

/** A render refusal of one batch recipient, naming where its variables came from: `recipients[3].variables` (and
 *  `recipients[3].variables.url` for a value). Other refusals are the whole batch's and pass as they are. */
export const inBatchRecipient = (index: number) => <E>(error: E): E => {
  const field = `recipients[${index}].variables`
  const tagged = error as { readonly _tag?: string; readonly field?: string | undefined }
  switch (tagged._tag) {
    case "MissingTemplateVariables":
      return new MissingTemplateVariables({ ...(error as MissingTemplateVariables), field }) as E
    case "UnknownTemplateVariables":
      return new UnknownTemplateVariables({ ...(error as UnknownTemplateVariables), field }) as E
    case "MistypedTemplateVariables":
      return new MistypedTemplateVariables({ ...(error as MistypedTemplateVariables), field }) as E
    case "ValidationFailed":
      return tagged.field?.startsWith("variables") === true
        ? new ValidationFailed({ ...(error as ValidationFailed), field: `recipients[${index}].${tagged.field}` }) as E
        : error
    default:
      return error
  }
}
