/** The acceptance side of sending (the Sending service): send, batch, schedule and cancel, with send-time filtering,
 *  the quota, Idempotency-Key and the scheduled-send task, run by every backend package against its own Store layer.
 *  Time comes from TestClock. Every refused request is checked to have changed nothing: no event, no quota used.
 *  Spec: sending "Sending" (rules 1-3), "Send responses", "States and transitions" (Message rows), "Limits"; audience
 *  rule 7 and the send-time filtering table. */
import { expect, it } from "@effect/vitest"
import {
  type Account, Accounts, Background, Contacts, type EmailAddress, IdsLive, JobQueue, Mailer, Messages, type Plan, Quota, Sending,
  servicesLayer, Store, Suppressions, Topics, webhookEnvelope,
} from "@mailroom/core"
import { Effect, Exit, Layer, Scope, TestClock, TestServices } from "effect"
import { testTemplateEngine } from "./template-engine.js"

/** Eligibility queries made through the Store, counted across the suite (each test reads the difference). */
let eligibilityQueries = 0

/** The backend's Store with its eligibility query counted. */
const countingStore = <E>(storeLayer: Layer.Layer<Store, E>) =>
  Layer.effect(Store, Effect.map(Store, (store) => ({
    ...store,
    suppressions: {
      ...store.suppressions,
      eligibility: (...args: Parameters<typeof store.suppressions.eligibility>) =>
        Effect.zipRight(Effect.sync(() => { eligibilityQueries++ }), store.suppressions.eligibility(...args)),
    },
  }))).pipe(Layer.provide(storeLayer))

/** The scheduled-send task is the only background work these tests watch: jobs that other services enqueue (the
 *  delivery of a queued message) are taken and never run, and nothing is mailed. */
const noJobs = Layer.mergeAll(
  Layer.succeed(JobQueue, {
    enqueue: () => Effect.succeed("job_not_run"),
    enqueueAll: (_, jobs) => Effect.succeed(jobs.map(() => "job_not_run")),
    work: () => Effect.void,
  }),
  Layer.succeed(Mailer, { send: () => Effect.die(new Error("these tests send no mail")) }),
)

const setNow = (iso: string) => TestClock.setTime(new Date(iso).getTime())

const freshAccount = (plan: Plan = "free") =>
  Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "acceptance suite", plan })).pipe(Effect.map(({ account }) => account))

const body = <F extends Record<string, unknown>>(fields: F = {} as F) => ({
  from: { email: "news@sender.example", name: "Sender" },
  to: [{ email: "ada@example.org" }],
  content: { subject: "Hello {{name}}", text: "Hi {{name}}" },
  ...fields,
})

const addresses = (...emails: ReadonlyArray<string>) => emails.map((email) => ({ email }))

/** The account's outbox events of one type, as [recipient, reason] pairs. An email.dropped event also carries its
 *  reason as the webhook envelope's bounceReason, with status "dropped". */
const events = (account: Account, type: "email.queued" | "email.dropped") =>
  Effect.flatMap(Store, (store) => store.events.list(account.id, { type })).pipe(
    Effect.tap((list) => {
      for (const e of list.filter((e) => e.type === "email.dropped")) {
        expect(webhookEnvelope(e)).toMatchObject({ eventType: "email.dropped", status: "dropped", bounceReason: e.details.reason })
      }
    }),
    Effect.map((list) => list.map((e) => [e.recipient, e.details.reason ?? null])),
  )

/** Nothing happened in the account: no event, no quota used. */
const expectUntouched = (account: Account) =>
  Effect.gen(function* () {
    const store = yield* Store
    expect(yield* store.events.list(account.id)).toEqual([])
    expect((yield* (yield* Quota).usage(account)).used).toBe(0)
  })

const suppress = (account: Account, email: string, reason: "Bounce" | "Complaint" | "Manual" | "Unsubscribe") =>
  Effect.flatMap(Suppressions, (s) => s.add(account, { email: email as EmailAddress, reason }))

