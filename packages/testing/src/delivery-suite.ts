/** The message delivery suite, run by every backend against its own Store: dispatch of email.queued messages to one
 *  delivery job each, the job's rendering and submissions through a capture Mailer, the outcomes it records (delivered,
 *  deferred and retried, bounced with a Bounce suppression, held and never re-sent), the operator's review of held
 *  recipients, and reports that arrive later (DSN bounces, ARF complaints). The JobQueue is a recording double: the
 *  test runs the job itself with the attempt number the queue would give it. */
import { describe, expect, it } from "@effect/vitest"
import {
  Accounts, type AccountId, DeliveryConfig, DeliveryDeferred, deliverMessage, dispatchQueuedMessages, deferralDelays,
  enqueueEach, Feedback, IdsLive, JobQueue, type JobQueueService, type JobRun, Mailer, MailerError, MessageDelivery,
  Messages, messageDeliveryJob, type OutgoingMessage, Quota, recipientMessageId, recipientsPerRun, Sending, servicesLayer, Store,
  type StoredMessage, StoreError, Suppressions, Tokens,
} from "@mailroom/core"
import { Effect, Either, Layer, Option } from "effect"
import { sendBodyTo, storeAcceptedMessage } from "./accepted-message.js"
import { type CaptureAnswer, makeCaptureMailer } from "./capture-mailer.js"
import { makeContact } from "./fixtures.js"
import { testTemplateEngine } from "./template-engine.js"

interface Enqueued {
  readonly name: string
  readonly payload: unknown
  readonly dedupeKey: string | undefined
}

const dkimKey = { domainName: "example.com", keySelector: "s1", privateKey: "-----BEGIN PRIVATE KEY-----\nstand-in\n-----END PRIVATE KEY-----" }

