/** The public side of signup forms (docs/forms.md): the hosted page GET /f/{id} and POST /v1/forms/{id}/submit with its
 *  CORS preflight. No API key: the form id is public, and the guards are the form's allowed origins, a honeypot field,
 *  per-IP and per-address rate limits and, when the host configured one, a bot challenge, all checked by core's
 *  FormSignups, which subscribes the address through the same steps as the Subscriptions API, so it follows the same
 *  rules and fires the same events. This module reads the request (origin, body, client address), counts the rate
 *  limits with the host's limiters and answers. Answers: JSON for fetch callers (Accept: application/json, or a JSON body), a 303 redirect for plain form
 *  posts; every accepted submission gets the same answer, whether or not the address was known. */
import { BotChallenge, FormSignups, Forms, LinksConfig, type MailroomError, ResourceNotFound, ValidationFailed } from "@mailroom/core"
import { Cause, Effect, Exit, Option } from "effect"
import { Hono, type Context } from "hono"
import { readBody } from "../body.js"
import type { MailroomEnv } from "../env.js"
import { errorResponse } from "../errors.js"
import { accountLook } from "../pages/brand-look.js"
import { formLinks, formPage, type ChallengeWidget, honeypotField, submittedMessage } from "../pages/form-page.js"
import { html } from "../pages/html.js"
import { notice, pageResponse, type PageTheme } from "../pages/layout.js"
import { consumeLimit } from "../rate-limit.js"

/** A submission's body: a handful of short fields. */
export const formSubmissionLimitBytes = 32 * 1024

type Ctx = Context<MailroomEnv>

/** The origin the request came from: its Origin header, or the origin of its Referer when a browser sent no Origin. */
const requestOrigin = (c: Ctx): string | null => {
  const origin = c.req.header("origin")
  if (origin !== undefined && origin !== "null") return origin
  const referer = c.req.header("referer")
  if (referer === undefined) return null
  try {
    return new URL(referer).origin
  } catch {
    return null
  }
}

const corsHeaders = (origin: string): Record<string, string> => ({
  "access-control-allow-origin": origin,
  "vary": "Origin",
})

/** Whether the caller wants JSON: fetch callers send Accept: application/json or a JSON body; a plain form post sends
 *  neither. */
const wantsJson = (c: Ctx) =>
  (c.req.header("accept") ?? "").includes("application/json") ||
  (c.req.header("content-type") ?? "").includes("application/json")

/** The name/value pairs of a form post (urlencoded or multipart) or of a JSON object of strings, numbers and booleans. */
const readEntries = (c: Ctx) =>
  Effect.gen(function* () {
    const bytes = yield* readBody(c.req.raw, formSubmissionLimitBytes)
    const type = (c.req.header("content-type") ?? "").toLowerCase()
    const text = new TextDecoder().decode(bytes)
    if (type.includes("application/json")) {
      const parsed = yield* Effect.try({
        try: () => JSON.parse(text) as unknown,
        catch: () => new ValidationFailed({ detail: "the request body is not valid JSON" }),
      })
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        return yield* Effect.fail(new ValidationFailed({ detail: "the request body must be a JSON object" }))
      }
      const entries: Array<readonly [string, string]> = []
      for (const [name, value] of Object.entries(parsed)) {
        if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
          return yield* Effect.fail(new ValidationFailed({ field: name.slice(0, 50), detail: "must be a string, number or boolean" }))
        }
        entries.push([name, String(value)])
      }
      return entries
    }
    if (type.includes("multipart/form-data")) {
      const data = yield* Effect.tryPromise({
        try: () => new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": type } }).formData(),
        catch: () => new ValidationFailed({ detail: "the form data does not parse" }),
      })
      const entries: Array<readonly [string, string]> = []
      for (const [name, value] of data.entries()) {
        if (typeof value !== "string") return yield* Effect.fail(new ValidationFailed({ field: name.slice(0, 50), detail: "files are not accepted" }))
        entries.push([name, value])
      }
      return entries
    }
    return [...new URLSearchParams(text).entries()] as Array<readonly [string, string]>
  })

export interface PublicFormOptions {
  readonly theme: PageTheme
}

