/** Signup forms' submissions (docs/forms.md): the public POST /v1/forms/{id}/submit and its CORS preflight. The guards
 *  are the form's allowed origins, a honeypot field, per-IP and per-address rate limits (counted by the caller's
 *  limiters) and, when the host configured one, a bot challenge. A submission subscribes the address as the
 *  Subscriptions API does, through the same steps (internal/subscription-steps.ts), with the form's own source,
 *  consent and events: contact source FORM, consent source form with the text `Signup form: <name>` unless consent
 *  text is given, contact.subscribed carrying formId, listId and fields, and no list.member_added (the form reports its
 *  list in contact.subscribed). */
import { Effect } from "effect"
import type { Account } from "../domain/account.js"
import { consentTextOf, type Form, honeypotField, originAllowed, parseSubmission } from "../domain/form.js"
import { subscribedEvent } from "../domain/subscription.js"
import type { SubscribeInput } from "../domain/subscription-input.js"
import { OriginNotAllowed, type RateLimitExceeded, ValidationFailed } from "../errors.js"
import { decodeSubscribeInput, subscribeResult, subscriptionSteps } from "../internal/subscription-steps.js"
import { BotChallenge } from "../ports/bot-challenge.js"
import { Store } from "../ports/store.js"
import { Accounts } from "./accounts.js"
import { Forms } from "./forms.js"
import { SendingPause } from "./sending-pause.js"
import { LinksConfig } from "./tokens.js"
import { resolveSendable } from "./template-sends.js"
import { serviceMethod } from "./tracing.js"

/** A hosted signup form subscribing an address, as contact.subscribed reports it. */
export interface SignupForm {
  readonly id: string
  readonly name: string
  readonly listId: string | null
  readonly fields: Readonly<Record<string, unknown>>
}

/** What a submission brings besides the form id: where it came from, and the parts the HTTP layer owns (reading the
 *  body, counting the rate limits), which run in the order the guards need them. */
export interface FormSubmissionRequest<E> {
  /** The request's Origin, or the origin of its Referer; null when it has neither. */
  readonly origin: string | null
  readonly clientAddress: string | null
  readonly userAgent: string | undefined
  /** Counts the submission against the per-IP limit; run once the origin is allowed. */
  readonly limitPerIp: Effect.Effect<void, RateLimitExceeded>
  /** The body's name/value pairs; read once the per-IP limit passed. */
  readonly entries: Effect.Effect<ReadonlyArray<readonly [string, string]>, E>
  /** Counts the submission against the per-address limit (`key`: the account and the address); run once the
   *  submission and the challenge passed. */
  readonly limitPerAddress: (key: string) => Effect.Effect<void, RateLimitExceeded>
}

/** The errors a submission answers as a success: the address cannot be (re)subscribed, and saying so would tell the
 *  submitter that it is known. Nothing changes for them. */
const quietlyRefused = new Set(["RecipientUnsubscribed", "RecipientSuppressed", "ContactBlocked", "FreeTierContactLimit"])

const userAgentLength = 1024