export const deliverySuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  describe(`message delivery (${backend})`, () => {
    const enqueued: Array<Enqueued> = []
    const enqueue: JobQueueService["enqueue"] = (job, payload, options) =>
      Effect.sync(() => {
        enqueued.push({ name: job.name, payload, dedupeKey: options?.dedupeKey })
        return `job_${enqueued.length}`
      })
    const queue = Layer.succeed(JobQueue, { enqueue, enqueueAll: enqueueEach(enqueue), work: () => Effect.void })
    const mailer = makeCaptureMailer()
    /** While true, the Store fails every contact update: a fault in the middle of recording a bounce. */
    let contactUpdatesFail = false
    const faultyStore = Layer.effect(Store, Effect.map(Store, (store) => ({
      ...store,
      contacts: {
        ...store.contacts,
        update: (...args: Parameters<typeof store.contacts.update>) => contactUpdatesFail
          ? Effect.fail(new StoreError({ operation: "contacts.update", cause: new Error("disk full") }))
          : store.contacts.update(...args),
      },
    }))).pipe(Layer.provide(storeLayer))
    const layer = Layer.mergeAll(
      Layer.fresh(servicesLayer).pipe(Layer.provideMerge(Layer.mergeAll(faultyStore, IdsLive, testTemplateEngine))),
      queue,
      mailer.layer,
      Layer.succeed(DeliveryConfig, { dkimKeys: [dkimKey], envelopeFrom: "bounces@mail.example.com" }),
    )

    const accepted: CaptureAnswer = () => ({ status: "accepted", code: 250, reply: "250 2.0.0 OK: queued" })
    const answerBy = (answers: Record<string, ReturnType<CaptureAnswer>>): CaptureAnswer => (recipient, message) =>
      answers[recipient] ?? accepted(recipient, message)

    const setup = Effect.gen(function* () {
      mailer.answerWith(accepted)
      const { account } = yield* (yield* Accounts).create({ name: "delivery suite", plan: "pro" })
      return account
    })
    const run = (attempt: number): JobRun => ({ jobId: "job", attempt, lastAttempt: attempt === deferralDelays.length + 1 })
    const deliver = (message: StoredMessage, attempt = 1) =>
      Effect.either(deliverMessage({ accountId: message.accountId, messageId: message.id }, run(attempt)))
    const reload = (message: StoredMessage) =>
      Effect.flatMap(Store, (store) => Effect.map(store.messages.findById(message.accountId, message.id), Option.getOrThrow))
    const statuses = (message: StoredMessage) =>
      Effect.map(reload(message), (m) => Object.fromEntries(m.recipients.map((r) => [r.email, r.status])))
    const outboxEvents = (accountId: AccountId, type: "email.delivered" | "email.deferred" | "email.bounced") =>
      Effect.flatMap(Store, (store) => store.events.list(accountId, { type }))
    const sentTo = (message: StoredMessage, email: string): ReadonlyArray<OutgoingMessage> =>
      mailer.sentTo(email).filter((m) => m.messageId?.includes(message.id) === true)

    it.layer(layer, { timeout: "120 seconds" })((it) => {
      it.effect("email.queued events dispatch one delivery job per message, keyed by the message, however often they come", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const store = yield* Store
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["ada@example.org", "bob@example.org"]))
          const events = yield* store.events.list(account.id, { type: "email.queued" })
          const mine = events.filter((e) => e.details["messageId"] === message.id)
          expect(mine).toHaveLength(2)
          const before = enqueued.length
          yield* dispatchQueuedMessages(mine)
          yield* dispatchQueuedMessages(mine)
          const jobs = enqueued.slice(before)
          expect(jobs).toEqual([
            { name: messageDeliveryJob.name, payload: { accountId: account.id, messageId: message.id }, dedupeKey: message.id },
            { name: messageDeliveryJob.name, payload: { accountId: account.id, messageId: message.id }, dedupeKey: message.id },
          ])
        }))

      it.effect("email.queued events of several messages dispatch one job per account for them, whose run delivers each message once", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const other = yield* setup
          const store = yield* Store
          const first = yield* storeAcceptedMessage(account.id, sendBodyTo(["ada@example.org", "bob@example.org"]))
          const second = yield* storeAcceptedMessage(account.id, sendBodyTo(["carol@example.org"]))
          const elsewhere = yield* storeAcceptedMessage(other.id, sendBodyTo(["dan@example.org"]))
          const queuedOf = (accountId: AccountId) => store.events.list(accountId, { type: "email.queued" })
          const events = [...(yield* queuedOf(account.id)), ...(yield* queuedOf(other.id))]
          const before = enqueued.length
          yield* dispatchQueuedMessages(events)
          expect(enqueued.slice(before)).toEqual([
            {
              name: messageDeliveryJob.name,
              payload: { accountId: account.id, messageId: first.id, batch: [first.id, second.id] },
              dedupeKey: first.id,
            },
            { name: messageDeliveryJob.name, payload: { accountId: other.id, messageId: elsewhere.id }, dedupeKey: elsewhere.id },
          ])
          const payload = enqueued[before]!.payload as { accountId: string; messageId: string; batch: ReadonlyArray<string> }
          expect(Either.isRight(yield* Effect.either(deliverMessage(payload, run(1))))).toBe(true)
          expect(yield* statuses(first)).toEqual({ "ada@example.org": "delivered", "bob@example.org": "delivered" })
          expect(yield* statuses(second)).toEqual({ "carol@example.org": "delivered" })
          expect(yield* statuses(elsewhere)).toEqual({ "dan@example.org": "queued" })
          // A second run of the same job finds nothing waiting: nothing is sent twice.
          expect(Either.isRight(yield* Effect.either(deliverMessage(payload, run(2))))).toBe(true)
          expect([sentTo(first, "ada@example.org"), sentTo(first, "bob@example.org"), sentTo(second, "carol@example.org")]
            .map((sent) => sent.length)).toEqual([1, 1, 1])
        }))

      it.effect(`a run takes up to ${recipientsPerRun} recipients: a message of ${recipientsPerRun} has a job of its own, smaller ones share`, () =>
        Effect.gen(function* () {
          const account = yield* setup
          const store = yield* Store
          const large = yield* storeAcceptedMessage(account.id, sendBodyTo(Array.from({ length: recipientsPerRun }, (_, i) => `reader-${i}@example.org`)))
          const small = yield* Effect.forEach(Array.from({ length: recipientsPerRun + 2 }, (_, i) => `single-${i}@example.org`), (email) =>
            storeAcceptedMessage(account.id, sendBodyTo([email])))
          const before = enqueued.length
          yield* dispatchQueuedMessages(yield* store.events.list(account.id, { type: "email.queued" }))
          const ids = small.map((m) => m.id)
          expect(enqueued.slice(before).map((job) => job.payload)).toEqual([
            { accountId: account.id, messageId: large.id },
            { accountId: account.id, messageId: ids[0], batch: ids.slice(0, recipientsPerRun) },
            { accountId: account.id, messageId: ids[recipientsPerRun], batch: ids.slice(recipientsPerRun) },
          ])
        }))

      it.effect("2xx: each recipient gets its own rendered submission and email.delivered with the envelope fields and metadata", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["ada@example.org"], {
            cc: [{ email: "bob@example.org" }], bcc: [{ email: "carol@example.org" }],
          }))
          expect(Either.isRight(yield* deliver(message))).toBe(true)
          expect(yield* statuses(message)).toEqual({ "ada@example.org": "delivered", "bob@example.org": "delivered", "carol@example.org": "delivered" })
          const ada = sentTo(message, "ada@example.org")
          expect(ada).toHaveLength(1)
          expect(ada[0]).toMatchObject({
            envelopeFrom: "bounces@mail.example.com",
            envelopeTo: ["ada@example.org"],
            subject: "Hello Ada <3",
            html: "<p>Hi Ada &lt;3</p>",
            text: "Hi Ada <3",
            messageId: recipientMessageId(message.id, 0, "example.com"),
            dkim: dkimKey,
          })
          expect(ada[0]!.headers).toBeUndefined()
          expect(sentTo(message, "carol@example.org")[0]!.envelopeTo).toEqual(["carol@example.org"])
          expect(sentTo(message, "carol@example.org")[0]!.to.map((a) => a.email)).toEqual(["ada@example.org"])
          const delivered = (yield* outboxEvents(account.id, "email.delivered")).filter((e) => e.details["messageId"] === message.id)
          expect(delivered.map((e) => e.recipient).sort()).toEqual(["ada@example.org", "bob@example.org", "carol@example.org"])
          expect(delivered[0]!.details).toEqual({
            messageId: message.id, sender: "news@example.com", subject: "Hello Ada <3", status: "delivered",
            smtpResponse: "250 2.0.0 OK: queued", metadata: { orderId: 42 },
          })
          const details = yield* (yield* Messages).get(account, message.id)
          expect(details.status).toBe("delivered")
          expect(details.message.recipients.map((r) => r.attempts)).toEqual([1, 1, 1])
          expect(details.events.filter((e) => e.type === "email.delivered")).toHaveLength(3)
          // A run again (at least once) sends nothing more.
          const sent = mailer.sent.length
          expect(Either.isRight(yield* deliver(message, 2))).toBe(true)
          expect(mailer.sent.length).toBe(sent)
        }))

      it.effect("marketing mail carries one-click List-Unsubscribe headers and {{unsubscribe_url}} with a working token", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["ada@example.org"], {
            from: { email: "news@other.example" },
            content: { subject: "News", html: "<a href=\"{{unsubscribe_url}}\">unsubscribe</a> <a href=\"{{preferences_url}}\">prefs</a>" },
            suppressionGroupId: "grp_news",
          }))
          expect(Either.isRight(yield* deliver(message))).toBe(true)
          const sent = sentTo(message, "ada@example.org")[0]!
          const header = sent.headers?.["List-Unsubscribe"] ?? ""
          const url = /^<(http[^>]+\/u\/([^>]+))>, <mailto:unsubscribe@other\.example\?subject=unsubscribe>$/.exec(header)
          expect(url).not.toBeNull()
          expect(sent.headers?.["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click")
          expect(sent.html).toContain(`href="${url![1]}"`)
          expect(sent.html).toMatch(/href="http[^"]+\/p\/[^"]+">prefs/)
          expect(sent.dkim).toBeUndefined()
          const claims = yield* (yield* Tokens).verify("unsubscribe", url![2]!)
          expect(claims).toMatchObject({ a: account.id, r: "ada@example.org", t: "grp_news" })
        }))

      it.effect("4xx: email.deferred, the run fails so the queue retries it, and a later attempt delivers; others are not re-sent", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["ada@example.org", "bob@example.org"]))
          mailer.answerWith(answerBy({ "ada@example.org": { status: "deferred", code: 421, reply: "421 4.7.0 Try again later" } }))
          const first = yield* deliver(message)
          expect(Either.isLeft(first) && first.left).toBeInstanceOf(DeliveryDeferred)
          expect(yield* statuses(message)).toEqual({ "ada@example.org": "deferred", "bob@example.org": "delivered" })
          const deferred = (yield* outboxEvents(account.id, "email.deferred")).filter((e) => e.details["messageId"] === message.id)
          expect(deferred.map((e) => [e.recipient, e.details["smtpResponse"], e.details["status"]])).toEqual([
            ["ada@example.org", "421 4.7.0 Try again later", "deferred"],
          ])
          mailer.answerWith(accepted)
          expect(Either.isRight(yield* deliver(message, 2))).toBe(true)
          expect(yield* statuses(message)).toEqual({ "ada@example.org": "delivered", "bob@example.org": "delivered" })
          expect(sentTo(message, "ada@example.org")).toHaveLength(2)
          expect(sentTo(message, "bob@example.org")).toHaveLength(1)
          expect((yield* reload(message)).recipients[0]!.attempts).toBe(2)
        }))

      it.effect("a hard bounce is recorded whole or not at all: a fault on the contact leaves no suppression, event or status", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const store = yield* Store
          yield* store.contacts.insert(makeContact({ accountId: account.id, email: "gone@example.org" }))
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["gone@example.org"]))
          mailer.answerWith(() => ({ status: "bounced", code: 550, reply: "550 5.1.1 No such user" }))
          contactUpdatesFail = true
          const failed = yield* Effect.ensuring(deliver(message), Effect.sync(() => { contactUpdatesFail = false }))
          expect(Either.isLeft(failed)).toBe(true)
          expect(Option.isNone(yield* store.suppressions.findByEmail(account.id, "gone@example.org" as never))).toBe(true)
          expect((yield* outboxEvents(account.id, "email.bounced")).filter((e) => e.details["messageId"] === message.id)).toEqual([])
          expect(Option.getOrThrow(yield* store.contacts.findByEmail(account.id, "gone@example.org" as never)).status).toBe("ACTIVE")
          // Submitted but not recorded: held for review, never sent again by itself.
          expect(yield* statuses(message)).toEqual({ "gone@example.org": "held" })
        }))

      it.effect("the quota reserved at acceptance is neither refunded by a bounce nor reserved again by a retry", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const quota = yield* Quota
          const store = yield* Store
          const sent = yield* (yield* Sending).send(account, sendBodyTo(["gone@example.org", "busy@example.org", "ada@example.org"]))
          expect((yield* quota.usage(account)).used).toBe(3)
          const message = Option.getOrThrow(yield* store.messages.findById(account.id, sent.id as never))
          mailer.answerWith(answerBy({
            "gone@example.org": { status: "bounced", code: 550, reply: "550 5.1.1 No such user" },
            "busy@example.org": { status: "deferred", code: 421, reply: "421 4.7.0 Try again later" },
          }))
          expect(Either.isLeft(yield* deliver(message))).toBe(true)
          expect((yield* quota.usage(account)).used).toBe(3)
          mailer.answerWith(accepted)
          expect(Either.isRight(yield* deliver(message, 2))).toBe(true)
          expect(yield* statuses(message)).toEqual({ "gone@example.org": "bounced", "busy@example.org": "delivered", "ada@example.org": "delivered" })
          expect((yield* quota.usage(account)).used).toBe(3)
        }))

      it.effect("a recipient still deferred on the queue's last attempt bounces softly, with no suppression", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const store = yield* Store
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["full@example.org"]))
          mailer.answerWith(() => ({ status: "deferred", code: 452, reply: "452 4.2.2 Mailbox full" }))
          expect(Either.isRight(yield* deliver(message, deferralDelays.length + 1))).toBe(true)
          expect(yield* statuses(message)).toEqual({ "full@example.org": "bounced" })
          const bounced = (yield* outboxEvents(account.id, "email.bounced")).find((e) => e.details["messageId"] === message.id)
          expect(bounced?.details).toMatchObject({ bounceType: "soft", status: "bounced", smtpResponse: "452 4.2.2 Mailbox full" })
          expect(Option.isNone(yield* store.suppressions.findByEmail(account.id, "full@example.org" as never))).toBe(true)
        }))

      it.effect("5xx: email.bounced, hard, with a Bounce suppression carrying code, reason, message id and time; 5.x.x is hard on any reply", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const store = yield* Store
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["gone@example.org", "odd@example.org", "full@example.org"]))
          mailer.answerWith(answerBy({
            "gone@example.org": { status: "bounced", code: 550, reply: "550 5.1.1 No such user" },
            "odd@example.org": { status: "deferred", code: 450, reply: "450 5.7.1 Blocked by policy" },
            "full@example.org": { status: "bounced", code: 552, reply: "552 4.2.2 Mailbox full" },
          }))
          expect(Either.isRight(yield* deliver(message))).toBe(true)
          expect(yield* statuses(message)).toEqual({ "gone@example.org": "bounced", "odd@example.org": "bounced", "full@example.org": "bounced" })
          const gone = Option.getOrThrow(yield* store.suppressions.findByEmail(account.id, "gone@example.org" as never))
          expect(gone.reason).toBe("Bounce")
          expect(gone.details).toEqual({
            bounceCode: "5.1.1", bounceReason: "550 5.1.1 No such user", messageId: message.id, recordedAt: expect.any(String),
          })
          expect(Option.getOrThrow(yield* store.suppressions.findByEmail(account.id, "odd@example.org" as never)).reason).toBe("Bounce")
          expect(Option.isNone(yield* store.suppressions.findByEmail(account.id, "full@example.org" as never))).toBe(true)
          const events = (yield* outboxEvents(account.id, "email.bounced")).filter((e) => e.details["messageId"] === message.id)
          expect(Object.fromEntries(events.map((e) => [e.recipient, e.details["bounceType"]]))).toEqual({
            "gone@example.org": "hard", "odd@example.org": "hard", "full@example.org": "soft",
          })
          const details = yield* (yield* Messages).get(account, message.id)
          expect(details.events.find((e) => e.recipient === "gone@example.org" && e.type === "email.bounced")).toMatchObject({
            bounceType: "hard", bounceCode: "5.1.1", smtpResponse: "550 5.1.1 No such user",
          })
        }))

      it.effect("a hard bounce, from the relay or a DSN, moves the address's ACTIVE contact to BOUNCED; nothing else moves", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const other = yield* setup
          const store = yield* Store
          const feedback = yield* Feedback
          const contactStatus = (accountId: AccountId, email: string) =>
            Effect.map(store.contacts.findByEmail(accountId, email as never), (c) => Option.getOrThrow(c).status)
          for (const [email, status] of [
            ["gone@example.org", "ACTIVE"], ["left@example.org", "UNSUBSCRIBED"], ["full@example.org", "ACTIVE"],
            ["later@example.org", "ACTIVE"], ["nomessage@example.org", "ACTIVE"],
          ] as const) {
            yield* store.contacts.insert(makeContact({ accountId: account.id, email, status }))
          }
          yield* store.contacts.insert(makeContact({ accountId: other.id, email: "gone@example.org" }))
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["gone@example.org", "left@example.org", "full@example.org", "later@example.org"]))
          mailer.answerWith(answerBy({
            "gone@example.org": { status: "bounced", code: 550, reply: "550 5.1.1 No such user" },
            "left@example.org": { status: "bounced", code: 550, reply: "550 5.1.1 No such user" },
            "full@example.org": { status: "bounced", code: 552, reply: "552 4.2.2 Mailbox full" },
          }))
          expect(Either.isRight(yield* deliver(message))).toBe(true)
          expect(yield* contactStatus(account.id, "gone@example.org")).toBe("BOUNCED")
          // UNSUBSCRIBED -> BOUNCED is no transition of the spec: the Bounce suppression alone keeps mail away.
          expect(yield* contactStatus(account.id, "left@example.org")).toBe("UNSUBSCRIBED")
          expect(Option.getOrThrow(yield* store.suppressions.findByEmail(account.id, "left@example.org" as never)).reason).toBe("Bounce")
          expect(yield* contactStatus(account.id, "full@example.org")).toBe("ACTIVE")
          expect(yield* contactStatus(account.id, "later@example.org")).toBe("ACTIVE")
          expect(yield* contactStatus(other.id, "gone@example.org")).toBe("ACTIVE")
          const bounced = (yield* outboxEvents(account.id, "email.bounced")).filter((e) => e.details["messageId"] === message.id)
          expect(bounced.map((e) => e.recipient).sort()).toEqual(["full@example.org", "gone@example.org", "left@example.org"])

          // An asynchronous bounce of a delivered recipient, and one about an address no message matches.
          yield* feedback.recordDeliveryReport(account, {
            originalMessageIds: [recipientMessageId(message.id, 3, "example.com")],
            recipients: [{ recipient: "later@example.org", action: "failed", status: "5.1.1", diagnosticCode: "smtp; 550 5.1.1 gone" }],
          })
          yield* feedback.recordDeliveryReport(account, {
            originalMessageIds: [],
            recipients: [{ recipient: "nomessage@example.org", action: "failed", status: "5.1.1" }],
          })
          expect(yield* contactStatus(account.id, "later@example.org")).toBe("BOUNCED")
          expect(yield* contactStatus(account.id, "nomessage@example.org")).toBe("BOUNCED")
          expect(Option.getOrThrow(yield* store.suppressions.findByEmail(account.id, "nomessage@example.org" as never)).reason).toBe("Bounce")
          // A bounce is no unsubscribe: no contact event fires.
          expect(yield* store.events.list(account.id, { type: "contact.unsubscribed" })).toEqual([])
        }))

      it.effect("a hard bounce does not overwrite a move that committed after it read the contact ACTIVE (UNSUBSCRIBED stays)", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const store = yield* Store
          const contact = makeContact({ accountId: account.id, email: "moved@example.org", status: "ACTIVE" })
          yield* store.contacts.insert(contact)
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["moved@example.org"]))
          mailer.answerWith(answerBy({ "moved@example.org": { status: "bounced", code: 550, reply: "550 5.1.1 No such user" } }))
          // The bounce's read of the contact answers it as it was before a concurrent move to UNSUBSCRIBED committed
          // (transactional mail still goes to an UNSUBSCRIBED contact; UNSUBSCRIBED -> BOUNCED is no transition).
          yield* store.contacts.update({ ...contact, status: "UNSUBSCRIBED" })
          const staleReads = { ...store, contacts: { ...store.contacts, findByEmail: () => Effect.succeed(Option.some(contact)) } }
          expect(Either.isRight(yield* Effect.provideService(deliver(message), Store, staleReads))).toBe(true)
          expect(yield* statuses(message)).toEqual({ "moved@example.org": "bounced" })
          expect(Option.getOrThrow(yield* store.contacts.findById(account.id, contact.id)).status).toBe("UNSUBSCRIBED")
        }))

      it.effect("unknown outcome: the recipient is held, no event fires, and no later run sends it again", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const delivery = yield* MessageDelivery
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["ada@example.org", "bob@example.org"]))
          mailer.answerWith(answerBy({ "ada@example.org": { status: "unknown", reply: "connection closed after DATA" } }))
          expect(Either.isRight(yield* deliver(message))).toBe(true)
          expect(yield* statuses(message)).toEqual({ "ada@example.org": "held", "bob@example.org": "delivered" })
          expect((yield* (yield* Messages).get(account, message.id)).status).toBe("held")
          mailer.answerWith(accepted)
          yield* deliver(message, 2)
          expect(sentTo(message, "ada@example.org")).toHaveLength(1)
          const held = yield* delivery.listHeld(account.id, 100)
          expect(held.filter((h) => h.messageId === message.id).map((h) => [h.recipient.email, h.recipient.lastResponse])).toEqual([
            ["ada@example.org", "connection closed after DATA"],
          ])
        }))

      it.effect("an operator resolves held recipients: delivered and bounced record their event; resend queues a job that sends it", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const store = yield* Store
          const delivery = yield* MessageDelivery
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["a@example.org", "b@example.org", "c@example.org"]))
          mailer.answerWith(() => ({ status: "unknown", reply: "connection lost" }))
          yield* deliver(message)
          expect(Object.values(yield* statuses(message))).toEqual(["held", "held", "held"])
          yield* delivery.resolveHeld(account.id, message.id, "a@example.org", "delivered")
          yield* delivery.resolveHeld(account.id, message.id, "B@example.org", "bounced")
          const before = enqueued.length
          yield* delivery.resolveHeld(account.id, message.id, "c@example.org", "resend")
          expect(enqueued.slice(before)).toEqual([
            { name: messageDeliveryJob.name, payload: { accountId: account.id, messageId: message.id }, dedupeKey: message.id },
          ])
          expect(yield* statuses(message)).toEqual({ "a@example.org": "delivered", "b@example.org": "bounced", "c@example.org": "queued" })
          expect(Option.isNone(yield* store.suppressions.findByEmail(account.id, "b@example.org" as never))).toBe(true)
          mailer.answerWith(accepted)
          yield* deliver(message, 2)
          expect(yield* statuses(message)).toEqual({ "a@example.org": "delivered", "b@example.org": "bounced", "c@example.org": "delivered" })
          expect(sentTo(message, "a@example.org")).toHaveLength(1)
          expect(sentTo(message, "c@example.org")).toHaveLength(2)
          // Not held any more, unknown recipient, foreign message: refused, nothing changes.
          expect((yield* Effect.flip(delivery.resolveHeld(account.id, message.id, "a@example.org", "resend")))._tag).toBe("ValidationFailed")
          expect((yield* Effect.flip(delivery.resolveHeld(account.id, message.id, "z@example.org", "resend")))._tag).toBe("ResourceNotFound")
          const other = yield* setup
          expect((yield* Effect.flip(delivery.resolveHeld(other.id, message.id, "a@example.org", "resend")))._tag).toBe("ResourceNotFound")
          expect(yield* statuses(message)).toEqual({ "a@example.org": "delivered", "b@example.org": "bounced", "c@example.org": "delivered" })
        }))

      it.effect("a relay that cannot be reached sends nothing: recipients stay queued and the run fails to be retried", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["ada@example.org"]))
          const failing = Layer.succeed(Mailer, {
            send: () => Effect.fail(new MailerError({ detail: "connect ECONNREFUSED 127.0.0.1:1", cause: null })),
          })
          const result = yield* Effect.provide(deliver(message), failing)
          expect(Either.isLeft(result)).toBe(true)
          const stored = yield* reload(message)
          expect(stored.recipients[0]).toMatchObject({ status: "queued", attempts: 0 })
          expect(stored.recipients[0]!.lastResponse).toContain("ECONNREFUSED")
          expect(Either.isRight(yield* deliver(message, 2))).toBe(true)
          expect(yield* statuses(message)).toEqual({ "ada@example.org": "delivered" })
        }))

      it.effect("a run that dies during submission leaves its recipients held: the retry never sends them twice", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["ada@example.org"]))
          const dying = Layer.succeed(Mailer, { send: () => Effect.die(new Error("process killed")) })
          const result = yield* Effect.exit(Effect.provide(deliver(message), dying))
          expect(result._tag).toBe("Failure")
          expect(yield* statuses(message)).toEqual({ "ada@example.org": "held" })
          const sent = mailer.sent.length
          yield* deliver(message, 2)
          expect(mailer.sent.length).toBe(sent)
          expect(yield* statuses(message)).toEqual({ "ada@example.org": "held" })
        }))

      it.effect("an address that complained after acceptance is dropped at delivery with email.dropped, and not sent", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const store = yield* Store
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["ada@example.org", "bob@example.org"]))
          yield* (yield* Suppressions).add(account, { email: "bob@example.org" as never, reason: "Complaint" })
          expect(Either.isRight(yield* deliver(message))).toBe(true)
          expect(yield* statuses(message)).toEqual({ "ada@example.org": "delivered", "bob@example.org": "dropped" })
          expect(sentTo(message, "bob@example.org")).toHaveLength(0)
          const dropped = (yield* store.events.list(account.id, { type: "email.dropped" })).filter((e) => e.details["messageId"] === message.id)
          expect(dropped.map((e) => [e.recipient, e.details["reason"], e.details["bounceReason"], e.details["status"]]))
            .toEqual([["bob@example.org", "COMPLAINT_SUPPRESSION", "COMPLAINT_SUPPRESSION", "dropped"]])
          expect((yield* (yield* Messages).get(account, message.id)).status).toBe("partially_delivered")
        }))

      it.effect("addresses suppressed at acceptance (Complaint in Cc, Bounce in To) are left out of the To and Cc headers, not only the envelope", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const store = yield* Store
          const suppressions = yield* Suppressions
          yield* suppressions.add(account, { email: "bob@example.org" as never, reason: "Complaint" })
          yield* suppressions.add(account, { email: "dan@example.org" as never, reason: "Bounce" })
          const sent = yield* (yield* Sending).send(account, sendBodyTo(["ada@example.org", "dan@example.org"], {
            cc: [{ email: "bob@example.org" }, { email: "carol@example.org", name: "Carol" }], bcc: [{ email: "erin@example.org" }],
          }))
          const message = Option.getOrThrow(yield* store.messages.findById(account.id, sent.id as never))
          expect(Either.isRight(yield* deliver(message))).toBe(true)
          expect(yield* statuses(message)).toEqual({
            "ada@example.org": "delivered", "dan@example.org": "dropped", "bob@example.org": "dropped",
            "carol@example.org": "delivered", "erin@example.org": "delivered",
          })
          expect(sentTo(message, "bob@example.org")).toHaveLength(0)
          expect(sentTo(message, "dan@example.org")).toHaveLength(0)
          for (const recipient of ["ada@example.org", "carol@example.org", "erin@example.org"]) {
            const submissions = sentTo(message, recipient)
            expect(submissions, recipient).toHaveLength(1)
            expect(submissions[0]!.envelopeTo).toEqual([recipient])
            expect(submissions[0]!.to).toEqual([{ email: "ada@example.org" }])
            expect(submissions[0]!.cc).toEqual([{ email: "carol@example.org", name: "Carol" }])
          }
        }))

      it.effect("an address that complained after acceptance leaves the Cc header of the others' submissions too", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["ada@example.org"], {
            cc: [{ email: "bob@example.org" }, { email: "carol@example.org" }],
          }))
          yield* (yield* Suppressions).add(account, { email: "bob@example.org" as never, reason: "Complaint" })
          expect(Either.isRight(yield* deliver(message))).toBe(true)
          expect(yield* statuses(message)).toEqual({ "ada@example.org": "delivered", "bob@example.org": "dropped", "carol@example.org": "delivered" })
          expect(sentTo(message, "bob@example.org")).toHaveLength(0)
          for (const recipient of ["ada@example.org", "carol@example.org"]) {
            expect(sentTo(message, recipient).map((m) => m.cc)).toEqual([[{ email: "carol@example.org" }]])
          }
        }))

      it.effect("a To header whose every address was dropped shows the sender, as for a Bcc-only message; Cc keeps the rest", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["ada@example.org"], { cc: [{ email: "carol@example.org" }] }))
          yield* (yield* Suppressions).add(account, { email: "ada@example.org" as never, reason: "Bounce" })
          expect(Either.isRight(yield* deliver(message))).toBe(true)
          const carol = sentTo(message, "carol@example.org")
          expect(carol).toHaveLength(1)
          expect(carol[0]!.to).toEqual([{ email: "news@example.com", name: "Example News" }])
          expect(carol[0]!.cc).toEqual([{ email: "carol@example.org" }])
        }))

      it.effect("a send whose every recipient is suppressed answers queued, emits email.dropped for each and no email.queued, and sends nothing", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const store = yield* Store
          const suppressions = yield* Suppressions
          yield* suppressions.add(account, { email: "bob@example.org" as never, reason: "Complaint" })
          yield* suppressions.add(account, { email: "dan@example.org" as never, reason: "Bounce" })
          const sent = yield* (yield* Sending).send(account, sendBodyTo(["dan@example.org"], { cc: [{ email: "bob@example.org" }] }))
          expect(sent.status).toBe("queued")
          const mine = <A extends { readonly details: Record<string, unknown> }>(events: ReadonlyArray<A>) =>
            events.filter((e) => e.details["messageId"] === sent.id)
          expect(mine(yield* store.events.list(account.id, { type: "email.queued" }))).toEqual([])
          const dropped = mine(yield* store.events.list(account.id, { type: "email.dropped" }))
          expect(dropped.map((e) => [e.recipient, e.details["reason"]]).sort()).toEqual([
            ["bob@example.org", "COMPLAINT_SUPPRESSION"], ["dan@example.org", "BOUNCE_SUPPRESSION"],
          ])
          const before = enqueued.length
          yield* dispatchQueuedMessages(yield* store.events.list(account.id, { type: "email.queued" }))
          expect(enqueued.slice(before).filter((job) => JSON.stringify(job.payload).includes(sent.id))).toEqual([])
          const message = Option.getOrThrow(yield* store.messages.findById(account.id, sent.id as never))
          const sentBefore = mailer.sent.length
          expect(Either.isRight(yield* deliver(message))).toBe(true)
          expect(mailer.sent.length).toBe(sentBefore)
          expect((yield* (yield* Messages).get(account, sent.id)).status).toBe("dropped")
        }))

      it.effect("a message whose every recipient complained or bounced after acceptance is not sent: email.dropped for each", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const store = yield* Store
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["ada@example.org"], { cc: [{ email: "bob@example.org" }] }))
          yield* (yield* Suppressions).add(account, { email: "ada@example.org" as never, reason: "Bounce" })
          yield* (yield* Suppressions).add(account, { email: "bob@example.org" as never, reason: "Complaint" })
          const sentBefore = mailer.sent.length
          expect(Either.isRight(yield* deliver(message))).toBe(true)
          expect(mailer.sent.length).toBe(sentBefore)
          expect(yield* statuses(message)).toEqual({ "ada@example.org": "dropped", "bob@example.org": "dropped" })
          const dropped = (yield* store.events.list(account.id, { type: "email.dropped" })).filter((e) => e.details["messageId"] === message.id)
          expect(dropped.map((e) => e.recipient).sort()).toEqual(["ada@example.org", "bob@example.org"])
          expect((yield* (yield* Messages).get(account, message.id)).status).toBe("dropped")
        }))

      it.effect("a DSN bounces the recipient its Message-ID names, with a Bounce suppression; a delay only adds email.deferred", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const store = yield* Store
          const feedback = yield* Feedback
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["ada@example.org", "bob@example.org"]))
          yield* deliver(message)
          const outcomes = yield* feedback.recordDeliveryReport(account, {
            originalMessageIds: [recipientMessageId(message.id, 1, "example.com")],
            recipients: [{ recipient: "bob@example.org", action: "failed", status: "5.1.1", diagnosticCode: "smtp; 550 5.1.1 user unknown" }],
          })
          expect(outcomes).toEqual([{ recipient: "bob@example.org", messageId: message.id, result: "bounced", bounceType: "hard" }])
          expect(yield* statuses(message)).toEqual({ "ada@example.org": "delivered", "bob@example.org": "bounced" })
          expect(Option.getOrThrow(yield* store.suppressions.findByEmail(account.id, "bob@example.org" as never)).details).toMatchObject({
            bounceCode: "5.1.1", bounceReason: "550 5.1.1 user unknown", messageId: message.id,
          })
          yield* feedback.recordDeliveryReport(account, {
            originalMessageIds: [recipientMessageId(message.id, 0, "example.com")],
            recipients: [{ recipient: undefined, action: "delayed", status: "4.4.1" }],
          })
          expect((yield* statuses(message))["ada@example.org"]).toBe("delivered")
          const deferred = (yield* outboxEvents(account.id, "email.deferred")).filter((e) => e.details["messageId"] === message.id)
          expect(deferred.map((e) => e.recipient)).toEqual(["ada@example.org"])
          // Another account's report about this message changes nothing of it.
          const other = yield* setup
          const foreign = yield* feedback.recordDeliveryReport(other, {
            originalMessageIds: [recipientMessageId(message.id, 0, "example.com")],
            recipients: [{ recipient: "ada@example.org", action: "failed", status: "5.0.0" }],
          })
          expect(foreign).toEqual([{ recipient: "ada@example.org", messageId: null, result: "bounced", bounceType: "hard" }])
          expect((yield* statuses(message))["ada@example.org"]).toBe("delivered")
          expect(Option.isNone(yield* store.suppressions.findByEmail(account.id, "ada@example.org" as never))).toBe(true)
        }))

      it.effect("an ARF complaint adds a Complaint suppression, sets the contact COMPLAINED and fires contact.unsubscribed (complaint), together", () =>
        Effect.gen(function* () {
          const account = yield* setup
          const store = yield* Store
          const feedback = yield* Feedback
          yield* store.contacts.insert(makeContact({ accountId: account.id, email: "ada@example.org" }))
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["ada@example.org"]))
          yield* deliver(message)
          const outcomes = yield* feedback.recordComplaint(account, {
            feedbackType: "abuse", originalMessageIds: [recipientMessageId(message.id, 0, "example.com")], originalRcptTo: [],
          })
          expect(outcomes).toEqual([{ recipient: "ada@example.org", messageId: message.id, result: "complained" }])
          expect(Option.getOrThrow(yield* store.suppressions.findByEmail(account.id, "ada@example.org" as never)).reason).toBe("Complaint")
          expect(Option.getOrThrow(yield* store.contacts.findByEmail(account.id, "ada@example.org" as never)).status).toBe("COMPLAINED")
          const unsubscribed = yield* store.events.list(account.id, { type: "contact.unsubscribed" })
          expect(unsubscribed.map((e) => [e.recipient, e.details["method"], e.details["scope"]])).toEqual([["ada@example.org", "complaint", "all"]])
          // not-spam records nothing; a report naming no recipient is refused.
          expect((yield* feedback.recordComplaint(account, { feedbackType: "not-spam", originalMessageIds: [], originalRcptTo: ["bob@example.org"] }))[0]!.result).toBe("ignored")
          expect(Option.isNone(yield* store.suppressions.findByEmail(account.id, "bob@example.org" as never))).toBe(true)
          expect((yield* Effect.flip(feedback.recordComplaint(account, { feedbackType: "abuse", originalMessageIds: [], originalRcptTo: [] })))._tag).toBe("ValidationFailed")
        }))
    })
  })
