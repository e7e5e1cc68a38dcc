/** The Subscriptions API: subscribe (with double opt-in), unsubscribe (all, list, topic), the subscription status, its
 *  PATCH and resend-confirmation. Spec: audience "Subscriptions", rules 1-5, "Moves made by other operations" and the
 *  contact.* / list.member_* details. Every change appends its events to the outbox in the same Store transaction; the
 *  confirmation mail goes through the Mailer after that transaction commits. The public unsubscribe links, the
 *  preference centre and complaints reuse `unsubscribe` and `update` with their own `method` / channel; signup forms
 *  (FormSignups) and confirmation links (ConfirmationLinks) are services of their own over the same steps
 *  (internal/subscription-steps.ts), so that every path applies the same rules and fires the same events. Each method
 *  decodes its own input with core's schemas, so Effect hosts and the Promise facade meet the same limits as HTTP
 *  clients. */
import { Effect, Either, Option } from "effect"
import type { Account } from "../domain/account.js"
import type { ContactId, ContactStatus } from "../domain/contact.js"
import type { EmailAddress } from "../domain/email.js"
import type { DomainEvent } from "../domain/event.js"
import type { MemberEventSource } from "../domain/member.js"
import {
  decideSubscribe, subscribedEvent, type SubscribeSource, type UnsubscribeMethod, type UnsubscribeScope,
} from "../domain/subscription.js"
import { SubscribeInput, UnsubscribeInput, UpdateSubscriptionInput } from "../domain/subscription-input.js"
import type { Suppression, SuppressionReason } from "../domain/suppression.js"
import type { TopicId } from "../domain/topic.js"
import { ContactNotFound, ValidationFailed } from "../errors.js"
import {
  decodeEmail, decodeSubscribeInput, subscribeResult, subscriptionSteps,
} from "../internal/subscription-steps.js"
import { currentDate } from "../internal/time.js"
import { Store } from "../ports/store.js"
import { decodeInput } from "../validation.js"
import { ConfirmationLinks } from "./confirmation-links.js"
import { resolveSendable } from "./template-sends.js"
import { FormSignups, type SignupForm } from "./form-signups.js"
import { SendingPause } from "./sending-pause.js"
import { serviceMethod } from "./tracing.js"

export { defaultConfirmationFrom, SubscriptionsConfig, type SubscriptionsSettings } from "./subscriptions-config.js"
export type { ConfirmationLink } from "./confirmation-links.js"
export type { SubscribeResult } from "../internal/subscription-steps.js"

/** What a subscribe call knows of its request beyond the body. */
export interface SubscribeContext {
  /** The client's address (HTTP: `c.get("clientAddress")`): recorded as consentIp on a resubscribe without consent. */
  readonly clientAddress?: string | null | undefined
  /** Set when a hosted signup form subscribes (FormSignups then runs the call); absent for the Subscriptions API. */
  readonly form?: SignupForm | undefined
}

/** Where an unsubscribe comes from: the webhook's `method`, and the campaign when known. */
export interface UnsubscribeContext {
  /** api (default), link, one_click, preference_center, dashboard, platform_settings or complaint. */
  readonly method?: UnsubscribeMethod | undefined
  readonly campaignId?: string | undefined
}

export interface UnsubscribeResult {
  readonly email: EmailAddress
  /** null for an address that is not a contact. */
  readonly contactId: ContactId | null
  readonly scope: UnsubscribeScope
  /** false when the address was already opted out of the scope. */
  readonly changed: boolean
}

/** Who changes a subscription through `update`: the API (default), the hosted preference centre or the dashboard.
 *  It names the events' source and method and the consent source. */
export type UpdateChannel = "api" | "preference_center" | "dashboard"

export interface UpdateContext {
  readonly clientAddress?: string | null | undefined
  readonly channel?: UpdateChannel | undefined
}

export interface ConsentView {
  readonly source: string | null
  readonly at: Date | null
  readonly ip: string | null
  readonly userAgent: string | null
  readonly text: string | null
}

/** The Subscription status object of GET and PATCH /subscriptions/{email}. */
export interface SubscriptionStatus {
  readonly email: EmailAddress
  readonly contact: {
    readonly id: ContactId
    readonly status: ContactStatus
    readonly firstName: string | null
    readonly lastName: string | null
    readonly subscribedAt: Date
    readonly unsubscribedAt: Date | null
    readonly confirmedAt: Date | null
    readonly consent: ConsentView
  } | null
  readonly suppression: { readonly reason: SuppressionReason; readonly since: Date } | null
  readonly unsubscribedFromAll: boolean
  readonly pendingConfirmation: { readonly expiresAt: Date } | null
  /** Every list the contact has been in, newest first. */
  readonly lists: ReadonlyArray<{
    readonly id: string
    readonly name: string
    readonly subscribed: boolean
    readonly addedAt: Date
    readonly removedAt: Date | null
  }>
  /** Every topic of the account, published or not, by sortOrder then name. */
  readonly topics: ReadonlyArray<{
    readonly id: string
    readonly name: string
    readonly label: string | null
    readonly description: string | null
    readonly subscribed: boolean
  }>
}