export class FormSignups extends Effect.Service<FormSignups>()("@mailroom/core/FormSignups", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const method = yield* serviceMethod
    const steps = yield* subscriptionSteps
    const forms = yield* Forms
    const accounts = yield* Accounts

    /** The form and the origin of its hosted page (APP_URL's), or RESOURCE_NOT_FOUND. */
    const load = (id: string) =>
      Effect.gen(function* () {
        const form = yield* forms.findPublic(id)
        return { form, ownOrigin: new URL(`${(yield* LinksConfig).appUrl.replace(/\/+$/, "")}/f/${form.id}`).origin }
      })

    /** Subscribes an address for a signup form; the fields are checked as POST /subscriptions checks them. */
    const subscribe = method("FormSignups.subscribe")(function* (
      account: Account,
      fields: typeof SubscribeInput.Encoded,
      form: SignupForm,
      clientAddress: string | null,
    ) {
      const input = yield* decodeSubscribeInput(fields)
      const consent = { ...input.consent, text: input.consent?.text ?? `Signup form: ${form.name}` }
      // The confirmation template, resolved before anything is written (as POST /subscriptions does).
      const template = input.confirmationTemplateId === undefined
        ? undefined
        : yield* resolveSendable(store, account.id, null, input.confirmationTemplateId)
      const { written, confirmationSent } = yield* steps.commitAndMail(account, Effect.gen(function* () {
        const written = yield* steps.writeSubscriber(account, input, {
          contactSource: "FORM", consentSource: "form", consent, clientAddress,
        })
        const mail = yield* steps.settleConfirmation(account, written, {
          redirectUrl: input.redirectUrl ?? null, source: "FORM", formId: form.id, templateId: template?.design.id ?? null,
        })
        const { contact, decision, pending, at } = written
        if (written.confirmation === "outstanding" && pending !== undefined && pending.formId !== form.id) {
          // A signup form reaching an address whose confirmation is outstanding mails nothing new, but the link
          // already sent now confirms on behalf of the latest form: contact.confirmed names it.
          yield* store.confirmations.put({ ...pending, formId: form.id })
        }
        if (written.changed) {
          const subscribed = subscribedEvent(steps.event(account, at), {
            contactId: contact.id,
            email: input.email,
            source: "FORM",
            listIds: written.listIds,
            topicIds: written.topicIds,
            requiresConfirmation: decision.requiresConfirmation,
            status: decision.status,
          })
          yield* store.events.append([{
            ...subscribed,
            details: { ...subscribed.details, formId: form.id, listId: form.listId, fields: form.fields },
          }])
        }
        return { ...written, mail }
      }), template)
      return subscribeResult(written, confirmationSent)
    })

    /** The CORS preflight: whether `origin` may submit the form (one of its allowed origins, or its hosted page's). */
    const allowsOrigin = method("FormSignups.allowsOrigin")(function* (id: string, origin: string | null) {
      const { form, ownOrigin } = yield* load(id)
      return originAllowed(form, origin, ownOrigin)
    })

    /** POST /v1/forms/{id}/submit: checks the origin, counts the per-IP limit, reads the body, drops a filled honeypot
     *  (answered as a success, nothing written), checks the fields against the form and the bot challenge, counts the
     *  per-address limit, and subscribes. Answers the form; every accepted submission gets the same answer, whether or
     *  not the address was known. */
    const submit = method("FormSignups.submit")(function* <E>(id: string, request: FormSubmissionRequest<E>) {
      const { form, ownOrigin } = yield* load(id)
      if (!originAllowed(form, request.origin, ownOrigin)) return yield* Effect.fail(new OriginNotAllowed({ origin: request.origin }))
      yield* request.limitPerIp
      const entries = yield* request.entries
      if (entries.some(([name, value]) => name === honeypotField && value !== "")) return form
      const submission = yield* Effect.mapError(
        parseSubmission(form, entries),
        (problem) => new ValidationFailed({ field: problem.field, detail: problem.detail }),
      )
      const ip = request.clientAddress
      const { verifier } = yield* BotChallenge
      if (verifier !== undefined) {
        const answer = entries.find(([name]) => name === verifier.widget.fieldName || name === "challengeToken")?.[1] ?? ""
        const passed = yield* Effect.mapError(verifier.verify(answer, ip), (error) =>
          new ValidationFailed({ field: "challenge", detail: error.message }))
        if (!passed) return yield* Effect.fail(new ValidationFailed({ field: "challenge", detail: "the bot challenge was not passed; try again" }))
      }
      yield* request.limitPerAddress(`${form.accountId}:${submission.email.toLowerCase()}`)
      const account = yield* accounts.get(form.accountId)
      const userAgent = request.userAgent
      // The form's confirmation template was sendable when it was set; one deleted or retired since is skipped (the
      // default confirmation mail goes), since the person submitting cannot fix it.
      const confirmationTemplateId = form.confirmationTemplateId === null || !form.doubleOptIn
        ? undefined
        : yield* resolveSendable(store, account.id, null, form.confirmationTemplateId).pipe(
          Effect.as(form.confirmationTemplateId),
          Effect.catchIf((error) => error._tag !== "StoreError", (error) =>
            Effect.as(Effect.logWarning("the form's confirmation template cannot be sent; the default one goes", error.message), undefined)),
        )
      yield* subscribe(account, {
        email: submission.email,
        ...(submission.firstName !== undefined ? { firstName: submission.firstName } : {}),
        ...(submission.lastName !== undefined ? { lastName: submission.lastName } : {}),
        ...(submission.phone !== undefined ? { phone: submission.phone } : {}),
        listIds: [...form.listIds],
        topicIds: [...form.topicIds],
        ...(Object.keys(submission.customFields).length > 0 ? { customFields: { ...submission.customFields } } : {}),
        doubleOptIn: form.doubleOptIn,
        ...(confirmationTemplateId !== undefined ? { confirmationTemplateId } : {}),
        // Someone who unsubscribed comes back only through the confirmation mail of a double opt-in form: the click
        // is their fresh consent. A single opt-in form changes nothing for them (and says nothing of it).
        resubscribe: form.doubleOptIn,
        consent: {
          ...(ip !== null ? { ip: ip.slice(0, 64) } : {}),
          ...(userAgent !== undefined ? { userAgent: userAgent.slice(0, userAgentLength) } : {}),
          text: consentTextOf(form),
        },
      }, { id: form.id, name: form.name, listId: form.listIds[0] ?? null, fields: submission.fields }, ip).pipe(
        Effect.catchIf((error) => quietlyRefused.has(error._tag), () => Effect.void),
      )
      return form satisfies Form
    })

    return { subscribe, allowsOrigin, submit } as const
  }),
  dependencies: [SendingPause.Default],
}) {}
