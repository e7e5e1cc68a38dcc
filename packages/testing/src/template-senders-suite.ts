/** Application templates' send rules beyond rendering, run by every backend against its own Store. The Sender row of
 *  the account/application table: an application template's mail comes from one of the allowed senders, the calling
 *  application credential's, or when an account key sends it, those of its application's credentials; an account
 *  template sent with an account key keeps any sender. And a strict template's refusal in a batch names the
 *  recipient (`recipients[3].variables`). Spec: sending "Design (Studio template)" (the two-column table), "Authentication" 3. */
import { describe, expect, it } from "@effect/vitest"
import {
  type Account, Accounts, type DesignCaller, Designs, enqueueEach, IdsLive, JobQueue, type JobQueueService,
  type MailroomError, Sending, servicesLayer, Store,
} from "@mailroom/core"
import { Clock, Effect, Layer } from "effect"
import { makeCaptureMailer } from "./capture-mailer.js"
import { testTemplateEngine } from "./template-engine.js"

let counter = 0
const fresh = (label: string) => `${label}-${Date.now().toString(36)}-${(counter++).toString(36)}`

const draft = {
  name: "Receipt",
  subject: "Receipt {{order}}",
  html: "<p>Order {{order}}</p>",
  category: "BILLING",
  variables: { order: { type: "string", required: true } },
}