export interface ResendResult {
  readonly email: EmailAddress
  readonly confirmationSent: boolean
  readonly expiresAt: Date
}


const channels = {
  api: { method: "api", source: "API", consentSource: "api" },
  preference_center: { method: "preference_center", source: "PREFERENCE_CENTER", consentSource: "preference_center" },
  dashboard: { method: "dashboard", source: "DASHBOARD", consentSource: "dashboard" },
} as const satisfies Record<UpdateChannel, {
  readonly method: UnsubscribeMethod
  readonly source: SubscribeSource & MemberEventSource
  readonly consentSource: string
}>

export class Subscriptions extends Effect.Service<Subscriptions>()("@mailroom/core/Subscriptions", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const method = yield* serviceMethod
    const steps = yield* subscriptionSteps
    const links = yield* ConfirmationLinks
    const signups = yield* FormSignups
    const now = currentDate

    /** POST /subscriptions: creates or updates the contact, joins lists, opts into topics, records consent as the spec
     *  says, and with `doubleOptIn` leaves the contact PENDING and sends the confirmation mail. Safe to repeat: a
     *  repeat changes nothing and fires nothing (a pending confirmation is not mailed again; use resend). */
    const subscribe = method("Subscriptions.subscribe")(function* (
      account: Account,
      fields: typeof SubscribeInput.Encoded,
      context: SubscribeContext = {},
    ) {
      if (context.form !== undefined) return yield* signups.subscribe(account, fields, context.form, context.clientAddress ?? null)
      const input = yield* decodeSubscribeInput(fields)
      // The account's own confirmation template, resolved before anything is written: an unknown, unpublished or
      // retired one refuses the call and changes nothing.
      const template = input.confirmationTemplateId === undefined
        ? undefined
        : yield* resolveSendable(store, account.id, null, input.confirmationTemplateId)
      const { written, confirmationSent } = yield* steps.commitAndMail(account, Effect.gen(function* () {
        const written = yield* steps.writeSubscriber(account, input, {
          contactSource: "API", consentSource: "api", consent: input.consent, clientAddress: context.clientAddress ?? null,
        })
        const mail = yield* steps.settleConfirmation(account, written, {
          redirectUrl: input.redirectUrl ?? null, source: "API", formId: null, templateId: template?.design.id ?? null,
        })
        const { contact, decision, listIds, topicIds, addedToListIds, at } = written
        const events: Array<DomainEvent> = written.changed
          ? [subscribedEvent(steps.event(account, at), {
            contactId: contact.id,
            email: input.email,
            source: "API",
            listIds,
            topicIds,
            requiresConfirmation: decision.requiresConfirmation,
            status: decision.status,
          })]
          : []
        events.push(...steps.memberEvents("list.member_added", account.id, contact, addedToListIds, "API", at))
        if (events.length > 0) yield* store.events.append(events)
        return { ...written, mail }
      }), template)
      return subscribeResult(written, confirmationSent)
    })

    /** POST /subscriptions/unsubscribe, and every other unsubscribe path through `context.method` (link, one_click,
     *  preference_center, complaint, …). Scope all works for addresses that are no contact; list needs listId and does
     *  nothing for a non-contact; topic needs topicId and works for anyone. `changed` is false when already opted out;
     *  events fire only when something changed. */
    const unsubscribe = method("Subscriptions.unsubscribe")(function* (
      account: Account,
      fields: typeof UnsubscribeInput.Encoded,
      context: UnsubscribeContext = {},
    ) {
      const input = yield* decodeInput(UnsubscribeInput, fields)
      const scope = input.scope ?? "all"
      const listId = input.listId ?? undefined
      const topicId = input.topicId ?? undefined
      if (scope === "list" && listId === undefined) {
        return yield* Effect.fail(new ValidationFailed({ field: "listId", detail: "is required when scope is list" }))
      }
      if (scope === "topic" && topicId === undefined) {
        return yield* Effect.fail(new ValidationFailed({ field: "topicId", detail: "is required when scope is topic" }))
      }
      const details = {
        method: context.method ?? "api",
        ...(context.campaignId !== undefined ? { campaignId: context.campaignId } : {}),
        ...(input.reason !== undefined && input.reason !== null ? { reason: input.reason } : {}),
      }
      const at = yield* now
      // Scope all decides on the contact and the suppression: one read of both. The other scopes need the contact only.
      const address = scope === "all"
        ? yield* store.contacts.findAddress(account.id, input.email)
        : { contact: yield* store.contacts.findByEmail(account.id, input.email), suppression: Option.none<Suppression>() }
      const contact = Option.getOrUndefined(address.contact)
      let changed: boolean
      if (scope === "list") {
        yield* steps.checkLists(account, [listId!])
        changed = contact === undefined ? false : yield* steps.leaveList(account.id, contact, listId!, details, at)
      } else if (scope === "topic") {
        yield* steps.checkTopics(account, [topicId!])
        changed = yield* steps.leaveTopic(account.id, input.email, contact, topicId!, details, at)
      } else {
        changed = yield* steps.unsubscribeAll(account.id, input.email, contact, Option.getOrUndefined(address.suppression), details, at)
      }
      return { email: input.email, contactId: contact?.id ?? null, scope, changed } satisfies UnsubscribeResult
    }, store.transaction)

    const readStatus = (account: Account, email: EmailAddress) =>
      Effect.gen(function* () {
        const at = yield* now
        const address = yield* store.contacts.findAddress(account.id, email)
        const contact = Option.getOrUndefined(address.contact)
        const suppression = Option.getOrUndefined(address.suppression)
        const topics = yield* store.topics.all(account.id)
        const optedOut = new Set<string>(yield* store.topics.optedOut(account.id, email))
        const memberships = contact === undefined ? [] : yield* store.members.ofContact(account.id, contact.id)
        const pending = contact === undefined || contact.status !== "PENDING"
          ? undefined
          : Option.getOrUndefined(yield* store.confirmations.find(account.id, contact.id))
        return {
          email,
          contact: contact === undefined ? null : {
            id: contact.id,
            status: contact.status,
            firstName: contact.firstName,
            lastName: contact.lastName,
            subscribedAt: contact.subscribedAt,
            unsubscribedAt: contact.unsubscribedAt,
            confirmedAt: contact.confirmedAt,
            consent: {
              source: contact.consentSource,
              at: contact.consentAt,
              ip: contact.consentIp,
              userAgent: contact.consentUserAgent,
              text: contact.consentText,
            },
          },
          suppression: suppression === undefined ? null : { reason: suppression.reason, since: suppression.createdAt },
          unsubscribedFromAll: contact?.status === "UNSUBSCRIBED" || suppression !== undefined,
          pendingConfirmation: pending === undefined || pending.expiresAt.getTime() <= at.getTime()
            ? null
            : { expiresAt: pending.expiresAt },
          lists: memberships.map(({ membership, listName }) => ({
            id: membership.listId,
            name: listName,
            subscribed: membership.removedAt === null,
            addedAt: membership.addedAt,
            removedAt: membership.removedAt,
          })),
          topics: topics.map((topic) => ({
            id: topic.id,
            name: topic.name,
            label: topic.publicLabel,
            description: topic.publicDescription,
            subscribed: !optedOut.has(topic.id),
          })),
        } satisfies SubscriptionStatus
      })

    /** GET /subscriptions/{email}: the full status object; `contact` is null for an address that is not a contact. The
     *  address is checked (VALIDATION_ERROR naming `email`) as the path gives it, decoded once. */
    const status = method("Subscriptions.status")(function* (account: Account, email: string) {
      return yield* readStatus(account, yield* decodeEmail(email))
    })

    /** PATCH /subscriptions/{email} (and the preference centre with channel preference_center): topics on/off, lists
     *  joined/left, or unsubscribeAll (which ignores topics and lists). Joining a list needs a contact and, for someone
     *  who unsubscribed, `resubscribe` (consent recorded then; the client address when none is given). Turning a topic
     *  on never lifts a global unsubscribe. Answers the status after the change. */
    const update = method("Subscriptions.update")(function* (
      account: Account,
      emailParam: string,
      fields: typeof UpdateSubscriptionInput.Encoded,
      context: UpdateContext = {},
    ) {
      const email = yield* decodeEmail(emailParam)
      const input = yield* decodeInput(UpdateSubscriptionInput, fields)
      if (input.topics === undefined && input.lists === undefined && input.unsubscribeAll === undefined) {
        return yield* Effect.fail(new ValidationFailed({ detail: "give at least one of topics, lists and unsubscribeAll" }))
      }
      const channel = channels[context.channel ?? "api"]
      const details = { method: channel.method }
      const at = yield* now
      const address = yield* store.contacts.findAddress(account.id, email)
      let contact = Option.getOrUndefined(address.contact)
      const suppression = Option.getOrUndefined(address.suppression)
      if (input.unsubscribeAll === true) {
        yield* steps.unsubscribeAll(account.id, email, contact, suppression, details, at)
        return yield* readStatus(account, email)
      }
      const topicEntries = Object.entries(input.topics ?? {})
      const listEntries = Object.entries(input.lists ?? {})
      yield* steps.checkTopics(account, topicEntries.map(([id]) => id))
      yield* steps.checkLists(account, listEntries.map(([id]) => id))
      const joins = listEntries.filter(([, on]) => on).map(([id]) => id)
      const leaves = listEntries.filter(([, on]) => !on).map(([id]) => id)

      const events: Array<DomainEvent> = []
      let resubscribed = false
      const added: Array<string> = []
      if (joins.length > 0) {
        if (contact === undefined) return yield* Effect.fail(new ContactNotFound({ email }))
        const decision = yield* Either.match(decideSubscribe(email, {
          contactStatus: contact.status,
          hasConsent: contact.consentAt !== null,
          suppression: suppression?.reason ?? null,
        }, {
          doubleOptIn: false,
          resubscribe: input.resubscribe ?? false,
          consent: input.consent,
          requestIp: context.clientAddress ?? null,
          consentSource: channel.consentSource,
        }, at), { onLeft: Effect.fail, onRight: Effect.succeed })
        // Joining a list re-subscribes only someone who had unsubscribed; a PENDING contact stays PENDING.
        const comesBack = contact.status === "UNSUBSCRIBED" || suppression?.reason === "Unsubscribe"
        if (comesBack) {
          if (contact.status !== "ACTIVE") yield* steps.checkRoom(account)
          contact = {
            ...contact,
            status: "ACTIVE",
            subscribedAt: at,
            ...(decision.consent ?? {}),
            updatedAt: at,
          }
          yield* store.contacts.update(contact)
          if (decision.liftSuppression) yield* store.suppressions.delete(account.id, email)
          resubscribed = true
        }
        added.push(...yield* steps.joinLists(account.id, contact.id, joins, at, false))
        events.push(...steps.memberEvents("list.member_added", account.id, contact, added, channel.source, at))
      }
      const topicsOn: Array<string> = []
      for (const [topicId, on] of topicEntries) {
        if (on) {
          if (yield* store.topics.optIn(account.id, topicId as TopicId, email)) topicsOn.push(topicId)
        }
      }
      if (contact !== undefined && (resubscribed || added.length > 0 || topicsOn.length > 0)) {
        events.push(subscribedEvent(steps.event(account, at), {
          contactId: contact.id,
          email,
          source: channel.source,
          listIds: added,
          topicIds: topicsOn,
          requiresConfirmation: contact.status === "PENDING",
          status: contact.status === "PENDING" ? "PENDING" : "ACTIVE",
        }))
      }
      if (events.length > 0) yield* store.events.append(events)
      if (contact !== undefined) for (const listId of leaves) yield* steps.leaveList(account.id, contact, listId, details, at)
      for (const [topicId, on] of topicEntries) if (!on) yield* steps.leaveTopic(account.id, email, contact, topicId, details, at)
      return yield* readStatus(account, email)
    }, store.transaction)

    /** POST /subscriptions/{email}/resend-confirmation: a new link (the older one stops working), valid 7 days from
     *  now, mailed again. Only for a PENDING contact whose double opt-in came through the API; `via: "link"` (the
     *  confirmation page offering a new link) also serves signup-form confirmations. While sending is paused nothing
     *  changes and confirmationSent is false. */
    const resendConfirmation = method("Subscriptions.resendConfirmation")(function* (
      account: Account,
      emailParam: string,
      context: { readonly via?: "api" | "link" | undefined } = {},
    ) {
      const email = yield* decodeEmail(emailParam)
      return (yield* steps.resend(account, email, context.via === "link")) satisfies ResendResult
    })

    /** What a confirmation link is worth without changing anything (ConfirmationLinks.inspect). */
    const confirmation = (token: string) => links.inspect(token)

    /** Confirms a double opt-in from its link token (ConfirmationLinks.confirm). */
    const confirm = (token: string) => links.confirm(token)

    return { subscribe, unsubscribe, status, update, resendConfirmation, confirmation, confirm } as const
  }),
  dependencies: [SendingPause.Default, ConfirmationLinks.Default, FormSignups.Default],
}) {}
