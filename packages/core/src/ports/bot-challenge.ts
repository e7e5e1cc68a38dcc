/** The BotChallenge port: checks the answer a signup form's bot-challenge widget (Cloudflare Turnstile, hCaptcha,
 *  reCAPTCHA …) put in the submission. Optional: without one, forms rely on their honeypot, allowed origins and rate
 *  limits. Engine: @mailroom/net's Turnstile adapter. docs/forms.md, "Bot challenge". */
import { Context, type Effect, Schema } from "effect"

/** What the hosted form page needs to show the provider's widget. */
export interface ChallengeWidgetSettings {
  readonly siteKey: string
  /** The provider's widget script, and the origin its script and frames come from (the page's CSP allows it). */
  readonly scriptUrl: string
  readonly origin: string
  /** The class of the element the script turns into the widget. */
  readonly className: string
  /** The form field the widget posts its answer in. */
  readonly fieldName: string
}

/** The provider could not be asked (network, timeout, an answer that does not parse). Submissions fail closed. */
export class BotChallengeError extends Schema.TaggedError<BotChallengeError>()("BotChallengeError", {
  detail: Schema.String,
}) {
  override get message() { return `the bot challenge could not be verified: ${this.detail}` }
}

export interface BotChallengeService {
  readonly provider: string
  readonly widget: ChallengeWidgetSettings
  /** Whether the provider accepts `answer` from the client at `remoteIp` (passed on when known). */
  readonly verify: (answer: string, remoteIp: string | null) => Effect.Effect<boolean, BotChallengeError>
}

/** The configured verifier, or none (the default): forms then show and ask for no challenge. */
export class BotChallenge extends Context.Reference<BotChallenge>()("@mailroom/core/BotChallenge", {
  defaultValue: (): { readonly verifier: BotChallengeService | undefined } => ({ verifier: undefined }),
}) {}
