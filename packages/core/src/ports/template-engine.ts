/** The TemplateEngine port: the `handlebars-email-v2` engine that checks and compiles a design's source when a draft is
 *  saved or published, and renders a release's content when it is sent or previewed. Spec: sending "Design (Studio
 *  template)", "Legacy templates (deprecated)", sending rules 5 and 6. The engine lives in @mailroom/templates (core
 *  imports no template or MJML library); services depend on this tag only. */
import { Context, type Effect } from "effect"
import type {
  CompiledTemplateTooLarge, InvalidTemplateSyntax, MissingTemplateVariables, MistypedTemplateVariables,
  MjmlCompileTimedOut, PayloadTooLarge, TemplateEngineError, UnknownTemplateVariables, UnsafeTemplateMarkup,
  ValidationFailed,
} from "../errors.js"

/** The engine tag recorded on every release. Spec: "Versioning" 5. */
export const templateEngineTag = "handlebars-email-v2"

/** A design's source as its draft holds it. `html` is MJML when `format` is "mjml". */
export interface TemplateSource {
  readonly format: "html" | "mjml"
  readonly subject: string
  readonly html: string
  /** The text part; null derives it from the rendered html at send time. */
  readonly text: string | null
}

/** What a release stores: the source checked, MJML compiled to HTML (Handlebars expressions kept for send time). */
export interface PreparedTemplate {
  readonly engine: typeof templateEngineTag
  readonly subject: string
  /** HTML with its Handlebars expressions: the MJML output, or the html source as it was given (never rewritten). */
  readonly html: string
  readonly text: string | null
  /** The top-level variable names the subject, html and text read, sorted (case-sensitive; `theme`,
   *  `unsubscribe_url` and `preferences_url` are the pipeline's and are not listed). Legacy templates report these as
   *  their `variables`. */
  readonly variables: ReadonlyArray<string>
}

/** The content a release renders from: what `prepare` returned, stored. `cacheKey` identifies the content for as long
 *  as it exists (the release id): the engine compiles each key once and keeps a bounded number of them. */
export interface ReleaseContent {
  readonly cacheKey: string
  readonly subject: string
  readonly html: string
  readonly text: string | null
}

/** One declared variable of a design's schema (spec: "Design (Studio template)", draft.variables). Only the fields the
 *  engine reads are listed, so the designs' own Schema type is assignable to it. */
export interface DeclaredVariable {
  readonly type?: string | undefined
  readonly required?: boolean | undefined
  readonly format?: string | undefined
}
export type DeclaredVariables = Readonly<Record<string, DeclaredVariable>>

/** - lenient (account templates): a missing variable renders empty, an extra one is ignored;
 *  - strict (application templates): every required variable must be given and no undeclared one may be; without a
 *    declared schema, every variable the template reads is required;
 *  - legacy (the /templates render route): like lenient, but a variable that is not given stays as the literal
 *    `{{name}}`. */
export type RenderMode = "lenient" | "strict" | "legacy"

export interface RenderValues {
  /** The caller's variables (send body, batch recipient, preview sample). */
  readonly variables: Readonly<Record<string, unknown>>
  /** The brand, read by the template as `{{theme.*}}`: live for account templates, frozen in the release for
   *  application templates (the caller picks which). */
  readonly theme?: Readonly<Record<string, unknown>> | undefined
  /** Values the pipeline fills, as for inline content today: `unsubscribe_url`, `preferences_url` (marketing mail),
   *  `confirm_url` (confirmation mail). They win over variables of the same names and are never "unknown". */
  readonly pipeline?: Readonly<Record<string, string>> | undefined
}

export interface RenderOptions {
  readonly mode: RenderMode
  /** The design's variable schema; strict mode checks presence and types against it. */
  readonly declared?: DeclaredVariables | undefined
}

export interface RenderedTemplate {
  /** One header line: line breaks a value brought in become spaces. */
  readonly subject: string
  readonly html: string
  /** The text source rendered (values not escaped), or text derived from the rendered html when the release has none. */
  readonly text: string
}

/** The source refusals of `prepare`, each naming what was found and where. */
export type TemplateSourceError =
  | UnsafeTemplateMarkup | InvalidTemplateSyntax | MjmlCompileTimedOut | PayloadTooLarge | CompiledTemplateTooLarge

/** The refusals of `render`. ValidationFailed: a value that starts a URL attribute (`href="{{url}}"`) is a
 *  `javascript:` (or other unsafe) URL, field `variables.<name>`; or a part failed at run time. */
export type TemplateRenderError =
  | MissingTemplateVariables | UnknownTemplateVariables | MistypedTemplateVariables | ValidationFailed

/** Content written into a send request (`content.subject`, `html`, `text`): rendered with the same engine, but not a
 *  release: it is not cached, not markup-checked (it is the caller's own markup) and never strict. */
export interface InlineContent {
  readonly subject: string
  readonly html?: string | undefined
  readonly text?: string | undefined
}

export interface RenderedInline {
  readonly subject: string
  /** Undefined when the content has no html. */
  readonly html: string | undefined
  readonly text: string
}

export interface TemplateEngineService {
  /** Checks and compiles a draft's source: called when a draft is saved and when it is published, never per send.
   *  - size: the html (or MJML) source over 2 MiB fails with PayloadTooLarge (field `html`);
   *  - markup checks on the source (and on the MJML output): script, iframe, form, on* event attributes and
   *    `javascript:` URLs in any spelling fail with UnsafeTemplateMarkup naming each finding with its line, column and
   *    element path; Outlook conditional comments are looked into and kept; the source is never rewritten;
   *  - MJML is compiled in a worker thread with file includes disabled; a compile that runs past the deadline (5 s) is
   *    terminated and fails with MjmlCompileTimedOut; an MJML error fails with InvalidTemplateSyntax naming the line;
   *    output over 4 MiB fails with CompiledTemplateTooLarge;
   *  - the subject, html and text are parsed as Handlebars once: a syntax error fails with InvalidTemplateSyntax naming
   *    the part and line. Nothing is stored or cached by this call. */
  readonly prepare: (source: TemplateSource) => Effect.Effect<PreparedTemplate, TemplateSourceError | TemplateEngineError>
  /** Renders a release's content. Compiled once per `cacheKey` (bounded cache, least recently used goes first), never
   *  per send. Values are escaped in the html and kept as they are in the subject and text; names are case-sensitive.
   *  Strict mode fails with MissingTemplateVariables naming every absent required variable, UnknownTemplateVariables
   *  naming every undeclared one, and MistypedTemplateVariables naming each value of the wrong type; the other modes
   *  never fail on missing or extra variables. In every mode a value starting a URL attribute of the html must not be
   *  an unsafe URL (ValidationFailed naming it). Prototype properties (`constructor`, `__proto__`) never resolve. */
  readonly render: (
    release: ReleaseContent,
    values: RenderValues,
    options: RenderOptions,
  ) => Effect.Effect<RenderedTemplate, TemplateRenderError>
  /** Renders inline content (sending rule 6) in the lenient mode, with the environment, escaping and prototype rules of
   *  `render`, compiled for this call only (no release cache entry). A part that does not compile or fails at run time
   *  fails with ValidationFailed naming `${path}subject`, `${path}html` or `${path}text` (path default "content.").
   *  Values that start a URL attribute are not checked here: the html around them is the caller's own. */
  readonly renderInline: (
    content: InlineContent,
    values: RenderValues,
    path?: string,
  ) => Effect.Effect<RenderedInline, ValidationFailed>
}

export class TemplateEngine extends Context.Tag("@mailroom/core/TemplateEngine")<TemplateEngine, TemplateEngineService>() {}
