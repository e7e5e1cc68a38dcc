/** The confirmation template beyond POST /subscriptions, run by every backend against its own Store: the template id is
 *  kept with the pending confirmation, so that resend-confirmation (and the confirmation page's "new link") mail the
 *  same template; signup forms take a confirmation template of their own, and a form subscription may name one.
 *  Spec: audience "POST /subscriptions" (confirmationTemplateId), "POST /subscriptions/{email}/resend-confirmation";
 *  docs/forms.md. */
import { describe, expect, it } from "@effect/vitest"
import {
  type Account, Accounts, type DesignCaller, Designs, FormSignups, Forms, IdsLive, LinksConfig, type MailroomError,
  servicesLayer, Store, Subscriptions, TemplateEngine,
} from "@mailroom/core"
import { makeTemplateEngine } from "@mailroom/templates"
import { Effect, Layer, Option } from "effect"
import { makeCaptureMailer } from "./capture-mailer.js"

let counter = 0
const fresh = (label: string) => `${label}-${Date.now().toString(36)}-${(counter++).toString(36)}`

const confirmationDraft = (greeting: string) => ({
  name: "Confirm",
  subject: `${greeting}, {{first_name}}`,
  html: `<p>${greeting} {{first_name}}: <a href="{{confirm_url}}">confirm</a></p>`,
  text: `${greeting}: {{confirm_url}}`,
  category: "NOTIFICATION",
})

