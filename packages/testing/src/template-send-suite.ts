/** Sending by template, run by every backend against its own Store: `content.templateId` on send, batch and schedule
 *  (the live release, rendered through the real handlebars-email-v2 engine, compiled once per release), the template
 *  errors, the message record and events naming the template and release, delivery rendering from the recorded
 *  release (and dropping a message whose template was deleted or retired after acceptance), POST /designs/{id}/send's
 *  service (application credentials and their allowed senders), deliveries and usage, and confirmationTemplateId.
 *  Spec: sending rules 5 and 6, "Design (Studio template)", the Design rows of "States and transitions", "Errors";
 *  audience "POST /subscriptions" (confirmationTemplateId). */
import { describe, expect, it } from "@effect/vitest"
import {
  type Account, Accounts, type AccountId, type DesignCaller, Designs, deliverMessage, IdsLive,
  JobQueue, enqueueEach, type JobQueueService, type MailroomError, type MessageId, Quota, Sending, servicesLayer, Store,
  type StoredMessage, Subscriptions, TemplateEngine,
} from "@mailroom/core"
import { makeTemplateEngine, type TemplateEngineHandle } from "@mailroom/templates"
import { Clock, Effect, Layer, Option, TestClock } from "effect"
import { makeCaptureMailer } from "./capture-mailer.js"

let counter = 0
const fresh = (label: string) => `${label}-${Date.now().toString(36)}-${(counter++).toString(36)}`

const accountDraft = (overrides: Record<string, unknown> = {}) => ({
  name: "Order shipped",
  subject: "Order {{order}} shipped",
  html: "<p>Hello {{first_name}}, order {{order}} is on its way.</p>",
  text: "Hello {{first_name}}, order {{order}} is on its way.",
  category: "NOTIFICATION",
  ...overrides,
})

const applicationDraft = (overrides: Record<string, unknown> = {}) => ({
  name: "Receipt",
  subject: "Receipt {{order}}",
  html: "<p>Thanks {{first_name}}: {{#each items}}<span>{{sku}}</span>{{/each}}</p>",
  category: "BILLING",
  variables: {
    first_name: { type: "string", required: true },
    order: { type: "string", required: true },
    items: { type: "array", items: { sku: { type: "string" } } },
  },
  ...overrides,
})

const from = { email: "orders@example.com", name: "Example Orders" }