export const publicFormRoutes = (options: PublicFormOptions) => {
  const { theme } = options

  const challengeWidget = Effect.map(BotChallenge, ({ verifier }): ChallengeWidget | undefined => verifier?.widget)

  /** The form and its links, or RESOURCE_NOT_FOUND. */
  const loadForm = (id: string) =>
    Effect.gen(function* () {
      const form = yield* (yield* Forms).findPublic(id)
      const links = formLinks((yield* LinksConfig).appUrl, form)
      return { form, links, ownOrigin: new URL(links.pageUrl).origin }
    })

  /** Submits through FormSignups, which checks the origin, the honeypot, the fields and the challenge; the limiters
   *  and the body are this layer's. What was received is kept in `received`, for the page that shows the form again. */
  const submit = (c: Ctx, id: string, received: Array<readonly [string, string]>) =>
    Effect.gen(function* () {
      const limiters = c.get("limiters")
      const ip = c.get("clientAddress")
      const form = yield* (yield* FormSignups).submit(id, {
        origin: requestOrigin(c),
        clientAddress: ip,
        userAgent: c.req.header("user-agent"),
        limitPerIp: consumeLimit(limiters.formSubmissionsPerIp, ip ?? "unknown"),
        entries: Effect.tap(readEntries(c), (entries) => {
          received.push(...entries)
        }),
        limitPerAddress: (key) => consumeLimit(limiters.formSubmissionsPerAddress, key),
      })
      return { form, links: formLinks((yield* LinksConfig).appUrl, form) }
    })

  /** A plain post that was refused: the form again with the problem (and what was typed, escaped), or a short page. */
  const refusalPage = async (
    c: Ctx,
    id: string,
    error: AnswerableError,
    origin: string | null,
    received: ReadonlyArray<readonly [string, string]>,
  ): Promise<Response> => {
    if (error._tag === "ValidationFailed" || error._tag === "PayloadTooLarge") {
      const exit = await c.get("runExit")(Effect.gen(function* () {
        const { form, links, ownOrigin } = yield* loadForm(id)
        // Only the hosted page shows the form again; a post from a host's page gets a short page.
        if (origin !== ownOrigin) return undefined
        const values = Object.fromEntries(received.filter(([name]) => name !== honeypotField))
        return formPage(form, { theme: (yield* accountLook(theme, form.accountId)).theme, links, status: 400, error: error.message, values, challenge: yield* challengeWidget })
      }))
      if (Exit.isSuccess(exit) && exit.value !== undefined) return exit.value
    }
    const status = errorResponse(error).status
    const text = error._tag === "OriginNotAllowed"
      ? "This form cannot be submitted from the page you used."
      : error._tag === "RateLimitExceeded"
        ? "Too many attempts. Please wait a moment and try again."
        : error._tag === "ResourceNotFound"
          ? "This form does not exist (any more)."
          : `The form could not be sent: ${error.message}`
    return pageResponse({
      title: "Signup",
      status,
      theme,
      body: html`<h1>Signup</h1>${notice("error", text)}${error._tag !== "ResourceNotFound" && html`<p><a href="${`/f/${id}`}">Open the signup form</a></p>`}`,
      ...(error._tag === "RateLimitExceeded" ? { headers: { "retry-after": String(error.retryAfter) } } : {}),
    })
  }

  const notFoundPage = (cause: Cause.Cause<unknown>): Response | undefined => {
    const failure = Cause.failureOption(cause)
    if (Option.isNone(failure) || !(failure.value instanceof ResourceNotFound)) return undefined
    return pageResponse({
      title: "Form not found", status: 404, theme,
      body: html`<h1>Form not found</h1>${notice("error", "This form does not exist (any more).")}`,
    })
  }

  return new Hono<MailroomEnv>()
    .get("/f/:id", async (c) => {
      const exit = await c.get("runExit")(Effect.gen(function* () {
        const { form, links } = yield* loadForm(c.req.param("id"))
        return formPage(form, {
          theme: (yield* accountLook(theme, form.accountId)).theme, links, state: c.req.query("submitted") === "1" ? "submitted" : "form", challenge: yield* challengeWidget,
        })
      }))
      if (Exit.isSuccess(exit)) return exit.value
      return notFoundPage(exit.cause) ?? c.get("answerFailure")(exit.cause)
    })
    .options("/v1/forms/:id/submit", async (c) => {
      const origin = requestOrigin(c)
      const exit = await c.get("runExit")(Effect.flatMap(FormSignups, (signups) => signups.allowsOrigin(c.req.param("id"), origin)))
      if (Exit.isSuccess(exit) && exit.value) {
        return new Response(null, {
          status: 204,
          headers: {
            ...corsHeaders(origin!),
            "access-control-allow-methods": "POST",
            "access-control-allow-headers": "content-type, accept",
            "access-control-max-age": "600",
          },
        })
      }
      // No CORS headers: the browser refuses to send the submission.
      return new Response(null, { status: 403, headers: { vary: "Origin" } })
    })
    .post("/v1/forms/:id/submit", async (c) => {
      const json = wantsJson(c)
      const origin = requestOrigin(c)
      const received: Array<readonly [string, string]> = []
      const exit = await c.get("runExit")(submit(c, c.req.param("id"), received))
      if (Exit.isSuccess(exit)) {
        const { form, links } = exit.value
        const cors = origin !== null ? corsHeaders(origin) : {}
        if (json) {
          return Response.json(
            { success: true, data: { message: submittedMessage(form), redirectUrl: form.successRedirectUrl } },
            { headers: cors },
          )
        }
        return new Response(null, {
          status: 303,
          headers: { ...cors, location: form.successRedirectUrl ?? `${links.pageUrl}?submitted=1` },
        })
      }
      const failure = Cause.failureOption(exit.cause)
      if (Option.isNone(failure) || !isAnswerable(failure.value)) return c.get("answerFailure")(exit.cause)
      const error = failure.value
      // CORS headers only for an origin the form allows, so that other sites cannot read even the refusal.
      const allowed = error._tag !== "OriginNotAllowed" && error._tag !== "ResourceNotFound" && origin !== null
      if (json) {
        return errorResponse(error, "envelope", "api", allowed ? corsHeaders(origin) : {})
      }
      return refusalPage(c, c.req.param("id"), error, origin, received)
    })
}

type AnswerableError = MailroomError
const isAnswerable = (error: unknown): error is AnswerableError =>
  typeof error === "object" && error !== null && "code" in error && "_tag" in error
