/** The subscriptions suite: the Subscriptions service (subscribe, double opt-in, unsubscribe, status, PATCH, resend,
 *  the confirmation link) and the Store reads it needs, on every backend. Each path reads the outbox afterwards: its
 *  events and their `details` are part of what is tested. Mail goes to a capture mailer. */
import { describe, expect, it as vitestIt } from "@effect/vitest"
import {
  type Account, Accounts, type DomainEvent, type EmailAddress, type EventType, IdsLive, Lists, SendingPause,
  servicesLayer, Store, Subscriptions, type SuppressionId, type SuppressionReason, Topics, type TopicId,
} from "@mailroom/core"
import { Effect, Layer, Option, TestClock } from "effect"
import { makeCaptureMailer } from "./capture-mailer.js"
import { uniqueText } from "./fixtures.js"
import { testTemplateEngine } from "./template-engine.js"

const someone = () => `${uniqueText("sub")}@example.com` as EmailAddress

const freshAccount = (plan: "free" | "pro" = "pro") =>
  Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "Subscriptions suite", plan })).pipe(
    Effect.map(({ account }) => account),
  )

const makeList = (account: Account, fields: { readonly suppressionGroupId?: string } = {}) =>
  Effect.flatMap(Lists, (lists) => lists.create(account, { name: uniqueText("List"), ...fields })).pipe(
    Effect.map((details) => details.list.id as string),
  )

const makeTopic = (account: Account, fields: { readonly name?: string; readonly sortOrder?: number } = {}) =>
  Effect.flatMap(Topics, (topics) => topics.create(account, { name: fields.name ?? uniqueText("Topic"), ...fields })).pipe(
    Effect.map(({ topic }) => topic.id as string),
  )

/** The services and a fresh account most tests start from. */
const setUp = (plan: "free" | "pro" = "pro") =>
  Effect.all({ subscriptions: Subscriptions, store: Store, account: freshAccount(plan) })

/** A list and a topic of another account: ids that must answer as not found. */
const foreignIds = Effect.gen(function* () {
  const other = yield* freshAccount()
  return { list: yield* makeList(other), topic: yield* makeTopic(other) }
})

/** Suppresses the address in the account with `reason`, as a bounce or an operator would. */
const suppress = (account: Account, email: EmailAddress, reason: SuppressionReason) =>
  Effect.flatMap(Store, (store) => store.suppressions.put({
    id: uniqueText("sup") as SuppressionId, accountId: account.id, email, reason, details: null,
    createdAt: new Date(0), updatedAt: new Date(0),
  }))

const eventsOf = (account: Account, type?: EventType) =>
  Effect.flatMap(Store, (store) => store.events.list(account.id, type === undefined ? {} : { type }))

const detailsOf = (events: ReadonlyArray<DomainEvent>) => events.map((e) => ({ type: e.type, ...e.details }))

/** How many events the account's outbox holds; with detailsSince, what a step appended. */
const countEvents = (account: Account) => Effect.map(eventsOf(account), (events) => events.length)

/** The details of the events appended after the first `before`. */
const detailsSince = (account: Account, before: number) => Effect.map(eventsOf(account), (events) => detailsOf(events.slice(before)))

/** The confirmation link of the last mail sent to `email`. */
const linkIn = (text: string | undefined) => {
  const match = /https?:\/\/\S+\/c\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/.exec(text ?? "")
  if (match === null) throw new Error("no confirmation link in the mail")
  return { url: match[0], token: match[1]! }
}