export const templateSendSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  describe(`sending by template (${backend})`, () => {
    const mailer = makeCaptureMailer()
    let engine: TemplateEngineHandle | undefined
    const engineLayer = Layer.scoped(TemplateEngine, Effect.map(makeTemplateEngine(), (handle) => {
      engine = handle
      return handle.service
    }))
    const enqueue: JobQueueService["enqueue"] = () => Effect.succeed("job")
    const queue = Layer.succeed(JobQueue, { enqueue, enqueueAll: enqueueEach(enqueue), work: () => Effect.void })
    const layer = Layer.mergeAll(
      Layer.fresh(servicesLayer).pipe(Layer.provideMerge(Layer.mergeAll(storeLayer, IdsLive, engineLayer))),
      queue,
      mailer.layer,
    )

    const newAccount = (plan: "free" | "pro" = "pro") =>
      Effect.map(Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "template sends", plan })), ({ account }) => account)
    const asAccount = (account: Account): DesignCaller => ({ account, application: null })

    /** A published template of the account (application key `account` unless given). */
    const published = (account: Account, options: { readonly applicationKey?: string; readonly draft?: Record<string, unknown> } = {}) =>
      Effect.gen(function* () {
        const designs = yield* Designs
        const caller = asAccount(account)
        const design = yield* designs.create(caller, {
          key: fresh("tpl"), locale: "en", applicationKey: options.applicationKey,
          draft: (options.draft ?? accountDraft()) as never,
        })
        yield* designs.publish(caller, design.id, 1)
        return design
      })

    const reload = (accountId: AccountId, id: string) =>
      Effect.flatMap(Store, (store) => Effect.map(store.messages.findById(accountId, id as MessageId), Option.getOrThrow))
    const deliver = (message: Pick<StoredMessage, "accountId" | "id">) =>
      deliverMessage({ accountId: message.accountId, messageId: message.id },
        { jobId: "job", attempt: 1, lastAttempt: false })
    const sentTo = (email: string) => mailer.sentTo(email)
    const codeOf = <A, R>(effect: Effect.Effect<A, MailroomError, R>) => Effect.map(Effect.flip(effect), (error) => error.code)
    const outboxEvents = (accountId: AccountId, type: string) =>
      Effect.flatMap(Store, (store) => store.events.list(accountId, { type: type as never }))

    it.layer(layer, { timeout: "120 seconds" })((it) => {
      it.effect("content.templateId sends the live release: the record and every event name the template and version, and the mail escapes values in html only", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const design = yield* published(account)
          const to = `${fresh("ada")}@example.org`
          const sent = yield* (yield* Sending).send(account, {
            from, to: [{ email: to }], content: { templateId: design.id },
            variables: { first_name: "Ada <b>&", order: "A-1" },
          })
          expect(sent.subject).toBe("Order A-1 shipped")
          const message = yield* reload(account.id, sent.id)
          expect(message.content.template).toMatchObject({ id: design.id, version: 1 })
          const queued = (yield* outboxEvents(account.id, "email.queued")).filter((e) => e.details["messageId"] === sent.id)
          expect(queued.map((e) => e.details["template"])).toEqual([{ id: design.id, version: 1 }])
          yield* deliver(message)
          const [mail] = sentTo(to)
          expect(mail?.subject).toBe("Order A-1 shipped")
          expect(mail?.html).toBe("<p>Hello Ada &lt;b&gt;&amp;, order A-1 is on its way.</p>")
          expect(mail?.text).toBe("Hello Ada <b>&, order A-1 is on its way.")
          const delivered = (yield* outboxEvents(account.id, "email.delivered")).filter((e) => e.details["messageId"] === sent.id)
          expect(delivered.map((e) => e.details["template"])).toEqual([{ id: design.id, version: 1 }])
          expect((yield* reload(account.id, sent.id)).recipients.map((r) => r.status)).toEqual(["delivered"])
        }))

      it.effect("a release is compiled once, not per send: twenty sends and their deliveries compile it one time", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const design = yield* published(account)
          const before = engine!.compilations()
          for (let i = 0; i < 20; i++) {
            const sent = yield* (yield* Sending).send(account, {
              from, to: [{ email: `${fresh("r")}@example.org` }], content: { templateId: design.id },
              variables: { first_name: `Reader ${i}`, order: `O-${i}` },
            })
            yield* deliver(yield* reload(account.id, sent.id))
          }
          expect(engine!.compilations() - before).toBe(1)
        }))

      it.effect("editing the draft leaves the live mail unchanged until the next publish; rollback brings version 1's content back", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const designs = yield* Designs
          const caller = asAccount(account)
          const design = yield* published(account)
          yield* designs.replace(caller, design.id, { expectedRevision: 1, draft: accountDraft({ subject: "New {{order}}" }) })
          const send = (order: string) => Effect.flatMap(Sending, (sending) => sending.send(account, {
            from, to: [{ email: `${fresh("b")}@example.org` }], content: { templateId: design.id }, variables: { order },
          }))
          expect((yield* send("1")).subject).toBe("Order 1 shipped")
          yield* designs.publish(caller, design.id, 2)
          const second = yield* send("2")
          expect(second.subject).toBe("New 2")
          expect((yield* reload(account.id, second.id)).content.template?.version).toBe(2)
          yield* designs.rollback(caller, design.id, 1)
          const third = yield* send("3")
          expect(third.subject).toBe("Order 3 shipped")
          expect((yield* reload(account.id, third.id)).content.template?.version).toBe(3)
        }))

      it.effect("a batch by template: each recipient's variables override the top-level ones", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const design = yield* published(account)
          const [ada, bob] = [`${fresh("ada")}@example.org`, `${fresh("bob")}@example.org`]
          const result = yield* (yield* Sending).batch(account, {
            from, content: { templateId: design.id }, variables: { first_name: "friend", order: "shared" },
            recipients: [{ to: { email: ada }, variables: { first_name: "Ada" } }, { to: { email: bob } }],
          })
          for (const id of result.messageIds) yield* deliver(yield* reload(account.id, id))
          expect(sentTo(ada)[0]?.html).toBe("<p>Hello Ada, order shared is on its way.</p>")
          expect(sentTo(bob)[0]?.html).toBe("<p>Hello friend, order shared is on its way.</p>")
        }))

      it.effect("an account (legacy) template takes content.subject as its subject; an application template refuses one", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const legacy = yield* published(account)
          const to = `${fresh("s")}@example.org`
          const sent = yield* (yield* Sending).send(account, {
            from, to: [{ email: to }], content: { templateId: legacy.id, subject: "Your order {{order}}" }, variables: { order: "Z" },
          })
          expect(sent.subject).toBe("Your order Z")
          yield* deliver(yield* reload(account.id, sent.id))
          expect(sentTo(to)[0]?.subject).toBe("Your order Z")
          const app = yield* published(account, { applicationKey: "shop", draft: applicationDraft() })
          const refused = yield* Effect.flip((yield* Sending).send(account, {
            from, to: [{ email: to }], content: { templateId: app.id, subject: "Mine" }, variables: { first_name: "A", order: "1" },
          }))
          expect(refused).toMatchObject({ code: "VALIDATION_ERROR", field: "content.subject" })
        }))

      it.effect("an application template is strict: missing required variables are named, unknown ones refused, and nothing is queued or counted", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const design = yield* published(account, { applicationKey: "shop", draft: applicationDraft() })
          // The application's allowed senders restrict an account key's sends of its templates too.
          yield* (yield* Accounts).createAppCredential(account.id, { applicationKey: "shop", allowedSenders: [from.email] })
          const send = (variables: Record<string, string>) => Effect.flatMap(Sending, (sending) => sending.send(account, {
            from, to: [{ email: `${fresh("x")}@example.org` }], content: { templateId: design.id }, variables,
          }))
          const missing = yield* Effect.flip(send({}))
          expect(missing.code).toBe("MISSING_TEMPLATE_VARIABLES")
          expect(missing.message).toContain("first_name, order")
          const unknown = yield* Effect.flip(send({ first_name: "A", order: "1", coupon: "X" }))
          expect(unknown.code).toBe("VALIDATION_ERROR")
          expect(unknown.message).toContain("coupon")
          expect((yield* (yield* Designs).usage(asAccount(account), design.id)).sends).toBe(0)
          expect((yield* (yield* Quota).usage(account)).used).toBe(0)
          expect((yield* send({ first_name: "A", order: "1" })).subject).toBe("Receipt 1")
        }))

      it.effect("an account template is lenient: a missing variable renders empty and an extra one is ignored", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const design = yield* published(account)
          const sent = yield* (yield* Sending).send(account, {
            from, to: [{ email: `${fresh("l")}@example.org` }], content: { templateId: design.id }, variables: { extra: "x" },
          })
          expect(sent.subject).toBe("Order  shipped")
        }))

      it.effect("TEMPLATE_NOT_FOUND for another account's id, TEMPLATE_NOT_PUBLISHED for a draft, TEMPLATE_RETIRED naming the replacement", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const other = yield* newAccount()
          const designs = yield* Designs
          const sending = yield* Sending
          const theirs = yield* published(other)
          const body = (templateId: string) => ({ from, to: [{ email: `${fresh("e")}@example.org` }], content: { templateId } })
          expect(yield* codeOf(sending.send(account, body(theirs.id)))).toBe("TEMPLATE_NOT_FOUND")
          expect(yield* codeOf(sending.send(account, body("tpl_unknown")))).toBe("TEMPLATE_NOT_FOUND")
          const draftOnly = yield* designs.create(asAccount(account), { key: fresh("d"), locale: "en", draft: accountDraft() })
          expect(yield* codeOf(sending.send(account, body(draftOnly.id)))).toBe("TEMPLATE_NOT_PUBLISHED")
          const old = yield* published(account)
          const replacement = yield* published(account)
          yield* designs.lifecycle(asAccount(account), old.id, { action: "retire", replacementId: replacement.id })
          const retired = yield* Effect.flip(sending.send(account, body(old.id)))
          expect(retired.code).toBe("TEMPLATE_RETIRED")
          expect(retired.message).toContain(replacement.id)
          expect(yield* codeOf(sending.batch(account, {
            from, content: { templateId: old.id }, recipients: [{ to: { email: `${fresh("e")}@example.org` } }],
          }))).toBe("TEMPLATE_RETIRED")
          expect(yield* codeOf(sending.schedule(account, { ...body(draftOnly.id), scheduledFor: new Date((yield* Clock.currentTimeMillis) + 3_600_000).toISOString() })))
            .toBe("TEMPLATE_NOT_PUBLISHED")
          expect(yield* codeOf(sending.send(account, { ...body(old.id), content: { templateId: replacement.id, html: "<p>x</p>" } })))
            .toBe("VALIDATION_ERROR")
        }))

      it.effect("a template deleted between acceptance and delivery drops the message with email.dropped TEMPLATE_NOT_FOUND; nothing is sent", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const design = yield* published(account)
          const to = `${fresh("gone")}@example.org`
          const sent = yield* (yield* Sending).send(account, { from, to: [{ email: to }], content: { templateId: design.id } })
          // What DELETE /templates/{id} does (the legacy API deletes templates that sent): the design and its releases go.
          expect(yield* Effect.flatMap(Store, (store) => store.designs.delete(account.id, design.id))).toBe(true)
          yield* deliver(yield* reload(account.id, sent.id))
          expect(sentTo(to)).toEqual([])
          const message = yield* reload(account.id, sent.id)
          expect(message.recipients.map((r) => r.status)).toEqual(["dropped"])
          const dropped = (yield* outboxEvents(account.id, "email.dropped")).filter((e) => e.details["messageId"] === sent.id)
          expect(dropped.map((e) => [e.details["reason"], e.details["template"]])).toEqual([["TEMPLATE_NOT_FOUND", { id: design.id, version: 1 }]])
        }))

      it.effect("a template retired between acceptance and delivery drops the message with email.dropped TEMPLATE_RETIRED", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const design = yield* published(account)
          const to = `${fresh("ret")}@example.org`
          const sent = yield* (yield* Sending).send(account, { from, to: [{ email: to }], content: { templateId: design.id } })
          yield* (yield* Designs).lifecycle(asAccount(account), design.id, { action: "retire" })
          yield* deliver(yield* reload(account.id, sent.id))
          expect(sentTo(to)).toEqual([])
          const dropped = (yield* outboxEvents(account.id, "email.dropped")).filter((e) => e.details["messageId"] === sent.id)
          expect(dropped.map((e) => e.details["reason"])).toEqual(["TEMPLATE_RETIRED"])
        }))

      it.effect("a scheduled send by template records the release and renders it when delivered", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const design = yield* published(account)
          const scheduled = yield* (yield* Sending).schedule(account, {
            from, to: [{ email: `${fresh("sch")}@example.org` }], content: { templateId: design.id }, variables: { order: "S" },
            scheduledFor: new Date((yield* Clock.currentTimeMillis) + 3_600_000).toISOString(),
          })
          const message = yield* reload(account.id, scheduled.id)
          expect(message).toMatchObject({ state: "scheduled", content: { subject: "Order S shipped", template: { id: design.id, version: 1 } } })
        }))

      it.effect("POST /designs/{id}/send's service: typed variables, the application's templates only, and its allowed senders", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const sending = yield* Sending
          const design = yield* published(account, { applicationKey: "shop", draft: applicationDraft() })
          const elsewhere = yield* published(account, { applicationKey: "blog" })
          const application = { key: "shop", allowedSenders: ["Shop@Example.com", "billing@example.com"] }
          const to = `${fresh("app")}@example.org`
          const variables = { first_name: "Ada", order: "7", items: [{ sku: "a<1>" }, { sku: "b" }] }
          const sent = yield* sending.sendTemplate(account, design.id, { to: [{ email: to }], variables }, { idempotencyKey: fresh("k"), application })
          expect(sent.from).toBe("shop@example.com")
          const message = yield* reload(account.id, sent.id)
          expect(message.content.template).toMatchObject({ id: design.id, version: 1, variables })
          yield* deliver(message)
          expect(sentTo(to)[0]?.html).toBe("<p>Thanks Ada: <span>a&lt;1&gt;</span><span>b</span></p>")
          const refused = yield* Effect.flip(sending.sendTemplate(account, design.id, {
            from: { email: "ceo@example.com" }, to: [{ email: to }], variables,
          }, { idempotencyKey: fresh("k"), application }))
          expect(refused.code).toBe("SENDER_NOT_ALLOWED")
          expect(refused.message).toContain("billing@example.com")
          expect(yield* codeOf(sending.sendTemplate(account, elsewhere.id, { from: { email: "billing@example.com" }, to: [{ email: to }] },
            { idempotencyKey: fresh("k"), application }))).toBe("TEMPLATE_NOT_FOUND")
          const mistyped = yield* Effect.flip(sending.sendTemplate(account, design.id, {
            from: { email: "billing@example.com" }, to: [{ email: to }], variables: { first_name: 5, order: "7" },
          }, { idempotencyKey: fresh("k"), application }))
          expect(mistyped.code).toBe("VALIDATION_ERROR")
          expect(mistyped.message).toContain("first_name")
          // An account key needs a sender: the template names none yet.
          expect(yield* codeOf(sending.sendTemplate(account, design.id, { to: [{ email: to }], variables }, { idempotencyKey: fresh("k") })))
            .toBe("VALIDATION_ERROR")
        }))

      it.effect("the same Idempotency-Key and body answer the first send again; another body is refused", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const sending = yield* Sending
          const design = yield* published(account)
          const key = fresh("idem")
          const body = { from, to: [{ email: `${fresh("i")}@example.org` }], variables: { order: "1" } }
          const first = yield* sending.sendTemplate(account, design.id, body, { idempotencyKey: key })
          const again = yield* sending.sendTemplate(account, design.id, body, { idempotencyKey: key })
          expect(again.id).toBe(first.id)
          expect((yield* (yield* Designs).usage(asAccount(account), design.id)).sends).toBe(1)
          expect(yield* codeOf(sending.sendTemplate(account, design.id, { ...body, variables: { order: "2" } }, { idempotencyKey: key })))
            .toBe("IDEMPOTENCY_KEY_REUSED")
        }))

      it.effect("deliveries page the template's messages newest first with their events; usage counts them", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const designs = yield* Designs
          const design = yield* published(account)
          const ids: Array<string> = []
          for (let i = 0; i < 3; i++) {
            const sent = yield* (yield* Sending).send(account, {
              from, to: [{ email: `${fresh("p")}@example.org` }], content: { templateId: design.id }, variables: { order: `${i}` },
            })
            ids.push(sent.id)
            yield* TestClock.adjust("2 millis")
          }
          yield* deliver(yield* reload(account.id, ids[0]!))
          const first = yield* designs.deliveries(asAccount(account), design.id, { limit: 2 })
          expect(first.deliveries.map((d) => d.message.id)).toEqual([ids[2], ids[1]])
          expect(first.nextAfter).toBe(ids[1])
          const second = yield* designs.deliveries(asAccount(account), design.id, { limit: 2, before: first.nextAfter! })
          expect(second.deliveries.map((d) => d.message.id)).toEqual([ids[0]])
          expect(second.nextAfter).toBeNull()
          expect(second.deliveries[0]!.events.map((e) => e.type)).toEqual(["email.queued", "email.delivered"])
          expect(second.deliveries[0]!.status).toBe("delivered")
          expect((yield* designs.usage(asAccount(account), design.id)).sends).toBe(3)
          const other = yield* newAccount()
          expect(yield* codeOf(designs.deliveries(asAccount(other), design.id, { limit: 2 }))).toBe("TEMPLATE_NOT_FOUND")
        }))

      it.effect("confirmationTemplateId mails the account's template with confirm_url, first_name, last_name and email", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const design = yield* published(account, {
            draft: accountDraft({
              subject: "Confirm, {{first_name}}",
              html: `<p>{{first_name}} {{last_name}} ({{email}}): <a href="{{confirm_url}}">confirm</a></p>`,
              text: "Confirm: {{confirm_url}}",
            }),
          })
          const email = `${fresh("sub")}@example.org`
          const result = yield* (yield* Subscriptions).subscribe(account, {
            email, firstName: "Ada", lastName: "L<3", doubleOptIn: true, confirmationTemplateId: design.id,
          })
          expect(result).toMatchObject({ status: "PENDING", confirmationSent: true })
          const [mail] = sentTo(email)
          expect(mail?.subject).toBe("Confirm, Ada")
          expect(mail?.html).toMatch(new RegExp(`^<p>Ada L&lt;3 \\(${email.replace(/\./g, "\\.")}\\): <a href="https?://[^"]+/c/[^"]+">confirm</a></p>$`))
          expect(mail?.text).toMatch(/^Confirm: https?:\/\/\S+\/c\/\S+$/)
        }))

      it.effect("an unknown or unpublished confirmationTemplateId refuses the subscription and creates no contact", () =>
        Effect.gen(function* () {
          const account = yield* newAccount()
          const subscriptions = yield* Subscriptions
          const email = `${fresh("nosub")}@example.org`
          expect(yield* codeOf(subscriptions.subscribe(account, { email, doubleOptIn: true, confirmationTemplateId: "tpl_nope" })))
            .toBe("TEMPLATE_NOT_FOUND")
          const draftOnly = yield* (yield* Designs).create(asAccount(account), { key: fresh("c"), locale: "en", draft: accountDraft() })
          expect(yield* codeOf(subscriptions.subscribe(account, { email, doubleOptIn: true, confirmationTemplateId: draftOnly.id })))
            .toBe("TEMPLATE_NOT_PUBLISHED")
          expect(Option.isNone(yield* Effect.flatMap(Store, (store) => store.contacts.findByEmail(account.id, email as never)))).toBe(true)
          expect(sentTo(email)).toEqual([])
        }))
    })
  })