export const sendingAcceptSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  it.layer(Layer.provideMerge(servicesLayer, Layer.mergeAll(countingStore(storeLayer), IdsLive, noJobs, testTemplateEngine)), { timeout: "60 seconds" })(
    `Sending acceptance (${backend})`,
    (it) => {
      it.effect("a send is queued with one email.queued per distinct recipient; a copy differing in case is dropped", () =>
        Effect.gen(function* () {
          yield* setNow("2026-03-10T10:00:00Z")
          const sending = yield* Sending
          const account = yield* freshAccount()
          const result = yield* sending.send(account, body({
            to: addresses("ada@example.org", "Bob@Example.org"),
            cc: addresses("ADA@example.org", "carol@example.org"),
            bcc: addresses("bob@example.org", "dan@example.org"),
            metadata: { order: 7 },
          }))
          expect(result).toEqual({
            id: expect.stringMatching(/^msg_/), status: "queued", from: "news@sender.example",
            to: ["ada@example.org", "bob@example.org"], subject: "Hello {{name}}", createdAt: new Date("2026-03-10T10:00:00Z"),
          })
          expect(yield* events(account, "email.queued")).toEqual([
            ["ada@example.org", null], ["bob@example.org", null], ["carol@example.org", null], ["dan@example.org", null],
          ])
          expect(yield* events(account, "email.dropped")).toEqual([
            ["ada@example.org", "DUPLICATE_RECIPIENT"], ["bob@example.org", "DUPLICATE_RECIPIENT"],
          ])
          const queued = (yield* (yield* Store).events.list(account.id, { type: "email.queued" }))[0]!
          expect(queued.details).toMatchObject({
            messageId: result.id, sender: "news@sender.example", subject: "Hello {{name}}", status: "queued", metadata: { order: 7 },
          })
          expect((yield* (yield* Quota).usage(account)).used).toBe(4)
          const details = yield* (yield* Messages).get(account, result.id)
          expect(details.status).toBe("queued")
          expect(details.message.recipients.map((r) => [r.email, r.field, r.status])).toEqual([
            ["ada@example.org", "to", "queued"], ["bob@example.org", "to", "queued"],
            ["carol@example.org", "cc", "queued"], ["dan@example.org", "bcc", "queued"],
          ])
          expect(details.events.filter((e) => e.type === "email.queued")).toHaveLength(4)
        }))

      it.effect("transactional mail drops only hard-bounced and complained addresses, from every envelope field", () =>
        Effect.gen(function* () {
          const sending = yield* Sending
          const account = yield* freshAccount()
          const topic = yield* (yield* Topics).create(account, { name: "News" })
          yield* suppress(account, "bounced@example.org", "Bounce")
          yield* suppress(account, "complained@example.org", "Complaint")
          yield* suppress(account, "unsub@example.org", "Unsubscribe")
          yield* suppress(account, "manual@example.org", "Manual")
          yield* (yield* Topics).addMember(account, topic.topic.id, "optout@example.org" as EmailAddress)
          const before = eligibilityQueries
          const result = yield* sending.send(account, body({
            to: addresses("ok@example.org", "bounced@example.org"),
            cc: addresses("complained@example.org", "unsub@example.org"),
            bcc: addresses("manual@example.org", "optout@example.org"),
          }))
          expect(eligibilityQueries - before).toBe(1)
          expect(result.to).toEqual(["ok@example.org", "bounced@example.org"])
          expect(yield* events(account, "email.queued")).toEqual([
            ["ok@example.org", null], ["unsub@example.org", null], ["manual@example.org", null], ["optout@example.org", null],
          ])
          expect(yield* events(account, "email.dropped")).toEqual([
            ["bounced@example.org", "BOUNCE_SUPPRESSION"], ["complained@example.org", "COMPLAINT_SUPPRESSION"],
          ])
          expect((yield* (yield* Quota).usage(account)).used).toBe(4)
          const details = yield* (yield* Messages).get(account, result.id)
          expect(details.message.recipients.filter((r) => r.status === "dropped").map((r) => r.email))
            .toEqual(["bounced@example.org", "complained@example.org"])
          expect(details.events.find((e) => e.type === "email.dropped")?.bounceReason).toBe("BOUNCE_SUPPRESSION")
        }))

      it.effect("marketing mail also honours every suppression, contact statuses and its topic's opt-outs", () =>
        Effect.gen(function* () {
          const sending = yield* Sending
          const account = yield* freshAccount()
          const topics = yield* Topics
          const news = (yield* topics.create(account, { name: "News" })).topic
          const other = (yield* topics.create(account, { name: "Other" })).topic
          yield* suppress(account, "unsub@example.org", "Unsubscribe")
          yield* suppress(account, "manual@example.org", "Manual")
          yield* topics.addMember(account, news.id, "optout@example.org" as EmailAddress)
          yield* topics.addMember(account, other.id, "elsewhere@example.org" as EmailAddress)
          const all = addresses("ok@example.org", "unsub@example.org", "manual@example.org", "optout@example.org", "elsewhere@example.org")
          yield* sending.send(account, body({ to: all, suppressionGroupId: news.id }))
          expect(yield* events(account, "email.dropped")).toEqual([
            ["unsub@example.org", "UNSUBSCRIBE_SUPPRESSION"], ["manual@example.org", "MANUAL_SUPPRESSION"],
            ["optout@example.org", "TOPIC_OPT_OUT"],
          ])
          expect(yield* events(account, "email.queued")).toEqual([["ok@example.org", null], ["elsewhere@example.org", null]])
          // stream "marketing" without a topic: suppressions, no opt-out.
          const second = yield* sending.send(account, body({ to: all, stream: "marketing" }))
          const details = yield* (yield* Messages).get(account, second.id)
          expect(details.message.recipients.map((r) => r.status)).toEqual(["queued", "dropped", "dropped", "queued", "queued"])
          expect(details.message.content).toMatchObject({ stream: "marketing", topicId: null, track: true })
          expect((yield* (yield* Quota).usage(account)).used).toBe(5)
        }))

      it.effect("marketing mail drops contacts that unsubscribed, bounced, complained or were cleaned", () =>
        Effect.gen(function* () {
          const sending = yield* Sending
          const account = yield* freshAccount("pro")
          const service = yield* Contacts
          for (const status of ["ACTIVE", "UNSUBSCRIBED", "BOUNCED", "COMPLAINED", "CLEANED"] as const) {
            yield* service.create(account, { email: `${status.toLowerCase()}@example.org`, status })
          }
          const all = addresses("active@example.org", "unsubscribed@example.org", "bounced@example.org", "complained@example.org", "cleaned@example.org")
          yield* sending.send(account, body({ to: all, stream: "marketing" }))
          expect(yield* events(account, "email.dropped")).toEqual([
            ["unsubscribed@example.org", "CONTACT_UNSUBSCRIBED"], ["bounced@example.org", "CONTACT_BOUNCED"],
            ["complained@example.org", "CONTACT_COMPLAINED"], ["cleaned@example.org", "CONTACT_CLEANED"],
          ])
          // Transactional: the unsubscribed contact gets it, the others do not.
          const transactional = yield* sending.send(account, body({ to: all }))
          const details = yield* (yield* Messages).get(account, transactional.id)
          expect(details.message.recipients.map((r) => r.status)).toEqual(["queued", "queued", "dropped", "dropped", "dropped"])
        }))

      it.effect("a batch is one message per entry, per-recipient variables override top-level ones, one eligibility query", () =>
        Effect.gen(function* () {
          yield* setNow("2026-04-02T08:00:00Z")
          const sending = yield* Sending
          const account = yield* freshAccount()
          yield* suppress(account, "gone@example.org", "Bounce")
          const before = eligibilityQueries
          const result = yield* sending.batch(account, {
            from: { email: "news@sender.example" },
            content: { subject: "Hi {{name}}", html: "<p>{{greeting}} {{name}}</p>" },
            variables: { greeting: "Hello", name: "friend" },
            recipients: [
              { to: { email: "ada@example.org" }, variables: { name: "Ada" } },
              { to: { email: "gone@example.org" } },
              { to: { email: "bob@example.org" }, cc: addresses("Carol@example.org", "BOB@example.org") },
            ],
          })
          expect(eligibilityQueries - before).toBe(1)
          expect(result).toEqual({
            batchId: expect.stringMatching(/^bat_/), status: "queued", totalRecipients: 3,
            messageIds: [expect.stringMatching(/^msg_/), expect.stringMatching(/^msg_/), expect.stringMatching(/^msg_/)],
            createdAt: new Date("2026-04-02T08:00:00Z"),
          })
          const reader = yield* Messages
          const messages = yield* Effect.forEach(result.messageIds, (id) => reader.get(account, id))
          expect(messages.map((m) => m.message.content.variables)).toEqual([
            { greeting: "Hello", name: "Ada" }, { greeting: "Hello", name: "friend" }, { greeting: "Hello", name: "friend" },
          ])
          expect(messages.map((m) => m.message.batchId)).toEqual([result.batchId, result.batchId, result.batchId])
          expect(messages.map((m) => m.status)).toEqual(["queued", "dropped", "queued"])
          expect(yield* events(account, "email.dropped")).toEqual([
            ["gone@example.org", "BOUNCE_SUPPRESSION"], ["bob@example.org", "DUPLICATE_RECIPIENT"],
          ])
          expect((yield* (yield* Quota).usage(account)).used).toBe(3)
        }))

      it.effect.each([
        ["html beside a template", body({ content: { templateId: "tpl_1", html: "<p>x</p>" } }), "VALIDATION_ERROR", "content.html"],
        ["CR in an address", body({ to: addresses("ada@example.org\r") }), "VALIDATION_ERROR", "to.0.email"],
        ["LF in a name", body({ cc: [{ email: "b@example.org", name: "B\nBcc: x@evil.example" }] }), "VALIDATION_ERROR", "cc.0.name"],
        ["LF in the subject", body({ content: { subject: "Hi\nBcc: x@evil.example", text: "x" } }), "VALIDATION_ERROR", "content.subject"],
        ["an invalid address", body({ bcc: addresses("not-an-address") }), "VALIDATION_ERROR", "bcc.0.email"],
        ["an invalid address in to", body({ to: addresses("ada@example.org", "ada@") }), "VALIDATION_ERROR", "to.1.email"],
        ["an invalid address in cc", body({ cc: addresses("two@@example.org") }), "VALIDATION_ERROR", "cc.0.email"],
        ["an invalid sender", body({ from: { email: "news at example.com" } }), "VALIDATION_ERROR", "from.email"],
        ["an invalid reply-to address", body({ replyTo: { email: "reply@" } }), "VALIDATION_ERROR", "replyTo.email"],
        ["LF in the sender's address", body({ from: { email: "news@example.com\nBcc: x@evil.example" } }), "VALIDATION_ERROR", "from.email"],
        ["CR in the sender's name", body({ from: { email: "news@example.com", name: "News\rBcc: x@evil.example" } }), "VALIDATION_ERROR", "from.name"],
        ["LF in the reply-to name", body({ replyTo: { email: "r@example.com", name: "R\nX-Evil: 1" } }), "VALIDATION_ERROR", "replyTo.name"],
        ["CR in a bcc address", body({ bcc: addresses("\rcarol@example.org") }), "VALIDATION_ERROR", "bcc.0.email"],
        ["a variable that is not a string", body({ variables: { count: 3 } }), "VALIDATION_ERROR", "variables.count"],
        ["an attachment that is not base64", body({ attachments: [{ filename: "a.pdf", content: "not base64!", contentType: "application/pdf" }] }), "VALIDATION_ERROR", "attachments.0.content"],
        ["html over 1 MiB", body({ content: { subject: "Hi", html: "x".repeat(1024 * 1024 + 1) } }), "PAYLOAD_TOO_LARGE", "content.html"],
        ["an empty subject", body({ content: { subject: "", text: "x" } }), "VALIDATION_ERROR", "content.subject"],
        ["a subject of 999 characters", body({ content: { subject: "s".repeat(999), text: "x" } }), "VALIDATION_ERROR", "content.subject"],
        ["11 categories", body({ categories: Array.from({ length: 11 }, (_, i) => `c${i}`) }), "VALIDATION_ERROR", "categories"],
        ["a category of 65 characters", body({ categories: ["c".repeat(65)] }), "VALIDATION_ERROR", "categories.0"],
        ["an attachment without an extension", body({ attachments: [{ filename: "invoice", content: "aGk=", contentType: "application/pdf" }] }), "VALIDATION_ERROR", "attachments.0.filename"],
        ["an attachment whose type is no MIME type", body({ attachments: [{ filename: "a.pdf", content: "aGk=", contentType: "pdf" }] }), "VALIDATION_ERROR", "attachments.0.contentType"],
        ["base64 with a line break", body({ content: { subject: "Hi", text: "x", attachments: [{ filename: "a.txt", content: "aGk=\r\naGk=", contentType: "text/plain" }] } }), "VALIDATION_ERROR", "content.attachments.0.content"],
        ["101 distinct recipients", body({ to: Array.from({ length: 101 }, (_, i) => ({ email: `r${i}@example.org` })) }), "VALIDATION_ERROR", "to"],
        ["an unknown field", body({ sendAt: "later" }), "VALIDATION_ERROR", "sendAt"],
        ["an unknown topic", body({ suppressionGroupId: "grp_unknown" }), "VALIDATION_ERROR", "suppressionGroupId"],
        ["a transactional send with a topic", body({ stream: "transactional", suppressionGroupId: "grp_x" }), "VALIDATION_ERROR", "suppressionGroupId"],
      ] as const)("a send with %s is refused and changes nothing", ([, input, code, field]) =>
        Effect.gen(function* () {
          const account = yield* freshAccount()
          const error = yield* Effect.flip((yield* Sending).send(account, input as never))
          expect(error).toMatchObject({ code, field })
          yield* expectUntouched(account)
        }))

      it.effect("the limits themselves are accepted: a 998-character subject, 10 categories of 64 characters, html of 1 MiB", () =>
        Effect.gen(function* () {
          const account = yield* freshAccount()
          const result = yield* (yield* Sending).send(account, body({
            content: { subject: "s".repeat(998), html: "x".repeat(1024 * 1024) },
            categories: Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(64, "c")),
          }))
          expect(result.status).toBe("queued")
        }))

      it.effect("100 distinct recipients are accepted, counting case-insensitive copies once", () =>
        Effect.gen(function* () {
          const account = yield* freshAccount()
          const to = Array.from({ length: 100 }, (_, i) => ({ email: `r${i}@example.org` }))
          yield* (yield* Sending).send(account, body({ to, cc: [{ email: "R0@EXAMPLE.ORG" }] }))
          expect((yield* (yield* Quota).usage(account)).used).toBe(100)
        }))

      it.effect("a batch of 1,001 entries, or with a bad entry, is refused and changes nothing", () =>
        Effect.gen(function* () {
          const account = yield* freshAccount()
          const sending = yield* Sending
          const entry = (i: number) => ({ to: { email: `r${i}@example.org` } })
          const tooMany = yield* Effect.flip(sending.batch(account, {
            from: { email: "a@sender.example" }, content: { subject: "s", text: "t" },
            recipients: Array.from({ length: 1_001 }, (_, i) => entry(i)),
          }))
          expect(tooMany).toMatchObject({ code: "VALIDATION_ERROR", field: "recipients" })
          const badVariable = yield* Effect.flip(sending.batch(account, {
            from: { email: "a@sender.example" }, content: { subject: "s", text: "t" },
            recipients: [entry(0), { to: { email: "b@example.org" }, variables: { n: 1 as never } }],
          }))
          expect(badVariable).toMatchObject({ code: "VALIDATION_ERROR", field: "recipients.1.variables.n" })
          for (const [bad, field] of [
            [{ to: { email: "not-an-address" } }, "recipients.1.to.email"],
            [{ to: { email: "b@example.org" }, cc: [{ email: "c@" }] }, "recipients.1.cc.0.email"],
            [{ to: { email: "b@example.org", name: "B\r\nBcc: x@evil.example" } }, "recipients.1.to.name"],
            [{ to: { email: "b@example.org" }, bcc: [{ email: "d@example.org\n" }] }, "recipients.1.bcc.0.email"],
          ] as const) {
            const refused = yield* Effect.flip(sending.batch(account, {
              from: { email: "a@sender.example" }, content: { subject: "s", text: "t" }, recipients: [entry(0), bad as never],
            }))
            expect(refused).toMatchObject({ code: "VALIDATION_ERROR", field })
          }
          yield* expectUntouched(account)
        }))

      it.effect("the quota: a send that does not fit is refused whole; dropped recipients are not counted", () =>
        Effect.gen(function* () {
          yield* setNow("2026-05-20T12:00:00Z")
          const account = yield* freshAccount()
          const quota = yield* Quota
          const sending = yield* Sending
          yield* quota.reserve(account, 2_998)
          const error = yield* Effect.flip(sending.send(account, body({ to: addresses("a@example.org", "b@example.org", "c@example.org") })))
          expect(error).toMatchObject({ code: "QUOTA_EXCEEDED", resetsAt: new Date("2026-06-01T00:00:00Z") })
          expect(yield* (yield* Store).events.list(account.id)).toEqual([])
          yield* suppress(account, "c@example.org", "Bounce")
          yield* sending.send(account, body({ to: addresses("a@example.org", "b@example.org", "c@example.org") }))
          expect((yield* quota.usage(account)).used).toBe(3_000)
        }))

      it.effect("concurrent sends never overshoot the quota", () =>
        Effect.gen(function* () {
          yield* setNow("2026-06-01T08:00:00Z")
          const account = yield* freshAccount()
          const sending = yield* Sending
          yield* (yield* Quota).reserve(account, 2_990)
          const results = yield* Effect.forEach(Array.from({ length: 12 }, (_, i) => i), (i) =>
            Effect.either(sending.send(account, body({ to: addresses(`a${i}@example.org`, `b${i}@example.org`, `c${i}@example.org`) }))),
          { concurrency: "unbounded" })
          expect(results.filter((r) => r._tag === "Right")).toHaveLength(3)
          expect(results.filter((r) => r._tag === "Left").every((r) => r.left.code === "QUOTA_EXCEEDED")).toBe(true)
          expect((yield* (yield* Quota).usage(account)).used).toBe(2_999)
          expect(yield* events(account, "email.queued")).toHaveLength(9)
        }))

      it.effect("Idempotency-Key: a repeat answers the first result and sends nothing; another body is refused", () =>
        Effect.gen(function* () {
          const account = yield* freshAccount()
          const sending = yield* Sending
          const key = { idempotencyKey: "order-1234" }
          const first = yield* sending.send(account, body(), key)
          const again = yield* sending.send(account, body(), key)
          expect(again).toEqual(first)
          expect(yield* events(account, "email.queued")).toHaveLength(1)
          const reused = yield* Effect.flip(sending.send(account, body({ to: addresses("other@example.org") }), key))
          expect(reused.code).toBe("IDEMPOTENCY_KEY_REUSED")
          const onBatch = yield* Effect.flip(sending.batch(account, {
            from: { email: "a@sender.example" }, content: { subject: "s", text: "t" }, recipients: [{ to: { email: "x@example.org" } }],
          }, key))
          expect(onBatch.code).toBe("IDEMPOTENCY_KEY_REUSED")
          const batchBody = {
            from: { email: "a@sender.example" }, content: { subject: "s", text: "t" }, recipients: [{ to: { email: "x@example.org" } }],
          }
          const batch = yield* sending.batch(account, batchBody, { idempotencyKey: "batch-1" })
          expect(yield* sending.batch(account, batchBody, { idempotencyKey: "batch-1" })).toEqual(batch)
          expect((yield* (yield* Quota).usage(account)).used).toBe(2)
          const badKey = yield* Effect.flip(sending.send(account, body(), { idempotencyKey: "has space" }))
          expect(badKey).toMatchObject({ code: "VALIDATION_ERROR", field: "Idempotency-Key" })
        }))

      it.effect("schedule: in the future and within a year; queued when due, filtered then; cancel until then", () =>
        Effect.gen(function* () {
          yield* setNow("2026-07-01T09:00:00Z")
          const account = yield* freshAccount()
          const other = yield* freshAccount()
          const sending = yield* Sending
          const messages = yield* Messages
          const past = yield* Effect.flip(sending.schedule(account, body({ scheduledFor: "2026-07-01T08:59:59Z" })))
          expect(past).toMatchObject({ code: "VALIDATION_ERROR", field: "scheduledFor" })
          const far = yield* Effect.flip(sending.schedule(account, body({ scheduledFor: "2027-07-01T09:00:01Z" })))
          expect(far).toMatchObject({ code: "VALIDATION_ERROR", field: "scheduledFor" })
          const noZone = yield* Effect.flip(sending.schedule(account, body({ scheduledFor: "2026-07-02T09:00:00" })))
          expect(noZone).toMatchObject({ code: "VALIDATION_ERROR", field: "scheduledFor" })
          yield* expectUntouched(account)

          const due = "2026-07-01T10:00:00.000Z"
          const kept = yield* sending.schedule(account, body({ to: addresses("ada@example.org", "bob@example.org"), scheduledFor: due }))
          expect(kept).toEqual({ id: expect.stringMatching(/^msg_/), status: "scheduled", scheduledFor: new Date(due), createdAt: new Date("2026-07-01T09:00:00Z") })
          const cancelled = yield* sending.schedule(account, body({ scheduledFor: due }), { idempotencyKey: "s-1" })
          expect(yield* sending.schedule(account, body({ scheduledFor: due }), { idempotencyKey: "s-1" })).toEqual(cancelled)
          expect((yield* messages.get(account, kept.id)).status).toBe("scheduled")
          yield* sending.releaseDue
          expect((yield* messages.get(account, kept.id)).status).toBe("scheduled")
          expect((yield* Effect.flip(sending.cancel(other, cancelled.id))).code).toBe("RESOURCE_NOT_FOUND")
          expect(yield* sending.cancel(account, cancelled.id)).toEqual({ id: cancelled.id, status: "cancelled" })
          expect((yield* Effect.flip(sending.cancel(account, cancelled.id))).code).toBe("RESOURCE_NOT_FOUND")
          expect((yield* (yield* Quota).usage(account)).used).toBe(0)

          // Bob bounces after it was scheduled: filtering happens when the message is queued.
          yield* suppress(account, "bob@example.org", "Bounce")
          yield* setNow(due)
          expect(yield* sending.releaseDue).toBeGreaterThanOrEqual(1)
          const sent = yield* messages.get(account, kept.id)
          expect(sent.status).toBe("queued")
          expect(sent.message.recipients.map((r) => r.status)).toEqual(["queued", "dropped"])
          expect(yield* events(account, "email.queued")).toEqual([["ada@example.org", null]])
          expect(yield* events(account, "email.dropped")).toEqual([["bob@example.org", "BOUNCE_SUPPRESSION"]])
          expect((yield* (yield* Quota).usage(account)).used).toBe(1)
          expect((yield* messages.get(account, cancelled.id)).status).toBe("cancelled")
          expect((yield* Effect.flip(sending.cancel(account, kept.id))).code).toBe("RESOURCE_NOT_FOUND")
        }))

      it.effect("a scheduled message that comes due beyond the quota is dropped, every recipient with email.dropped", () =>
        Effect.gen(function* () {
          yield* setNow("2026-08-31T23:00:00Z")
          const account = yield* freshAccount()
          const sending = yield* Sending
          const scheduled = yield* sending.schedule(account, body({
            to: addresses("a@example.org", "b@example.org"), cc: addresses("A@example.org"), scheduledFor: "2026-08-31T23:30:00Z",
          }))
          // The copy is discarded when the message is scheduled, with its email.dropped then.
          expect(yield* events(account, "email.dropped")).toEqual([["a@example.org", "DUPLICATE_RECIPIENT"]])
          yield* (yield* Quota).reserve(account, 2_999)
          yield* setNow("2026-08-31T23:30:00Z")
          yield* sending.releaseDue
          const details = yield* (yield* Messages).get(account, scheduled.id)
          expect(details.status).toBe("dropped")
          expect(yield* events(account, "email.dropped")).toEqual([
            ["a@example.org", "DUPLICATE_RECIPIENT"], ["a@example.org", "QUOTA_EXCEEDED"], ["b@example.org", "QUOTA_EXCEEDED"],
          ])
          expect(details.events.filter((e) => e.type === "email.dropped").map((e) => [e.recipient, e.bounceReason])).toEqual([
            ["a@example.org", "DUPLICATE_RECIPIENT"], ["a@example.org", "QUOTA_EXCEEDED"], ["b@example.org", "QUOTA_EXCEEDED"],
          ])
          expect(yield* events(account, "email.queued")).toEqual([])
          expect((yield* (yield* Quota).usage(account)).used).toBe(2_999)
        }))

      it.effect("the background task queues scheduled messages as the clock reaches them", () =>
        Effect.gen(function* () {
          yield* setNow("2026-09-01T09:00:00Z")
          const account = yield* freshAccount()
          const sending = yield* Sending
          const scheduled = yield* sending.schedule(account, body({ scheduledFor: "2026-09-01T09:00:30Z" }))
          const scope = yield* Scope.make()
          yield* Scope.extend((yield* Background).start, scope)
          const status = Effect.map((yield* Messages).get(account, scheduled.id), (details) => details.status)
          // The task's database work takes real time after the test clock wakes it.
          const settle = TestServices.provideLive(Effect.sleep("300 millis"))
          yield* TestClock.adjust("10 seconds")
          yield* settle
          expect(yield* status).toBe("scheduled")
          yield* TestClock.adjust("25 seconds")
          for (let tries = 0; tries < 30 && (yield* status) === "scheduled"; tries++) {
            yield* settle
            yield* TestClock.adjust("1 second")
          }
          expect(yield* status).toBe("queued")
          expect(yield* events(account, "email.queued")).toEqual([["ada@example.org", null]])
          yield* Scope.close(scope, Exit.void)
        }))
    },
  )