export const confirmationTemplateSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  describe(`confirmation templates (${backend})`, () => {
    const mailer = makeCaptureMailer()
    const engineLayer = Layer.scoped(TemplateEngine, Effect.map(makeTemplateEngine(), (handle) => handle.service))
    const layer = Layer.mergeAll(
      Layer.fresh(servicesLayer).pipe(Layer.provideMerge(Layer.mergeAll(storeLayer, IdsLive, engineLayer))),
      mailer.layer,
    )

    const newAccount = Effect.map(
      Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "confirmation templates", plan: "pro" })),
      ({ account }) => account,
    )
    const asAccount = (account: Account): DesignCaller => ({ account, application: null })
    const published = (account: Account, greeting: string) =>
      Effect.gen(function* () {
        const designs = yield* Designs
        const design = yield* designs.create(asAccount(account), {
          key: fresh("confirm"), locale: "en", draft: confirmationDraft(greeting),
        })
        yield* designs.publish(asAccount(account), design.id, 1)
        return design
      })
    const retire = (account: Account, id: string) =>
      Effect.flatMap(Designs, (designs) => designs.lifecycle(asAccount(account), id, { action: "retire" }))
    const codeOf = <A, R>(effect: Effect.Effect<A, MailroomError, R>) => Effect.map(Effect.flip(effect), (error) => error.code)
    const mails = (email: string) => mailer.sentTo(email)
    const pendingOf = (account: Account, email: string) =>
      Effect.gen(function* () {
        const store = yield* Store
        const contact = Option.getOrThrow(yield* store.contacts.findByEmail(account.id, email as never))
        return Option.getOrThrow(yield* store.confirmations.find(account.id, contact.id))
      })

    /** A submission of the form from its hosted page, with no limits in the way. */
    const submit = (formId: string, email: string) =>
      Effect.gen(function* () {
        const origin = new URL((yield* LinksConfig).appUrl).origin
        return yield* (yield* FormSignups).submit(formId, {
          origin,
          clientAddress: "203.0.113.9",
          userAgent: "test",
          limitPerIp: Effect.void,
          entries: Effect.succeed([["email", email]] as const),
          limitPerAddress: () => Effect.void,
        })
      })

    it.layer(layer, { timeout: "120 seconds" })((it) => {
      it.effect("the template id is kept with the pending confirmation, and resend-confirmation mails that template again", () =>
        Effect.gen(function* () {
          const account = yield* newAccount
          const design = yield* published(account, "Welcome aboard")
          const email = `${fresh("ada")}@example.org`
          const subscriptions = yield* Subscriptions
          yield* subscriptions.subscribe(account, { email, firstName: "Ada", doubleOptIn: true, confirmationTemplateId: design.id })
          expect((yield* pendingOf(account, email)).templateId).toBe(design.id)
          const resent = yield* subscriptions.resendConfirmation(account, email)
          expect(resent.confirmationSent).toBe(true)
          expect(mails(email).map((mail) => mail.subject)).toEqual(["Welcome aboard, Ada", "Welcome aboard, Ada"])
          expect(mails(email)[1]!.text).toMatch(/^Welcome aboard: https?:\/\/\S+\/c\/\S+$/)
          expect((yield* pendingOf(account, email)).templateId).toBe(design.id)

          // Without a template, the default confirmation mail goes, and so does its resend.
          const plain = `${fresh("bob")}@example.org`
          yield* subscriptions.subscribe(account, { email: plain, doubleOptIn: true })
          expect((yield* pendingOf(account, plain)).templateId).toBeNull()
          yield* subscriptions.resendConfirmation(account, plain)
          expect(mails(plain).map((mail) => mail.subject)).toEqual(["Please confirm your subscription", "Please confirm your subscription"])
        }))

      it.effect("a resend whose template was retired since answers TEMPLATE_RETIRED and changes nothing; the confirmation page's new link falls back to the default mail", () =>
        Effect.gen(function* () {
          const account = yield* newAccount
          const design = yield* published(account, "Hi")
          const email = `${fresh("cy")}@example.org`
          const subscriptions = yield* Subscriptions
          yield* subscriptions.subscribe(account, { email, doubleOptIn: true, confirmationTemplateId: design.id })
          const before = yield* pendingOf(account, email)
          yield* retire(account, design.id)
          expect(yield* codeOf(subscriptions.resendConfirmation(account, email))).toBe("TEMPLATE_RETIRED")
          expect((yield* pendingOf(account, email)).nonce).toBe(before.nonce)
          expect(mails(email)).toHaveLength(1)
          const renewed = yield* subscriptions.resendConfirmation(account, email, { via: "link" })
          expect(renewed.confirmationSent).toBe(true)
          expect(mails(email).map((mail) => mail.subject)).toEqual(["Hi, ", "Please confirm your subscription"])
          expect((yield* pendingOf(account, email)).nonce).not.toBe(before.nonce)
        }))

      it.effect("a form subscription honours confirmationTemplateId, and its link's resend keeps it", () =>
        Effect.gen(function* () {
          const account = yield* newAccount
          const design = yield* published(account, "From the form")
          const email = `${fresh("dee")}@example.org`
          const subscriptions = yield* Subscriptions
          const form = { id: "form_1", name: "Newsletter", listId: null, fields: {} }
          const result = yield* subscriptions.subscribe(account, {
            email, firstName: "Dee", doubleOptIn: true, confirmationTemplateId: design.id,
          }, { form })
          expect(result).toMatchObject({ status: "PENDING", confirmationSent: true })
          expect((yield* pendingOf(account, email)).templateId).toBe(design.id)
          yield* subscriptions.resendConfirmation(account, email, { via: "link" })
          expect(mails(email).map((mail) => mail.subject)).toEqual(["From the form, Dee", "From the form, Dee"])
          expect(yield* codeOf(subscriptions.subscribe(account, {
            email: `${fresh("x")}@example.org`, doubleOptIn: true, confirmationTemplateId: "dsn_nope",
          }, { form }))).toBe("TEMPLATE_NOT_FOUND")
        }))

      it.effect("a signup form with a confirmation template confirms its submissions with it; a template that cannot be sent is refused when set", () =>
        Effect.gen(function* () {
          const account = yield* newAccount
          const design = yield* published(account, "Thanks for signing up")
          const forms = yield* Forms
          const form = yield* forms.create(account, { name: "Footer", doubleOptIn: true, confirmationTemplateId: design.id })
          expect(form.confirmationTemplateId).toBe(design.id)
          expect((yield* forms.get(account, form.id)).confirmationTemplateId).toBe(design.id)
          const email = `${fresh("eve")}@example.org`
          yield* submit(form.id, email)
          expect(mails(email).map((mail) => mail.subject)).toEqual(["Thanks for signing up, "])
          expect((yield* pendingOf(account, email)).templateId).toBe(design.id)

          // Refused when set: unknown, another account's, a draft; nothing changes.
          expect(yield* codeOf(forms.create(account, { name: "x", confirmationTemplateId: "dsn_nope" }))).toBe("TEMPLATE_NOT_FOUND")
          const other = yield* newAccount
          const foreign = yield* published(other, "Foreign")
          expect(yield* codeOf(forms.update(account, form.id, { confirmationTemplateId: foreign.id }))).toBe("TEMPLATE_NOT_FOUND")
          const draft = yield* (yield* Designs).create(asAccount(account), { key: fresh("d"), locale: "en", draft: confirmationDraft("D") })
          expect(yield* codeOf(forms.update(account, form.id, { confirmationTemplateId: draft.id }))).toBe("TEMPLATE_NOT_PUBLISHED")
          expect((yield* forms.get(account, form.id)).confirmationTemplateId).toBe(design.id)

          // Retired since it was set: the submission still gets the default confirmation mail.
          yield* retire(account, design.id)
          const late = `${fresh("fay")}@example.org`
          yield* submit(form.id, late)
          expect(mails(late).map((mail) => mail.subject)).toEqual(["Please confirm your subscription"])
          expect((yield* pendingOf(account, late)).templateId).toBeNull()

          // null clears it.
          expect((yield* forms.update(account, form.id, { confirmationTemplateId: null })).confirmationTemplateId).toBeNull()
        }))
    })
  })