/** Declares the suite for `backend` over one shared instance of `storeLayer`. */
export const subscriptionsSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) => {
  const mailer = makeCaptureMailer()
  const layer = Layer.provideMerge(servicesLayer, Layer.mergeAll(storeLayer, IdsLive, testTemplateEngine)).pipe(Layer.provideMerge(mailer.layer))
  const lastMailTo = (email: string) => mailer.sentTo(email).at(-1)

  vitestIt.layer(layer, { timeout: "60 seconds" })(`Subscriptions (${backend})`, (it) => {
    describe("Store: memberships of a contact", () => {
      it.effect("answers every membership, removed ones and archived lists included, newest first, with list name and topic", () =>
        Effect.gen(function* () {
          const { subscriptions, store, account } = yield* setUp()
          const topic = yield* makeTopic(account)
          const first = yield* makeList(account)
          const second = yield* makeList(account, { suppressionGroupId: topic })
          const email = someone()
          yield* subscriptions.subscribe(account, { email, listIds: [first] })
          yield* TestClock.adjust("5 millis")
          yield* subscriptions.subscribe(account, { email, listIds: [second] })
          yield* subscriptions.unsubscribe(account, { email, scope: "list", listId: first })
          yield* Effect.flatMap(Lists, (lists) => lists.archive(account, first))
          const contact = Option.getOrThrow(yield* store.contacts.findByEmail(account.id, email))
          const rows = yield* store.members.ofContact(account.id, contact.id)
          expect(rows.map((r) => [r.membership.listId, r.suppressionGroupId, r.membership.removedAt === null]))
            .toEqual([[second, topic, true], [first, null, false]])
          expect(typeof rows[0]!.listName).toBe("string")
          const other = yield* freshAccount()
          expect(yield* store.members.ofContact(other.id, contact.id)).toEqual([])
        }))
    })

    describe("subscribe", () => {
      it.effect("creates an ACTIVE contact with consent (201), joins lists and topics, and fires the spec's events", () =>
        Effect.gen(function* () {
          const { subscriptions, store, account } = yield* setUp()
          const [a, b] = [yield* makeList(account), yield* makeList(account)]
          const topic = yield* makeTopic(account)
          const email = someone()
          yield* Effect.flatMap(Topics, (topics) => topics.addMember(account, topic, email))
          const result = yield* subscriptions.subscribe(account, {
            email: `  ${email.toUpperCase()} `, firstName: "Ada", listIds: [a, b], topicIds: [topic],
            tags: ["VIP"], customFields: { plan: "gold" }, consent: { ip: "203.0.113.7", userAgent: "UA", text: "Yes please" },
          }, { clientAddress: "198.51.100.1" })
          expect(result).toMatchObject({
            email, status: "ACTIVE", created: true, listIds: [a, b], addedToListIds: [a, b], topicIds: [topic],
            requiresConfirmation: false, confirmationSent: false,
          })
          const status = yield* subscriptions.status(account, email)
          expect(status.contact?.consent).toMatchObject({ source: "api", ip: "203.0.113.7", userAgent: "UA", text: "Yes please" })
          expect(status.topics).toEqual([expect.objectContaining({ id: topic, subscribed: true })])
          expect(detailsOf(yield* eventsOf(account))).toEqual([
            {
              type: "contact.subscribed", contactId: result.contactId, email, source: "API", listIds: [a, b],
              topicIds: [topic], requiresConfirmation: false, status: "ACTIVE",
            },
            { type: "list.member_added", listId: a, contactId: result.contactId, email, source: "API" },
            { type: "list.member_added", listId: b, contactId: result.contactId, email, source: "API" },
          ])
          const contact = Option.getOrThrow(yield* store.contacts.findByEmail(account.id, email))
          expect(contact.tags.map((t) => t.tag)).toEqual(["vip"])
          expect(contact.customFields.map((f) => [f.key, f.value])).toEqual([["plan", "gold"]])
        }))

      it.effect("a repeat answers created false, changes nothing, keeps the first consent and fires nothing", () =>
        Effect.gen(function* () {
          const { subscriptions, account } = yield* setUp()
          const list = yield* makeList(account)
          const email = someone()
          yield* subscriptions.subscribe(account, { email, listIds: [list], consent: { text: "first" } })
          const before = yield* countEvents(account)
          const again = yield* subscriptions.subscribe(account, { email, listIds: [list], consent: { text: "second" } })
          expect(again).toMatchObject({ created: false, addedToListIds: [], status: "ACTIVE" })
          expect(yield* countEvents(account)).toBe(before)
          expect((yield* subscriptions.status(account, email)).contact?.consent.text).toBe("first")
        }))

      it.effect("bad input answers VALIDATION_ERROR naming the field, and foreign ids answer not found; nothing changes", () =>
        Effect.gen(function* () {
          const { subscriptions, store, account } = yield* setUp()
          const foreign = yield* foreignIds
          const email = someone()
          const cases = [
            [{ email, surprise: true }, "VALIDATION_ERROR", "surprise"],
            [{ email, consent: { ip: "1".repeat(65) } }, "VALIDATION_ERROR", "consent.ip"],
            [{ email, consent: { userAgent: "u".repeat(1025) } }, "VALIDATION_ERROR", "consent.userAgent"],
            [{ email, consent: { text: "t".repeat(2001) } }, "VALIDATION_ERROR", "consent.text"],
            [{ email, consent: { ip: "1.2.3.4", extra: 1 } }, "VALIDATION_ERROR", "consent.extra"],
            [{ email, redirectUrl: "http://example.com/" }, "VALIDATION_ERROR", "redirectUrl"],
            [{ email, doubleOptIn: true, confirmationTemplateId: "tpl_1" }, "TEMPLATE_NOT_FOUND", undefined],
            [{ email: "ada@bücher.example" }, "VALIDATION_ERROR", "email"],
            [{ email, listIds: [foreign.list] }, "LIST_NOT_FOUND", undefined],
            [{ email, topicIds: [foreign.topic] }, "TOPIC_NOT_FOUND", undefined],
          ] as const
          for (const [body, code, field] of cases) {
            const error = yield* Effect.flip(subscriptions.subscribe(account, body as never))
            expect(error.code).toBe(code)
            if (field !== undefined) expect((error as { field?: string }).field).toBe(field)
          }
          expect(Option.isNone(yield* store.contacts.findByEmail(account.id, email))).toBe(true)
          expect(yield* eventsOf(account)).toEqual([])
        }))

      it.effect("never lifts Bounce, Complaint or Manual suppressions, refuses COMPLAINED and CLEANED, and needs resubscribe", () =>
        Effect.gen(function* () {
          const { subscriptions, store, account } = yield* setUp()
          const bounced = someone()
          yield* suppress(account, bounced, "Bounce")
          expect((yield* Effect.flip(subscriptions.subscribe(account, { email: bounced, resubscribe: true }))).code)
            .toBe("RECIPIENT_SUPPRESSED")
          const manual = someone()
          yield* suppress(account, manual, "Manual")
          expect((yield* Effect.flip(subscriptions.subscribe(account, { email: manual }))).code).toBe("RECIPIENT_UNSUBSCRIBED")
          expect((yield* Effect.flip(subscriptions.subscribe(account, { email: manual, resubscribe: true }))).code)
            .toBe("RECIPIENT_SUPPRESSED")
          const complained = someone()
          const made = yield* subscriptions.subscribe(account, { email: complained })
          const contact = Option.getOrThrow(yield* store.contacts.findByEmail(account.id, complained))
          yield* store.contacts.update({ ...contact, status: "COMPLAINED" })
          expect((yield* Effect.flip(subscriptions.subscribe(account, { email: complained, resubscribe: true }))).code)
            .toBe("CONTACT_BLOCKED")
          expect(made.created).toBe(true)
          expect(Option.isNone(yield* store.contacts.findByEmail(account.id, bounced))).toBe(true)
          expect(Option.getOrThrow(yield* store.suppressions.findByEmail(account.id, manual)).reason).toBe("Manual")
        }))

      it.effect("after an unsubscribe: RECIPIENT_UNSUBSCRIBED, then resubscribe lifts it and records the client address", () =>
        Effect.gen(function* () {
          const { subscriptions, store, account } = yield* setUp()
          const email = someone()
          yield* subscriptions.subscribe(account, { email, consent: { ip: "192.0.2.1" } })
          yield* subscriptions.unsubscribe(account, { email })
          const refused = yield* Effect.flip(subscriptions.subscribe(account, { email }))
          expect(refused.code).toBe("RECIPIENT_UNSUBSCRIBED")
          const back = yield* subscriptions.subscribe(account, { email, resubscribe: true }, { clientAddress: "198.51.100.9" })
          expect(back).toMatchObject({ created: false, status: "ACTIVE" })
          const status = yield* subscriptions.status(account, email)
          expect(status).toMatchObject({ suppression: null, unsubscribedFromAll: false })
          expect(status.contact?.consent).toMatchObject({ source: "api", ip: "198.51.100.9" })
          expect(Option.isNone(yield* store.suppressions.findByEmail(account.id, email))).toBe(true)
          expect((yield* eventsOf(account, "contact.subscribed")).length).toBe(2)
        }))

      it.effect("concurrent calls for one new address all succeed and create one contact", () =>
        Effect.gen(function* () {
          const { subscriptions, account } = yield* setUp()
          const list = yield* makeList(account)
          const email = someone()
          const results = yield* Effect.all(
            Array.from({ length: 4 }, () => subscriptions.subscribe(account, { email, listIds: [list] })),
            { concurrency: "unbounded" },
          )
          expect(results.filter((r) => r.created)).toHaveLength(1)
          expect(new Set(results.map((r) => r.contactId)).size).toBe(1)
          expect((yield* eventsOf(account, "list.member_added")).length).toBe(1)
        }))

      it.effect("the Free plan's cap answers FREE_TIER_CONTACT_LIMIT and creates nothing", () =>
        Effect.gen(function* () {
          const { subscriptions, store, account } = yield* setUp("free")
          for (let i = 0; i < 100; i++) yield* subscriptions.subscribe(account, { email: someone() })
          const email = someone()
          expect((yield* Effect.flip(subscriptions.subscribe(account, { email }))).code).toBe("FREE_TIER_CONTACT_LIMIT")
          expect(Option.isNone(yield* store.contacts.findByEmail(account.id, email))).toBe(true)
          // A PENDING contact does not count: double opt-in still works.
          expect((yield* subscriptions.subscribe(account, { email, doubleOptIn: true })).status).toBe("PENDING")
        }), { timeout: 120_000 })
    })

    describe("double opt-in", () => {
      it.effect("mails a link; reading it changes nothing; following it confirms once and fires contact.confirmed", () =>
        Effect.gen(function* () {
          const { subscriptions, account } = yield* setUp()
          const list = yield* makeList(account)
          const email = someone()
          const result = yield* subscriptions.subscribe(account, {
            email, firstName: "Grace", doubleOptIn: true, listIds: [list], redirectUrl: "https://example.com/thanks",
          })
          expect(result).toMatchObject({ status: "PENDING", requiresConfirmation: true, confirmationSent: true, created: true })
          const mail = lastMailTo(email)!
          expect(mail.text).toContain("Hi Grace,")
          expect(mail.from.name).toBe("Subscriptions suite")
          const { token } = linkIn(mail.text)
          expect(mail.html).toContain(linkIn(mail.text).url)
          const status = yield* subscriptions.status(account, email)
          expect(status.contact?.status).toBe("PENDING")
          expect(status.pendingConfirmation?.expiresAt).toBeInstanceOf(Date)

          const looked = yield* subscriptions.confirmation(token)
          expect(looked).toMatchObject({ state: "pending", accountId: account.id, email, redirectUrl: "https://example.com/thanks" })
          expect((yield* subscriptions.status(account, email)).contact?.status).toBe("PENDING")

          const confirmed = yield* subscriptions.confirm(token)
          expect(confirmed).toMatchObject({ state: "confirmed", redirectUrl: "https://example.com/thanks" })
          const after = yield* subscriptions.status(account, email)
          expect(after).toMatchObject({ pendingConfirmation: null, contact: { status: "ACTIVE" } })
          expect(after.contact?.confirmedAt).toBeInstanceOf(Date)
          const events = detailsOf(yield* eventsOf(account))
          expect(events.map((e) => e.type)).toEqual(["contact.subscribed", "list.member_added", "contact.confirmed"])
          expect(events[0]).toMatchObject({ requiresConfirmation: true, status: "PENDING", listIds: [list] })
          expect(events[2]).toEqual({
            type: "contact.confirmed", contactId: result.contactId, email, formId: null, listIds: [list], topicIds: [],
            confirmedAt: after.contact!.confirmedAt!.toISOString(),
          })
          expect((yield* subscriptions.confirm(token)).state).toBe("already_confirmed")
          expect((yield* eventsOf(account, "contact.confirmed")).length).toBe(1)
        }))

      it.effect("a forged, truncated or other-purpose token is invalid and changes nothing", () =>
        Effect.gen(function* () {
          const { subscriptions, account } = yield* setUp()
          const email = someone()
          yield* subscriptions.subscribe(account, { email, doubleOptIn: true })
          const { token } = linkIn(lastMailTo(email)!.text)
          const [payload, signature] = token.split(".") as [string, string]
          const forged = `${payload}.${signature.slice(0, -2)}${signature.endsWith("AA") ? "BB" : "AA"}`
          for (const bad of [forged, token.slice(0, -5), payload, "", "a.b.c"]) {
            expect((yield* subscriptions.confirm(bad)).state).toBe("invalid")
          }
          expect((yield* subscriptions.status(account, email)).contact?.status).toBe("PENDING")
          expect(yield* eventsOf(account, "contact.confirmed")).toEqual([])
        }))

      it.effect("resend makes a new link (the old one explains itself), and answers the spec's errors", () =>
        Effect.gen(function* () {
          const { subscriptions, account } = yield* setUp()
          const email = someone()
          yield* subscriptions.subscribe(account, { email, doubleOptIn: true })
          const old = linkIn(lastMailTo(email)!.text).token
          const again = yield* subscriptions.subscribe(account, { email, doubleOptIn: true })
          expect(again).toMatchObject({ status: "PENDING", confirmationSent: false, created: false })
          const resent = yield* subscriptions.resendConfirmation(account, email.toUpperCase())
          expect(resent).toMatchObject({ email, confirmationSent: true })
          const fresh = linkIn(lastMailTo(email)!.text).token
          expect(fresh).not.toBe(old)
          expect((yield* subscriptions.confirm(old)).state).toBe("expired")
          expect((yield* subscriptions.confirm(fresh)).state).toBe("confirmed")
          expect((yield* Effect.flip(subscriptions.resendConfirmation(account, email))).code).toBe("NO_PENDING_CONFIRMATION")
          expect((yield* Effect.flip(subscriptions.resendConfirmation(account, someone()))).code).toBe("CONTACT_NOT_FOUND")
          expect((yield* Effect.flip(subscriptions.resendConfirmation(account, "a%40b.example"))).code).toBe("VALIDATION_ERROR")
        }))

      it.effect("while sending is paused for the account, confirmationSent is false and nothing is mailed", () =>
        Effect.gen(function* () {
          const { subscriptions, account } = yield* setUp()
          const pause = yield* SendingPause
          yield* pause.set({ accountId: account.id }, true)
          const email = someone()
          const result = yield* subscriptions.subscribe(account, { email, doubleOptIn: true })
          expect(result).toMatchObject({ status: "PENDING", requiresConfirmation: true, confirmationSent: false })
          expect(mailer.sentTo(email)).toEqual([])
          expect((yield* subscriptions.resendConfirmation(account, email)).confirmationSent).toBe(false)
          yield* pause.set({ accountId: account.id }, false)
          expect((yield* subscriptions.resendConfirmation(account, email)).confirmationSent).toBe(true)
          expect(mailer.sentTo(email).length).toBe(1)
        }))

      it.effect("a signup form subscribes with source FORM and its own details; only the link may resend its mail; contact.confirmed names the form", () =>
        Effect.gen(function* () {
          const { subscriptions, store, account } = yield* setUp()
          const list = yield* makeList(account)
          const email = someone()
          const form = { id: "form_1", name: "Newsletter", listId: list, fields: { city: "Oslo" } }
          const result = yield* subscriptions.subscribe(account, { email, listIds: [list], doubleOptIn: true }, { form })
          expect(result).toMatchObject({ status: "PENDING", confirmationSent: true, addedToListIds: [list] })
          const contact = Option.getOrThrow(yield* store.contacts.findByEmail(account.id, email))
          expect(contact).toMatchObject({ source: "FORM", consentSource: "form", consentText: "Signup form: Newsletter" })
          expect(detailsOf(yield* eventsOf(account))).toEqual([{
            type: "contact.subscribed", contactId: contact.id, email, source: "FORM", listIds: [list], topicIds: [],
            requiresConfirmation: true, status: "PENDING", formId: "form_1", listId: list, fields: { city: "Oslo" },
          }])
          expect((yield* Effect.flip(subscriptions.resendConfirmation(account, email))).code).toBe("NO_PENDING_CONFIRMATION")
          expect((yield* subscriptions.resendConfirmation(account, email, { via: "link" })).confirmationSent).toBe(true)
          // The new link keeps the form: contact.confirmed reports it.
          expect((yield* subscriptions.confirm(linkIn(lastMailTo(email)!.text).token)).state).toBe("confirmed")
          const confirmedAt = (yield* subscriptions.status(account, email)).contact!.confirmedAt!
          expect(detailsOf(yield* eventsOf(account, "contact.confirmed"))).toEqual([{
            type: "contact.confirmed", contactId: contact.id, email, formId: "form_1", listIds: [list], topicIds: [],
            confirmedAt: confirmedAt.toISOString(),
          }])
        }))

      it.effect("a signup form reaching a PENDING address mails nothing new; the outstanding link confirms for the latest form", () =>
        Effect.gen(function* () {
          const { subscriptions, store, account } = yield* setUp()
          const list = yield* makeList(account)
          const email = someone()
          yield* subscriptions.subscribe(account, { email, listIds: [list], doubleOptIn: true })
          const { token } = linkIn(lastMailTo(email)!.text)
          const contact = Option.getOrThrow(yield* store.contacts.findByEmail(account.id, email))
          expect(Option.getOrThrow(yield* store.confirmations.find(account.id, contact.id)).formId).toBeNull()
          for (const id of ["form_a", "form_b"]) {
            const form = { id, name: `Form ${id}`, listId: list, fields: {} }
            const again = yield* subscriptions.subscribe(account, { email, listIds: [list], doubleOptIn: true }, { form })
            expect(again).toMatchObject({ status: "PENDING", created: false, confirmationSent: false })
            expect(Option.getOrThrow(yield* store.confirmations.find(account.id, contact.id)).formId).toBe(id)
          }
          expect(mailer.sentTo(email).length).toBe(1)
          expect((yield* subscriptions.confirm(token)).state).toBe("confirmed")
          const confirmedAt = (yield* subscriptions.status(account, email)).contact!.confirmedAt!
          expect(detailsOf(yield* eventsOf(account, "contact.confirmed"))).toEqual([{
            type: "contact.confirmed", contactId: contact.id, email, formId: "form_b", listIds: [list], topicIds: [],
            confirmedAt: confirmedAt.toISOString(),
          }])
        }))

      it.effect("an unsubscribe withdraws the pending confirmation: its link no longer confirms", () =>
        Effect.gen(function* () {
          const { subscriptions, account } = yield* setUp()
          const email = someone()
          yield* subscriptions.subscribe(account, { email, doubleOptIn: true })
          const { token } = linkIn(lastMailTo(email)!.text)
          yield* subscriptions.unsubscribe(account, { email })
          expect((yield* subscriptions.confirm(token)).state).toBe("invalid")
          expect((yield* subscriptions.status(account, email)).contact?.status).toBe("UNSUBSCRIBED")
        }))
    })

    describe("unsubscribe", () => {
      it.effect("scope all works for a non-contact, keeps the method and reason, and is changed only once", () =>
        Effect.gen(function* () {
          const { subscriptions, store, account } = yield* setUp()
          const email = someone()
          const first = yield* subscriptions.unsubscribe(account, { email, reason: "too much" }, { method: "one_click", campaignId: "cmp_1" })
          expect(first).toEqual({ email, contactId: null, scope: "all", changed: true })
          expect((yield* subscriptions.unsubscribe(account, { email })).changed).toBe(false)
          const suppression = Option.getOrThrow(yield* store.suppressions.findByEmail(account.id, email))
          expect(suppression).toMatchObject({ reason: "Unsubscribe", details: { method: "one_click", campaignId: "cmp_1", reason: "too much" } })
          expect(detailsOf(yield* eventsOf(account))).toEqual([{
            type: "contact.unsubscribed", contactEmail: email, contactId: null, scope: "all", listId: null, topicId: null,
            method: "one_click", campaignId: "cmp_1", reason: "too much", category: null,
          }])
        }))

      it.effect("scope all keeps a Bounce suppression and a contact's lists, and marks the contact UNSUBSCRIBED", () =>
        Effect.gen(function* () {
          const { subscriptions, store, account } = yield* setUp()
          const list = yield* makeList(account)
          const email = someone()
          const { contactId } = yield* subscriptions.subscribe(account, { email, listIds: [list] })
          const result = yield* subscriptions.unsubscribe(account, { email, scope: "all" })
          expect(result).toEqual({ email, contactId, scope: "all", changed: true })
          const status = yield* subscriptions.status(account, email)
          expect(status).toMatchObject({ unsubscribedFromAll: true, suppression: { reason: "Unsubscribe" }, contact: { status: "UNSUBSCRIBED" } })
          expect(status.contact?.unsubscribedAt).toBeInstanceOf(Date)
          expect(status.lists.map((l) => l.subscribed)).toEqual([true])
          const bounced = someone()
          yield* suppress(account, bounced, "Bounce")
          expect((yield* subscriptions.unsubscribe(account, { email: bounced })).changed).toBe(false)
          expect(Option.getOrThrow(yield* store.suppressions.findByEmail(account.id, bounced)).reason).toBe("Bounce")
        }))

      it.effect("scope list marks the membership removed and fires list.member_removed and contact.unsubscribed", () =>
        Effect.gen(function* () {
          const { subscriptions, account } = yield* setUp()
          const list = yield* makeList(account)
          const email = someone()
          const { contactId } = yield* subscriptions.subscribe(account, { email, listIds: [list] })
          const before = yield* countEvents(account)
          expect(yield* subscriptions.unsubscribe(account, { email, scope: "list", listId: list }))
            .toEqual({ email, contactId, scope: "list", changed: true })
          expect((yield* subscriptions.unsubscribe(account, { email, scope: "list", listId: list })).changed).toBe(false)
          expect(yield* detailsSince(account, before)).toEqual([
            { type: "list.member_removed", listId: list, contactId, email, source: "UNSUBSCRIBE" },
            {
              type: "contact.unsubscribed", contactEmail: email, contactId, scope: "list", listId: list, topicId: null,
              method: "api", category: null,
            },
          ])
          const status = yield* subscriptions.status(account, email)
          expect(status.lists).toEqual([expect.objectContaining({ id: list, subscribed: false })])
          expect(status.lists[0]!.removedAt).toBeInstanceOf(Date)
          expect(status.contact?.status).toBe("ACTIVE")
          const stranger = yield* subscriptions.unsubscribe(account, { email: someone(), scope: "list", listId: list })
          expect(stranger).toMatchObject({ contactId: null, changed: false })
        }))

      it.effect("scope topic opts out, leaves every list tagged with it, and works for a non-contact", () =>
        Effect.gen(function* () {
          const { subscriptions, store, account } = yield* setUp()
          const topic = yield* makeTopic(account)
          const tagged = yield* makeList(account, { suppressionGroupId: topic })
          const plain = yield* makeList(account)
          const email = someone()
          const { contactId } = yield* subscriptions.subscribe(account, { email, listIds: [tagged, plain] })
          const before = yield* countEvents(account)
          const result = yield* subscriptions.unsubscribe(account, { email, scope: "topic", topicId: topic }, { method: "link" })
          expect(result).toEqual({ email, contactId, scope: "topic", changed: true })
          expect(yield* detailsSince(account, before)).toEqual([
            { type: "list.member_removed", listId: tagged, contactId, email, source: "UNSUBSCRIBE" },
            {
              type: "contact.unsubscribed", contactEmail: email, contactId, scope: "topic", listId: null, topicId: topic,
              method: "link", category: topic,
            },
          ])
          const status = yield* subscriptions.status(account, email)
          expect(status.topics).toEqual([expect.objectContaining({ id: topic, subscribed: false })])
          expect(status.lists.find((l) => l.id === plain)?.subscribed).toBe(true)
          const stranger = someone()
          expect((yield* subscriptions.unsubscribe(account, { email: stranger, scope: "topic", topicId: topic })).changed).toBe(true)
          expect(yield* store.topics.optedOut(account.id, stranger)).toEqual([topic as TopicId])
        }))

      it.effect("the legacy scope category means topic, and a scope is read in any case, as on POST /unsubscribe", () =>
        Effect.gen(function* () {
          const { subscriptions, store, account } = yield* setUp()
          const topic = yield* makeTopic(account)
          const list = yield* makeList(account)
          const email = someone()
          const { contactId } = yield* subscriptions.subscribe(account, { email, listIds: [list] })
          const before = yield* countEvents(account)
          expect(yield* subscriptions.unsubscribe(account, { email, scope: "category", topicId: topic }))
            .toEqual({ email, contactId, scope: "topic", changed: true })
          expect(yield* store.topics.optedOut(account.id, email)).toEqual([topic as TopicId])
          expect(yield* detailsSince(account, before)).toEqual([
            {
              type: "contact.unsubscribed", contactEmail: email, contactId, scope: "topic", listId: null, topicId: topic,
              method: "api", category: topic,
            },
          ])
          expect((yield* subscriptions.unsubscribe(account, { email, scope: "Topic", topicId: topic })).scope).toBe("topic")
          expect(yield* subscriptions.unsubscribe(account, { email, scope: "LIST", listId: list }))
            .toEqual({ email, contactId, scope: "list", changed: true })
          expect(yield* subscriptions.unsubscribe(account, { email, scope: "ALL" }))
            .toEqual({ email, contactId, scope: "all", changed: true })
        }))

      it.effect("a missing id for its scope, a foreign id and unknown fields are refused and change nothing", () =>
        Effect.gen(function* () {
          const { subscriptions, store, account } = yield* setUp()
          const foreign = yield* foreignIds
          const email = someone()
          const cases = [
            [{ email, scope: "list" }, "VALIDATION_ERROR"],
            [{ email, scope: "topic" }, "VALIDATION_ERROR"],
            [{ email, scope: "list", listId: foreign.list }, "LIST_NOT_FOUND"],
            [{ email, scope: "topic", topicId: foreign.topic }, "TOPIC_NOT_FOUND"],
            [{ email, scope: "everything" }, "VALIDATION_ERROR"],
            [{ email, scope: "category" }, "VALIDATION_ERROR"],
            [{ email, reason: "r".repeat(501) }, "VALIDATION_ERROR"],
            [{ email, contactId: "ct_1" }, "VALIDATION_ERROR"],
          ] as const
          for (const [body, code] of cases) {
            expect((yield* Effect.flip(subscriptions.unsubscribe(account, body as never))).code).toBe(code)
          }
          expect(Option.isNone(yield* store.suppressions.findByEmail(account.id, email))).toBe(true)
          expect(yield* store.topics.optedOut(account.id, email)).toEqual([])
          expect(yield* eventsOf(account)).toEqual([])
        }))
    })

    describe("status and update", () => {
      it.effect("lists every topic by sortOrder then name, unpublished included, and a non-contact with contact null", () =>
        Effect.gen(function* () {
          const { subscriptions, account } = yield* setUp()
          const b = yield* makeTopic(account, { name: "Beta", sortOrder: 1 })
          const a = yield* makeTopic(account, { name: "Alpha", sortOrder: 1 })
          const z = yield* makeTopic(account, { name: "Zulu", sortOrder: 0 })
          const status = yield* subscriptions.status(account, someone())
          expect(status).toMatchObject({ contact: null, suppression: null, unsubscribedFromAll: false, pendingConfirmation: null, lists: [] })
          expect(status.topics.map((t) => t.id)).toEqual([z, a, b])
          expect(status.topics[0]).toEqual({ id: z, name: "Zulu", label: null, description: null, subscribed: true })
          expect((yield* Effect.flip(subscriptions.status(account, "a%2540b.example"))).code).toBe("VALIDATION_ERROR")
        }))

      it.effect("PATCH turns topics off and on, joins and leaves lists, and fires the events", () =>
        Effect.gen(function* () {
          const { subscriptions, account } = yield* setUp()
          const topic = yield* makeTopic(account)
          const tagged = yield* makeList(account, { suppressionGroupId: topic })
          const other = yield* makeList(account)
          const email = someone()
          const { contactId } = yield* subscriptions.subscribe(account, { email, listIds: [tagged] })
          const before = yield* countEvents(account)
          const off = yield* subscriptions.update(account, email, { topics: { [topic]: false }, lists: { [other]: true } })
          expect(off.topics).toEqual([expect.objectContaining({ id: topic, subscribed: false })])
          expect(off.lists.map((l) => [l.id, l.subscribed])).toEqual(expect.arrayContaining([[tagged, false], [other, true]]))
          expect(yield* detailsSince(account, before)).toEqual([
            { type: "list.member_added", listId: other, contactId, email, source: "API" },
            {
              type: "contact.subscribed", contactId, email, source: "API", listIds: [other], topicIds: [],
              requiresConfirmation: false, status: "ACTIVE",
            },
            { type: "list.member_removed", listId: tagged, contactId, email, source: "UNSUBSCRIBE" },
            {
              type: "contact.unsubscribed", contactEmail: email, contactId, scope: "topic", listId: null, topicId: topic,
              method: "api", category: topic,
            },
          ])
          const on = yield* subscriptions.update(account, email, { topics: { [topic]: true } }, { channel: "preference_center" })
          expect(on.topics[0]!.subscribed).toBe(true)
          expect((yield* eventsOf(account)).at(-1)).toMatchObject({
            type: "contact.subscribed", details: { source: "PREFERENCE_CENTER", topicIds: [topic] },
          })
        }))

      it.effect("PATCH refuses joining for a non-contact or an unsubscribed one without resubscribe; unsubscribeAll wins", () =>
        Effect.gen(function* () {
          const { subscriptions, account } = yield* setUp()
          const list = yield* makeList(account)
          expect((yield* Effect.flip(subscriptions.update(account, someone(), { lists: { [list]: true } }))).code)
            .toBe("CONTACT_NOT_FOUND")
          expect((yield* Effect.flip(subscriptions.update(account, someone(), {}))).code).toBe("VALIDATION_ERROR")
          expect((yield* Effect.flip(subscriptions.update(account, someone(), { lists: {}, extra: 1 } as never))).code)
            .toBe("VALIDATION_ERROR")
          const email = someone()
          yield* subscriptions.subscribe(account, { email })
          const gone = yield* subscriptions.update(account, email, { unsubscribeAll: true, lists: { [list]: true } })
          expect(gone).toMatchObject({ unsubscribedFromAll: true, lists: [] })
          expect((yield* Effect.flip(subscriptions.update(account, email, { lists: { [list]: true } }))).code)
            .toBe("RECIPIENT_UNSUBSCRIBED")
          const back = yield* subscriptions.update(account, email, { lists: { [list]: true }, resubscribe: true }, { clientAddress: "192.0.2.44" })
          expect(back).toMatchObject({ unsubscribedFromAll: false, contact: { status: "ACTIVE", consent: { ip: "192.0.2.44" } } })
          expect(back.lists.map((l) => l.id)).toEqual([list])
        }))
    })
  })
}