export const templateSendersSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  describe(`template senders (${backend})`, () => {
    const enqueue: JobQueueService["enqueue"] = () => Effect.succeed("job")
    const queue = Layer.succeed(JobQueue, { enqueue, enqueueAll: enqueueEach(enqueue), work: () => Effect.void })
    const layer = Layer.mergeAll(
      Layer.fresh(servicesLayer).pipe(Layer.provideMerge(Layer.mergeAll(storeLayer, IdsLive, testTemplateEngine))),
      queue,
      makeCaptureMailer().layer,
    )

    const newAccount = Effect.map(
      Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "template senders", plan: "pro" })),
      ({ account }) => account,
    )
    const published = (account: Account, applicationKey: string) =>
      Effect.gen(function* () {
        const designs = yield* Designs
        const caller: DesignCaller = { account, application: null }
        const design = yield* designs.create(caller, { key: fresh("tpl"), locale: "en", applicationKey, draft: draft as never })
        yield* designs.publish(caller, design.id, 1)
        return design
      })
    const credential = (account: Account, applicationKey: string, allowedSenders: ReadonlyArray<string>) =>
      Effect.flatMap(Accounts, (accounts) => accounts.createAppCredential(account.id, { applicationKey, allowedSenders: [...allowedSenders] }))
    const refusal = <A, R>(effect: Effect.Effect<A, MailroomError, R>) => Effect.flip(effect)
    const queued = (account: Account) =>
      Effect.flatMap(Store, (store) => Effect.map(store.events.list(account.id, { type: "email.queued" }), (events) => events.length))
    const send = (account: Account, templateId: string, from: string, application?: { key: string; allowedSenders: ReadonlyArray<string> }) =>
      Effect.flatMap(Sending, (sending) => sending.send(account, {
        from: { email: from }, to: [{ email: `${fresh("to")}@example.org` }], content: { templateId }, variables: { order: "A-1" },
      }, application === undefined ? {} : { application }))

    it.layer(layer, { timeout: "120 seconds" })((it) => {
      it.effect("an account key sends an application template only from one of that application's allowed senders", () =>
        Effect.gen(function* () {
          const account = yield* newAccount
          const design = yield* published(account, "shop")
          // No credential of the application yet: no sender is allowed.
          const none = yield* refusal(send(account, design.id, "orders@example.com"))
          expect(none).toMatchObject({ code: "SENDER_NOT_ALLOWED", application: "shop", allowed: [] })
          expect(none.message).toContain("application shop")

          yield* credential(account, "shop", ["orders@example.com"])
          yield* credential(account, "shop", ["Billing@Example.com", "orders@example.com"])
          yield* credential(account, "blog", ["news@example.com"])
          const other = yield* newAccount
          yield* credential(other, "shop", ["stranger@example.com"])

          const refused = yield* refusal(send(account, design.id, "news@example.com"))
          expect(refused).toMatchObject({ code: "SENDER_NOT_ALLOWED", allowed: ["orders@example.com", "Billing@Example.com"] })
          expect(yield* refusal(send(account, design.id, "stranger@example.com"))).toMatchObject({ code: "SENDER_NOT_ALLOWED" })
          expect(yield* queued(account)).toBe(0)

          expect((yield* send(account, design.id, "billing@example.com")).from).toBe("billing@example.com")
          expect((yield* send(account, design.id, "orders@example.com")).status).toBe("queued")
          expect(yield* queued(account)).toBe(2)
        }))

      it.effect("batch and schedule apply the same rule", () =>
        Effect.gen(function* () {
          const account = yield* newAccount
          const design = yield* published(account, "shop")
          yield* credential(account, "shop", ["orders@example.com"])
          const sending = yield* Sending
          const batch = (from: string) => sending.batch(account, {
            from: { email: from }, content: { templateId: design.id }, variables: { order: "B-1" },
            recipients: [{ to: { email: `${fresh("a")}@example.org` } }, { to: { email: `${fresh("b")}@example.org` } }],
          })
          expect(yield* refusal(batch("else@example.com"))).toMatchObject({ code: "SENDER_NOT_ALLOWED", application: "shop" })
          expect((yield* batch("orders@example.com")).totalRecipients).toBe(2)
          const later = new Date((yield* Clock.currentTimeMillis) + 3_600_000).toISOString()
          const schedule = (from: string) => sending.schedule(account, {
            from: { email: from }, to: [{ email: `${fresh("c")}@example.org` }], content: { templateId: design.id },
            variables: { order: "C-1" }, scheduledFor: later,
          })
          expect((yield* refusal(schedule("else@example.com"))).code).toBe("SENDER_NOT_ALLOWED")
          expect((yield* schedule("orders@example.com")).status).toBe("scheduled")
        }))

      it.effect("an application credential is held to its own allowed senders, not its application's other credentials'", () =>
        Effect.gen(function* () {
          const account = yield* newAccount
          const design = yield* published(account, "shop")
          yield* credential(account, "shop", ["orders@example.com"])
          const own = { key: "shop", allowedSenders: ["billing@example.com"] }
          const refused = yield* refusal(send(account, design.id, "orders@example.com", own))
          expect(refused).toMatchObject({ code: "SENDER_NOT_ALLOWED", allowed: ["billing@example.com"] })
          expect(refused.message).toContain("this application credential")
          expect((yield* send(account, design.id, "billing@example.com", own)).status).toBe("queued")
        }))

      it.effect("a strict template's refusal in a batch names the recipient's index, and nothing is queued", () =>
        Effect.gen(function* () {
          const account = yield* newAccount
          const design = yield* published(account, "shop")
          yield* credential(account, "shop", ["orders@example.com"])
          const sending = yield* Sending
          const to = () => ({ email: `${fresh("r")}@example.org` })
          const batch = (recipients: ReadonlyArray<Record<string, unknown>>, variables?: Record<string, unknown>) =>
            Effect.flip(sending.batch(account, {
              from: { email: "orders@example.com" }, content: { templateId: design.id },
              ...(variables === undefined ? {} : { variables }), recipients,
            } as never))
          const missing = yield* batch([{ to: to(), variables: { order: "1" } }, { to: to(), variables: { order: "2" } }, { to: to() }])
          expect(missing).toMatchObject({ code: "MISSING_TEMPLATE_VARIABLES", field: "recipients[2].variables", names: ["order"] })
          expect(missing.message).toContain("recipients[2].variables")
          const unknown = yield* batch([{ to: to(), variables: { order: "1" } }, { to: to(), variables: { order: "2", coupon: "X" } }])
          expect(unknown).toMatchObject({ code: "VALIDATION_ERROR", field: "recipients[1].variables", names: ["coupon"] })
          expect(unknown.message).toMatch(/^recipients\[1\]\.variables: .*coupon/)
          // Top-level variables every recipient inherits: the first recipient is named.
          const inherited = yield* batch([{ to: to() }, { to: to() }], { order: "1", coupon: "X" })
          expect(inherited).toMatchObject({ field: "recipients[0].variables" })
          expect(yield* queued(account)).toBe(0)
          // A single send keeps the body's own field.
          const single = yield* Effect.flip(send(account, design.id, "orders@example.com").pipe(
            Effect.zipRight(Effect.flatMap(Sending, (s) => s.send(account, {
              from: { email: "orders@example.com" }, to: [to()], content: { templateId: design.id }, variables: {},
            })))))
          expect(single).toMatchObject({ code: "MISSING_TEMPLATE_VARIABLES" })
          expect((single as { field?: string }).field).toBeUndefined()
        }))

      it.effect("an account template sent with an account key keeps any sender", () =>
        Effect.gen(function* () {
          const account = yield* newAccount
          const design = yield* published(account, "account")
          yield* credential(account, "shop", ["orders@example.com"])
          expect((yield* send(account, design.id, "anyone@example.net")).status).toBe("queued")
        }))

      it.effect("POST /designs/{id}/send with an account key: an application template's sender defaults to its application's first allowed sender", () =>
        Effect.gen(function* () {
          const account = yield* newAccount
          const design = yield* published(account, "shop")
          const sending = yield* Sending
          const body = { to: [{ email: `${fresh("d")}@example.org` }], variables: { order: "D-1" } }
          expect(yield* refusal(sending.sendTemplate(account, design.id, body, { idempotencyKey: fresh("k") })))
            .toMatchObject({ code: "VALIDATION_ERROR", field: "from" })
          yield* credential(account, "shop", ["orders@example.com", "billing@example.com"])
          const sent = yield* sending.sendTemplate(account, design.id, body, { idempotencyKey: fresh("k") })
          expect(sent.from).toBe("orders@example.com")
          expect(yield* refusal(sending.sendTemplate(account, design.id, { ...body, from: { email: "else@example.com" } }, {
            idempotencyKey: fresh("k"),
          }))).toMatchObject({ code: "SENDER_NOT_ALLOWED", application: "shop" })
        }))
    })
  })
