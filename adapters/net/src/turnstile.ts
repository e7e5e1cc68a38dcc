/** The BotChallenge port over Cloudflare Turnstile's siteverify API: the answer of the widget (`cf-turnstile-response`)
 *  is posted with the secret key and the client's address; `success: true` passes. The verify URL can be pointed
 *  elsewhere (a local stub in tests, a proxy). https://developers.cloudflare.com/turnstile/get-started/server-side-validation/ */
import { BotChallenge, BotChallengeError, type BotChallengeService } from "@mailroom/core"
import { Effect, Layer } from "effect"

export interface TurnstileOptions {
  readonly siteKey: string
  readonly secretKey: string
  /** Default: Cloudflare's siteverify endpoint. */
  readonly verifyUrl?: string | undefined
  /** Default 10 seconds. */
  readonly timeoutMs?: number | undefined
}

export const turnstileVerifyUrl = "https://challenges.cloudflare.com/turnstile/v0/siteverify"
const widgetOrigin = "https://challenges.cloudflare.com"

/** Answers longer than this are refused without asking (Turnstile's tokens are at most 2048 characters). */
const maxAnswerLength = 2048

export const makeTurnstile = (options: TurnstileOptions): BotChallengeService => ({
  provider: "turnstile",
  widget: {
    siteKey: options.siteKey,
    scriptUrl: `${widgetOrigin}/turnstile/v0/api.js`,
    origin: widgetOrigin,
    className: "cf-turnstile",
    fieldName: "cf-turnstile-response",
  },
  verify: (answer, remoteIp) => {
    if (answer === "" || answer.length > maxAnswerLength) return Effect.succeed(false)
    const body = new URLSearchParams({ secret: options.secretKey, response: answer })
    if (remoteIp !== null) body.set("remoteip", remoteIp)
    return Effect.tryPromise({
      try: async (signal) => {
        const response = await fetch(options.verifyUrl ?? turnstileVerifyUrl, {
          method: "POST",
          body,
          signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs ?? 10_000)]),
        })
        if (!response.ok) throw new Error(`siteverify answered ${response.status}`)
        const result = await response.json() as { success?: unknown }
        if (typeof result.success !== "boolean") throw new Error("siteverify answered without success")
        return result.success
      },
      catch: (cause) => new BotChallengeError({ detail: cause instanceof Error ? cause.message : String(cause) }),
    })
  },
})

/** Provides Turnstile as the BotChallenge verifier. */
export const TurnstileChallenge = {
  layer: (options: TurnstileOptions) => Layer.succeed(BotChallenge, { verifier: makeTurnstile(options) }),
}
