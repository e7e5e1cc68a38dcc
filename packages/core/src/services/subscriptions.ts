/** The Subscriptions API: subscribe (with double opt-in), unsubscribe (all, list, topic), the subscription status, its
 *  PATCH, resend-confirmation, and the confirmation link. Spec: audience "Subscriptions", rules 1-5, "Moves made by
 *  other operations" and the contact.* / list.member_* details. Every change appends its events to the outbox in the
 *  same Store transaction; the confirmation mail goes through the Mailer after that transaction commits. The public
 *  unsubscribe endpoints, the preference centre, signup forms and complaints reuse these methods with their own
 *  `method` / channel, so that every path applies the same rules and fires the same events. Each method decodes its
 *  own input with core's schemas, so Effect hosts and the Promise facade meet the same limits as HTTP clients. */
import { Context, Effect, Either, Option, Schema } from "effect"
import { type Account, type AccountId, planLimits } from "../domain/account.js"
import type { PendingConfirmation } from "../domain/confirmation.js"
import { type Contact, type ContactId, type ContactSource, type ContactStatus, mergeTags, newContact } from "../domain/contact.js"
import { EmailAddress } from "../domain/email.js"
import type { ConfirmationMode } from "../domain/link-visit.js"
import type { DomainEvent } from "../domain/event.js"
import type { ListId } from "../domain/list.js"
import { type MemberEventSource, memberEvent, newListMemberships } from "../domain/member.js"
import { compileContent, renderContent } from "../domain/render.js"
import {
  confirmedEvent, type ConsentInput, decideSubscribe, decideUnsubscribeAll, subscribedEvent, type SubscribeSource, unsubscribedEvent,
  type UnsubscribeMethod, type UnsubscribeScope,
} from "../domain/subscription.js"
import {
  defaultConfirmationTemplate, SubscribeInput, UnsubscribeInput, UpdateSubscriptionInput,
} from "../domain/subscription-input.js"
import type { Suppression, SuppressionId, SuppressionReason } from "../domain/suppression.js"
import type { Topic, TopicId } from "../domain/topic.js"
import {
  ContactNotFound, FreeTierContactLimit, ListNotFound, NoPendingConfirmation, TopicNotFound,
  ValidationFailed,
} from "../errors.js"
import { activeRoom } from "../internal/active-room.js"
import { Ids } from "../ports/ids.js"
import { Mailer } from "../ports/mailer.js"
import { Store } from "../ports/store.js"
import { decodeInput } from "../validation.js"
import { SendingPause } from "./sending-pause.js"
import { Tokens } from "./tokens.js"
import { serviceMethod } from "./tracing.js"
import { currentDate } from "../internal/time.js"

/** The sender of confirmation mail unless the host names one. */
export const defaultConfirmationFrom = "confirm@mailroom.localhost"

/** The host's settings of double opt-in. */
export interface SubscriptionsSettings {
  /** Who the confirmation mail comes from; the display name is the account's name. */
  readonly confirmationFrom: string
  /** What following the confirmation link does: `link` (default) confirms at once in a person's browser and shows the
   *  button to automated fetches; `button` shows the button to everyone (docs/consent.md). */
  readonly confirmation?: ConfirmationMode | undefined
}

export class SubscriptionsConfig extends Context.Reference<SubscriptionsConfig>()("@mailroom/core/SubscriptionsConfig", {
  defaultValue: (): SubscriptionsSettings => ({ confirmationFrom: defaultConfirmationFrom }),
}) {}

/** A hosted signup form subscribing an address (the hosted pages pass it): contact source FORM, consent source form
 *  with the text `Signup form: <name>` unless consent text is given, contact.subscribed carries formId, listId and
 *  fields, and no list.member_added fires (the form reports its list in contact.subscribed). */
export interface SignupForm {
  readonly id: string
  readonly name: string
  readonly listId: string | null
  readonly fields: Readonly<Record<string, unknown>>
}

/** What a subscribe call knows of its request beyond the body. */
export interface SubscribeContext {
  /** The client's address (HTTP: `c.get("clientAddress")`): recorded as consentIp on a resubscribe without consent. */
  readonly clientAddress?: string | null | undefined
  /** Set when a hosted signup form subscribes; absent for the Subscriptions API. */
  readonly form?: SignupForm | undefined
}

export interface SubscribeResult {
  readonly contactId: ContactId
  readonly email: EmailAddress
  readonly status: "ACTIVE" | "PENDING"
  /** The contact was created by this call (201 over HTTP). */
  readonly created: boolean
  readonly listIds: ReadonlyArray<string>
  readonly addedToListIds: ReadonlyArray<string>
  readonly topicIds: ReadonlyArray<string>
  readonly requiresConfirmation: boolean
  /** A confirmation mail left with this call: false when none was due, when one is already outstanding, or when
   *  sending is paused or failed (then use resend-confirmation). */
  readonly confirmationSent: boolean
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

/** What a confirmation link is worth, for the `/c/<token>` page:
 *  - pending: genuine and outstanding (the page shows its button; nothing changed);
 *  - confirmed: this call confirmed the contact;
 *  - already_confirmed: the contact was confirmed before (a second click);
 *  - expired: genuine but past its 7 days, or replaced by a newer link: the page offers a new one (resendConfirmation
 *    with `via: "link"` for `accountId` and `email`);
 *  - invalid: forged, malformed, of an unknown account or contact, or the double opt-in was withdrawn. */
export interface ConfirmationLink {
  readonly state: "pending" | "confirmed" | "already_confirmed" | "expired" | "invalid"
  readonly accountId: AccountId | null
  readonly email: string | null
  /** Where the browser goes after confirming (https only), or null for the plain confirmation page. */
  readonly redirectUrl: string | null
  /** The reason in plain words, for the page. */
  readonly detail: string
}

const unique = <A>(items: ReadonlyArray<A> | undefined): ReadonlyArray<A> => [...new Set(items ?? [])]

const channels = {
  api: { method: "api", source: "API", consentSource: "api" },
  preference_center: { method: "preference_center", source: "PREFERENCE_CENTER", consentSource: "preference_center" },
  dashboard: { method: "dashboard", source: "DASHBOARD", consentSource: "dashboard" },
} as const satisfies Record<UpdateChannel, {
  readonly method: UnsubscribeMethod
  readonly source: SubscribeSource & MemberEventSource
  readonly consentSource: string
}>

const decodeEmail = (value: string) =>
  Effect.map(decodeInput(Schema.Struct({ email: EmailAddress }), { email: value }), ({ email }) => email)

const confirmationTemplate = Either.getOrThrow(compileContent(defaultConfirmationTemplate))

export class Subscriptions extends Effect.Service<Subscriptions>()("@mailroom/core/Subscriptions", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const method = yield* serviceMethod
    const ids = yield* Ids
    const tokens = yield* Tokens
    const pause = yield* SendingPause
    const now = currentDate

    const event = (account: Account | AccountId, at: Date) => ({
      id: ids.make("event", at),
      accountId: typeof account === "string" ? account : account.id,
      occurredAt: at,
    })

    const memberEvents = (
      type: "list.member_added" | "list.member_removed",
      accountId: AccountId,
      contact: Contact,
      listIds: ReadonlyArray<string>,
      source: MemberEventSource,
      at: Date,
    ): ReadonlyArray<DomainEvent> =>
      listIds.map((listId) => memberEvent(type, {
        id: ids.make("event", at),
        accountId,
        listId: listId as ListId,
        contactId: contact.id,
        email: contact.email,
        source,
        occurredAt: at,
      }))

    /** LIST_NOT_FOUND naming the first of `listIds` that is not among `known` (the account's lists found), if any. */
    const requireLists = (listIds: ReadonlyArray<string>, known: ReadonlyArray<string>) => {
      const found = new Set(known)
      const missing = listIds.find((id) => !found.has(id))
      return missing === undefined ? Effect.void : Effect.fail(new ListNotFound({ listId: missing }))
    }

    /** The account's lists among `listIds`, or LIST_NOT_FOUND naming the first that is not (another account's too). */
    const checkLists = (account: Account, listIds: ReadonlyArray<string>) =>
      listIds.length === 0
        ? Effect.void
        : Effect.flatMap(store.lists.findByIds(account.id, listIds), (found) => requireLists(listIds, found.map((list) => list.id)))

    /** Makes the contact a current member of the account's lists among `listIds` in one statement; answers the lists
     *  it newly joined (or rejoined), in the order of `listIds`. `created`: the contact was inserted earlier in this
     *  transaction (the store's cheaper statement for a contact in no list yet). */
    const joinLists = (accountId: AccountId, contactId: ContactId, listIds: ReadonlyArray<string>, at: Date, created: boolean) =>
      listIds.length === 0
        ? Effect.succeed<ReadonlyArray<string>>([])
        : Effect.map(
          (created ? store.members.addNewContactToLists : store.members.addToLists)(
            accountId, contactId, newListMemberships(listIds, () => ids.make("member", at)), at),
          (joined) => {
            const added = new Set(joined)
            return listIds.filter((listId) => added.has(listId))
          },
        )

    /** The account's topics among `topicIds`, or TOPIC_NOT_FOUND naming the first that is not. */
    const checkTopics = (account: Account, topicIds: ReadonlyArray<string>) =>
      topicIds.length === 0
        ? Effect.succeed<ReadonlyArray<Topic>>([])
        : Effect.flatMap(store.topics.findByIds(account.id, topicIds), (found) => {
          const known = new Set<string>(found.map((topic) => topic.id))
          const missing = topicIds.find((id) => !known.has(id))
          return missing === undefined ? Effect.succeed(found) : Effect.fail(new TopicNotFound({ topicId: missing }))
        })

    const checkRoom = (account: Account) =>
      Effect.flatMap(activeRoom(store, account), (cap) =>
        cap === undefined || cap.room >= 1
          ? Effect.void
          : Effect.fail(new FreeTierContactLimit({ limit: planLimits[account.plan].activeContacts ?? 0 })))

    /** Marks the contact's current memberships of lists tagged with the topic removed (rule 1); answers the lists left. */
    const leaveTaggedLists = (accountId: AccountId, contact: Contact | undefined, topicId: string, at: Date) =>
      Effect.gen(function* () {
        if (contact === undefined) return []
        const memberships = yield* store.members.ofContact(accountId, contact.id)
        const tagged = memberships.filter((m) => m.suppressionGroupId === topicId && m.membership.removedAt === null)
        const left: Array<string> = []
        for (const { membership } of tagged) {
          const marked = yield* store.members.markRemoved(accountId, membership.listId, [contact.id], at)
          if (marked.length > 0) left.push(membership.listId)
        }
        return left
      })

    /** Sends the confirmation mail unless sending is paused; true when the relay took it (accepted, deferred for a
     *  later try, or unknown after DATA). A failure is logged without the address and answers false. */
    const sendConfirmation = (account: Account, contact: Contact, url: string) =>
      Effect.gen(function* () {
        if (yield* pause.isPaused(account.id)) return false
        const config = yield* SubscriptionsConfig
        const rendered = renderContent(confirmationTemplate, {
          confirm_url: url,
          first_name: contact.firstName ?? "",
          last_name: contact.lastName ?? "",
          email: contact.email,
        })
        if (Either.isLeft(rendered)) return false
        const mailer = yield* Mailer
        const result = yield* Effect.either(mailer.send({
          envelopeFrom: config.confirmationFrom,
          envelopeTo: [contact.email],
          from: { email: config.confirmationFrom, name: account.name ?? undefined },
          to: [{ email: contact.email }],
          subject: rendered.right.subject,
          html: rendered.right.html,
          text: rendered.right.text,
        }))
        if (Either.isLeft(result)) {
          yield* Effect.logWarning("confirmation mail not sent", result.left.detail)
          return false
        }
        return result.right.recipients.some((outcome) => outcome.status !== "bounced")
      })

    /** A fresh confirmation for the contact: a new nonce and link, valid 7 days from now. */
    const newConfirmation = (
      account: Account,
      contact: Contact,
      fields: Pick<PendingConfirmation, "listIds" | "topicIds" | "redirectUrl" | "source" | "formId">,
      at: Date,
    ) =>
      Effect.gen(function* () {
        const nonce = ids.token(16)
        const { url, expiresAt } = yield* tokens.confirmationUrl({ accountId: account.id, recipient: contact.email, nonce })
        const confirmation: PendingConfirmation = { accountId: account.id, contactId: contact.id, nonce, ...fields, expiresAt, createdAt: at }
        yield* store.confirmations.put(confirmation)
        return { url, confirmation }
      })

    const subscribeWrite = (account: Account, input: SubscribeInput, context: SubscribeContext) =>
      Effect.gen(function* () {
        const form = context.form
        const listIds = unique(input.listIds)
        const topicIds = unique(input.topicIds)
        // The lists named are checked with the address's read, in the same query.
        const address = yield* store.contacts.findAddress(account.id, input.email, listIds)
        yield* requireLists(listIds, address.listIds)
        yield* checkTopics(account, topicIds)
        const at = yield* now
        const existing = Option.getOrUndefined(address.contact)
        const suppression = Option.getOrUndefined(address.suppression)
        const consent: ConsentInput | undefined = form === undefined
          ? input.consent
          : { ...input.consent, text: input.consent?.text ?? `Signup form: ${form.name}` }
        const decision = yield* Either.match(decideSubscribe(input.email, {
          contactStatus: existing?.status ?? null,
          hasConsent: existing !== undefined && existing.consentAt !== null,
          suppression: suppression?.reason ?? null,
        }, {
          doubleOptIn: input.doubleOptIn ?? false,
          resubscribe: input.resubscribe ?? false,
          consent,
          requestIp: context.clientAddress ?? null,
          consentSource: form === undefined ? "api" : "form",
        }, at), { onLeft: Effect.fail, onRight: Effect.succeed })
        if (decision.status === "ACTIVE" && existing?.status !== "ACTIVE") yield* checkRoom(account)

        const created = existing === undefined
        const contactId = existing?.id ?? ids.make("contact", at) as ContactId
        const given = {
          ...(input.firstName !== undefined ? { firstName: input.firstName } : {}),
          ...(input.lastName !== undefined ? { lastName: input.lastName } : {}),
          ...(input.phone !== undefined ? { phone: input.phone } : {}),
          ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
        }
        let contact: Contact
        if (existing === undefined) {
          contact = newContact({ id: contactId, accountId: account.id, email: input.email, at }, {
            ...given,
            source: (form === undefined ? "API" : "FORM") satisfies ContactSource,
            status: decision.status,
            ...(decision.consent ?? {}),
            tags: unique(input.tags).map((tag) => ({ id: ids.make("tag", at), contactId, tag })),
            customFields: Object.entries(input.customFields ?? {})
              .map(([key, value]) => ({ id: ids.make("customField", at), contactId, key, value })),
          })
          yield* store.contacts.insert(contact)
        } else {
          contact = {
            ...existing,
            ...given,
            status: decision.status,
            subscribedAt: decision.resubscribed ? at : existing.subscribedAt,
            ...(decision.consent ?? {}),
            updatedAt: at,
          }
          yield* store.contacts.update(contact)
          const existingTags = existing.tags.map((tag) => tag.tag)
          const merged = yield* Either.match(mergeTags(existingTags, unique(input.tags)), {
            onLeft: Effect.fail,
            onRight: Effect.succeed,
          })
          const addedTags = merged.filter((tag) => !existingTags.includes(tag))
          if (addedTags.length > 0) {
            yield* store.contacts.addTags(account.id, contactId, addedTags.map((tag) => ({ id: ids.make("tag", at), contactId, tag })))
          }
          if (input.customFields !== undefined && Object.keys(input.customFields).length > 0) {
            const fields = { ...Object.fromEntries(existing.customFields.map((f) => [f.key, f.value])), ...input.customFields }
            yield* store.contacts.replaceCustomFields(account.id, contactId, Object.entries(fields)
              .map(([key, value]) => ({ id: ids.make("customField", at), contactId, key, value })))
          }
        }
        if (decision.liftSuppression) yield* store.suppressions.delete(account.id, input.email)

        let topicsOptedIn = 0
        for (const topicId of topicIds) if (yield* store.topics.optIn(account.id, topicId as TopicId, input.email)) topicsOptedIn++
        const addedToListIds = yield* joinLists(account.id, contactId, listIds, at, created)

        let mail: string | undefined
        // A contact made by this call has no pending confirmation: no need to ask the store.
        const pending = created ? undefined : Option.getOrUndefined(yield* store.confirmations.find(account.id, contactId))
        if (decision.requiresConfirmation) {
          const outstanding = existing?.status === "PENDING" && pending !== undefined && pending.expiresAt.getTime() > at.getTime()
          if (!outstanding) {
            const made = yield* newConfirmation(account, contact, {
              listIds, topicIds, redirectUrl: input.redirectUrl ?? null, source: form === undefined ? "API" : "FORM",
              formId: form?.id ?? null,
            }, at)
            mail = made.url
          } else if (form !== undefined && pending !== undefined && pending.formId !== form.id) {
            // A signup form reaching an address whose confirmation is outstanding mails nothing new, but the link
            // already sent now confirms on behalf of the latest form: contact.confirmed names it.
            yield* store.confirmations.put({ ...pending, formId: form.id })
          }
        } else if (pending !== undefined) {
          yield* store.confirmations.delete(account.id, contactId)
        }

        const changed = created || existing.status !== contact.status || decision.resubscribed || decision.liftSuppression
          || addedToListIds.length > 0 || topicsOptedIn > 0
        const events: Array<DomainEvent> = []
        if (changed) {
          const subscribed = subscribedEvent(event(account, at), {
            contactId,
            email: input.email,
            source: form === undefined ? "API" : "FORM",
            listIds,
            topicIds,
            requiresConfirmation: decision.requiresConfirmation,
            status: decision.status,
          })
          events.push(form === undefined ? subscribed : {
            ...subscribed,
            details: { ...subscribed.details, formId: form.id, listId: form.listId, fields: form.fields },
          })
        }
        if (form === undefined) events.push(...memberEvents("list.member_added", account.id, contact, addedToListIds, "API", at))
        if (events.length > 0) yield* store.events.append(events)

        return {
          contact,
          mail,
          result: {
            contactId,
            email: input.email,
            status: decision.status,
            created,
            listIds,
            addedToListIds,
            topicIds,
            requiresConfirmation: decision.requiresConfirmation,
            confirmationSent: false,
          } satisfies SubscribeResult,
        }
      })

    /** POST /subscriptions: creates or updates the contact, joins lists, opts into topics, records consent as the spec
     *  says, and with `doubleOptIn` leaves the contact PENDING and sends the confirmation mail. Safe to repeat: a
     *  repeat changes nothing and fires nothing (a pending confirmation is not mailed again; use resend). */
    const subscribe = method("Subscriptions.subscribe")(function* (
      account: Account,
      fields: typeof SubscribeInput.Encoded,
      context: SubscribeContext = {},
    ) {
      const input = yield* decodeInput(SubscribeInput, fields)
      if (input.confirmationTemplateId !== undefined) {
        return yield* Effect.fail(new ValidationFailed({
          field: "confirmationTemplateId",
          detail: "stored templates are not available yet; leave it out to send the default confirmation mail",
        }))
      }
      // Two calls for the same new address at once: the one that loses the insert runs again and finds the contact.
      const write = store.transaction(subscribeWrite(account, input, context))
      const written = yield* Effect.catchTag(write, "DuplicateContact", () => write)
      const confirmationSent = written.mail === undefined ? false : yield* sendConfirmation(account, written.contact, written.mail)
      return { ...written.result, confirmationSent } satisfies SubscribeResult
    })

    /** Unsubscribe from everything: the contact becomes UNSUBSCRIBED (its pending confirmation goes) and an Unsubscribe
     *  suppression is added unless the address has one; contact.unsubscribed when something changed. `contact` and
     *  `suppression` are what one `findAddress` read in the same transaction. */
    const unsubscribeAll = (
      accountId: AccountId,
      email: EmailAddress,
      contact: Contact | undefined,
      suppression: Suppression | undefined,
      details: { readonly method: UnsubscribeMethod; readonly campaignId?: string | undefined; readonly reason?: string | undefined },
      at: Date,
    ) =>
      Effect.gen(function* () {
        const decision = decideUnsubscribeAll(contact?.status ?? null, suppression?.reason ?? null)
        if (contact !== undefined && decision.status !== undefined) {
          yield* store.contacts.update({ ...contact, status: decision.status, unsubscribedAt: at, updatedAt: at })
          yield* store.confirmations.delete(accountId, contact.id)
        }
        if (decision.addSuppression) {
          yield* store.suppressions.insertIfAbsent({
            id: ids.make("suppression", at) as SuppressionId,
            accountId,
            email,
            reason: "Unsubscribe",
            details: {
              method: details.method,
              ...(details.campaignId !== undefined ? { campaignId: details.campaignId } : {}),
              ...(details.reason !== undefined ? { reason: details.reason } : {}),
            },
            createdAt: at,
            updatedAt: at,
          })
        }
        if (decision.changed) {
          yield* store.events.append([unsubscribedEvent(event(accountId, at), {
            email, contactId: contact?.id ?? null, scope: "all", listId: null, topicId: null, ...details,
          })])
        }
        return decision.changed
      })

    /** Leaves one list (the membership is marked removed, rule 2): list.member_removed and contact.unsubscribed. */
    const leaveList = (
      accountId: AccountId,
      contact: Contact,
      listId: string,
      details: { readonly method: UnsubscribeMethod; readonly campaignId?: string | undefined; readonly reason?: string | undefined },
      at: Date,
    ) =>
      Effect.gen(function* () {
        const marked = yield* store.members.markRemoved(accountId, listId, [contact.id], at)
        if (marked.length === 0) return false
        yield* store.events.append([
          ...memberEvents("list.member_removed", accountId, contact, [listId], "UNSUBSCRIBE", at),
          unsubscribedEvent(event(accountId, at), {
            email: contact.email, contactId: contact.id, scope: "list", listId, topicId: null, ...details,
          }),
        ])
        return true
      })

    /** Opts out of one topic and leaves every list tagged with it (rule 1): list.member_removed per list left and
     *  contact.unsubscribed when something changed. */
    const leaveTopic = (
      accountId: AccountId,
      email: EmailAddress,
      contact: Contact | undefined,
      topicId: string,
      details: { readonly method: UnsubscribeMethod; readonly campaignId?: string | undefined; readonly reason?: string | undefined },
      at: Date,
    ) =>
      Effect.gen(function* () {
        const optedOut = yield* store.topics.optOut(accountId, topicId as TopicId, email, at)
        const left = yield* leaveTaggedLists(accountId, contact, topicId, at)
        const changed = optedOut || left.length > 0
        if (!changed) return false
        yield* store.events.append([
          ...(contact === undefined ? [] : memberEvents("list.member_removed", accountId, contact, left, "UNSUBSCRIBE", at)),
          unsubscribedEvent(event(accountId, at), {
            email, contactId: contact?.id ?? null, scope: "topic", listId: null, topicId, ...details,
          }),
        ])
        return true
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
        yield* checkLists(account, [listId!])
        changed = contact === undefined ? false : yield* leaveList(account.id, contact, listId!, details, at)
      } else if (scope === "topic") {
        yield* checkTopics(account, [topicId!])
        changed = yield* leaveTopic(account.id, input.email, contact, topicId!, details, at)
      } else {
        changed = yield* unsubscribeAll(account.id, input.email, contact, Option.getOrUndefined(address.suppression), details, at)
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
        yield* unsubscribeAll(account.id, email, contact, suppression, details, at)
        return yield* readStatus(account, email)
      }
      const topicEntries = Object.entries(input.topics ?? {})
      const listEntries = Object.entries(input.lists ?? {})
      yield* checkTopics(account, topicEntries.map(([id]) => id))
      yield* checkLists(account, listEntries.map(([id]) => id))
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
          if (contact.status !== "ACTIVE") yield* checkRoom(account)
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
        added.push(...yield* joinLists(account.id, contact.id, joins, at, false))
        events.push(...memberEvents("list.member_added", account.id, contact, added, channel.source, at))
      }
      const topicsOn: Array<string> = []
      for (const [topicId, on] of topicEntries) {
        if (on) {
          if (yield* store.topics.optIn(account.id, topicId as TopicId, email)) topicsOn.push(topicId)
        }
      }
      if (contact !== undefined && (resubscribed || added.length > 0 || topicsOn.length > 0)) {
        events.push(subscribedEvent(event(account, at), {
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
      if (contact !== undefined) for (const listId of leaves) yield* leaveList(account.id, contact, listId, details, at)
      for (const [topicId, on] of topicEntries) if (!on) yield* leaveTopic(account.id, email, contact, topicId, details, at)
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
      const written = yield* store.transaction(Effect.gen(function* () {
        const contact = Option.getOrUndefined(yield* store.contacts.findByEmail(account.id, email))
        if (contact === undefined) return yield* Effect.fail(new ContactNotFound({ email }))
        const pending = Option.getOrUndefined(yield* store.confirmations.find(account.id, contact.id))
        if (contact.status !== "PENDING" || pending === undefined) {
          return yield* Effect.fail(new NoPendingConfirmation({ email, detail: `the contact is ${contact.status} with no outstanding confirmation` }))
        }
        if (pending.source !== "API" && context.via !== "link") {
          return yield* Effect.fail(new NoPendingConfirmation({ email, detail: "the contact subscribed through a signup form" }))
        }
        if (yield* pause.isPaused(account.id)) return { contact, pending, url: undefined }
        const { listIds, topicIds, redirectUrl, source, formId } = pending
        const made = yield* newConfirmation(account, contact, { listIds, topicIds, redirectUrl, source, formId }, yield* now)
        return { contact, pending: made.confirmation, url: made.url }
      }))
      const confirmationSent = written.url === undefined ? false : yield* sendConfirmation(account, written.contact, written.url)
      return { email, confirmationSent, expiresAt: written.pending.expiresAt } satisfies ResendResult
    })

    const invalid = (detail: string): ConfirmationLink => ({ state: "invalid", accountId: null, email: null, redirectUrl: null, detail })

    /** Reads a confirmation token and, with `apply`, confirms. */
    const follow = (token: string, apply: boolean) =>
      Effect.gen(function* () {
        const inspected = yield* Effect.either(tokens.inspect("confirm", token))
        if (Either.isLeft(inspected)) return invalid(inspected.left.detail)
        const { claims, expired } = inspected.right
        const accountId = claims.a as AccountId
        const email = claims.r
        const about = { accountId, email }
        const account = Option.getOrUndefined(yield* store.accounts.findById(accountId))
        if (account === undefined) return invalid("the account is unknown")
        const contact = Option.getOrUndefined(yield* store.contacts.findByEmail(accountId, email as EmailAddress))
        if (contact === undefined) return invalid("the address is no longer a contact")
        const pending = Option.getOrUndefined(yield* store.confirmations.find(accountId, contact.id))
        if (pending === undefined || pending.nonce !== claims.n) {
          if (contact.status === "ACTIVE" && contact.confirmedAt !== null) {
            return { state: "already_confirmed", ...about, redirectUrl: null, detail: "the subscription is confirmed already" } satisfies ConfirmationLink
          }
          if (pending !== undefined && contact.status === "PENDING") {
            return { state: "expired", ...about, redirectUrl: null, detail: "a newer confirmation link replaced this one" } satisfies ConfirmationLink
          }
          return invalid("this confirmation is no longer outstanding")
        }
        const at = yield* now
        if (expired || pending.expiresAt.getTime() <= at.getTime() || contact.status !== "PENDING") {
          return contact.status === "PENDING"
            ? { state: "expired", ...about, redirectUrl: null, detail: "the confirmation link has expired" } satisfies ConfirmationLink
            : invalid("this confirmation is no longer outstanding")
        }
        if (!apply) return { state: "pending", ...about, redirectUrl: pending.redirectUrl, detail: "the confirmation is outstanding" } satisfies ConfirmationLink
        yield* store.contacts.update({ ...contact, status: "ACTIVE", confirmedAt: at, updatedAt: at })
        yield* store.confirmations.delete(accountId, contact.id)
        yield* store.events.append([confirmedEvent(event(accountId, at), {
          contactId: contact.id,
          email: contact.email,
          formId: pending.formId,
          listIds: pending.listIds,
          topicIds: pending.topicIds,
          confirmedAt: at,
        })])
        return { state: "confirmed", ...about, redirectUrl: pending.redirectUrl, detail: "the subscription is confirmed" } satisfies ConfirmationLink
      })

    /** What a confirmation link is worth without changing anything (state pending instead of confirmed): for the page
     *  that shows a button, so that a HEAD, a prefetch or a mail scanner never confirms. */
    const confirmation = method("Subscriptions.confirmation")(function* (token: string) {
      return yield* follow(token, false)
    })

    /** Confirms a double opt-in from its link token: the PENDING contact becomes ACTIVE with confirmedAt, the pending
     *  confirmation goes and contact.confirmed fires, in one transaction. Never fails on a bad token: the answer's
     *  state says what the page should tell (confirmed, already_confirmed, expired, invalid). */
    const confirm = method("Subscriptions.confirm")(function* (token: string) {
      return yield* follow(token, true)
    }, store.transaction)

    return { subscribe, unsubscribe, status, update, resendConfirmation, confirmation, confirm } as const
  }),
  dependencies: [SendingPause.Default],
}) {}
