/** The steps that the Subscriptions API, signup forms and confirmation links share: checking the lists and topics a
 *  call names, writing the subscriber (contact, consent, tags, custom fields, topics, lists), making and mailing a
 *  confirmation link, and the three ways of leaving (everything, a list, a topic). Each service builds them with
 *  `yield* subscriptionSteps`; the rules they apply are the pure ones of domain/subscription.ts. */
import { Effect, Either, Option, Schema } from "effect"
import { type Account, type AccountId, planLimits } from "../domain/account.js"
import type { PendingConfirmation } from "../domain/confirmation.js"
import { type Contact, type ContactId, type ContactSource, mergeTags, newContact } from "../domain/contact.js"
import { EmailAddress } from "../domain/email.js"
import type { DomainEvent } from "../domain/event.js"
import type { ListId } from "../domain/list.js"
import { type MemberEventSource, memberEvent, newListMemberships } from "../domain/member.js"
import {
  type ConfirmationStep, confirmationStep, type ConsentInput, decideSubscribe, decideUnsubscribeAll, subscribeChanged,
  type SubscribeDecision, unsubscribedEvent, type UnsubscribeMethod,
} from "../domain/subscription.js"
import { defaultConfirmationTemplate, SubscribeInput } from "../domain/subscription-input.js"
import type { Suppression, SuppressionId } from "../domain/suppression.js"
import type { Topic, TopicId } from "../domain/topic.js"
import {
  ContactNotFound, FreeTierContactLimit, ListNotFound, NoPendingConfirmation, TopicNotFound,
} from "../errors.js"
import { Ids } from "../ports/ids.js"
import { Mailer } from "../ports/mailer.js"
import { Store } from "../ports/store.js"
import { TemplateEngine } from "../ports/template-engine.js"
import { renderRelease, resolveSendable, type SendableTemplate } from "../services/template-sends.js"
import { SendingPause } from "../services/sending-pause.js"
import { SubscriptionsConfig } from "../services/subscriptions-config.js"
import { Tokens } from "../services/tokens.js"
import { decodeInput } from "../validation.js"
import { activeRoom } from "./active-room.js"
import { currentDate } from "./time.js"

export const unique = <A>(items: ReadonlyArray<A> | undefined): ReadonlyArray<A> => [...new Set(items ?? [])]

/** An address as a path gives it, checked (VALIDATION_ERROR naming `email`). */
export const decodeEmail = (value: string) =>
  Effect.map(decodeInput(Schema.Struct({ email: EmailAddress }), { email: value }), ({ email }) => email)

const isDuplicateContact = (error: unknown) =>
  typeof error === "object" && error !== null && (error as { readonly _tag?: unknown })._tag === "DuplicateContact"

/** The body of a subscribe call, checked against the schema's limits. */
export const decodeSubscribeInput = (fields: typeof SubscribeInput.Encoded) => decodeInput(SubscribeInput, fields)

/** The values a confirmation template may read: `{{first_name}}`, `{{last_name}}` and `{{email}}` (and the pipeline's
 *  `{{confirm_url}}`). Spec: audience "POST /subscriptions", confirmationTemplateId. Only the names the release reads
 *  or declares are given, so that a strict (application) template is never handed a variable it does not know. */
export const confirmationValues = (contact: Pick<Contact, "firstName" | "lastName" | "email">, template: SendableTemplate) => {
  const known = new Set([...template.release.compiled.variables, ...Object.keys(template.release.content.variables)])
  const all: Record<string, string> = {
    first_name: contact.firstName ?? "",
    last_name: contact.lastName ?? "",
    email: contact.email,
  }
  return Object.fromEntries(Object.entries(all).filter(([name]) => known.has(name)))
}

/** The answer of a subscribe call (POST /subscriptions's data), once its mail went or not. */
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

export const subscribeResult = (written: WrittenSubscriber, confirmationSent: boolean): SubscribeResult => ({
  contactId: written.contact.id,
  email: written.contact.email,
  status: written.decision.status,
  created: written.created,
  listIds: written.listIds,
  addedToListIds: written.addedToListIds,
  topicIds: written.topicIds,
  requiresConfirmation: written.decision.requiresConfirmation,
  confirmationSent,
})

/** Where an unsubscribe comes from, as its suppression and contact.unsubscribed record it. */
export interface LeaveDetails {
  readonly method: UnsubscribeMethod
  readonly campaignId?: string | undefined
  readonly reason?: string | undefined
}

/** Who subscribes through `writeSubscriber`: the contact's source, the consent source and evidence, the request's
 *  client address. */
export interface SubscriberChannel {
  readonly contactSource: ContactSource & ("API" | "FORM")
  readonly consentSource: string
  readonly consent: ConsentInput | undefined
  readonly clientAddress: string | null
}

/** What `writeSubscriber` did, for the flow that called it to settle the confirmation and append its events. */
export interface WrittenSubscriber {
  readonly contact: Contact
  readonly created: boolean
  readonly decision: SubscribeDecision
  readonly listIds: ReadonlyArray<string>
  readonly topicIds: ReadonlyArray<string>
  readonly addedToListIds: ReadonlyArray<string>
  /** What to do about the double opt-in link, and the confirmation that was pending before the call. */
  readonly confirmation: ConfirmationStep
  readonly pending: PendingConfirmation | undefined
  /** The call changed something: contact.subscribed fires. */
  readonly changed: boolean
  readonly at: Date
}

export const subscriptionSteps = Effect.gen(function* () {
  const store = yield* Store
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
  const sendConfirmation = (account: Account, contact: Contact, url: string, template?: SendableTemplate) =>
    Effect.gen(function* () {
      if (yield* pause.isPaused(account.id)) return false
      const config = yield* SubscriptionsConfig
      const rendered = yield* renderConfirmation(contact, url, template)
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

  /** The confirmation mail rendered for the contact, with `{{confirm_url}}` filled by the pipeline: the account's own
   *  template when the call named one, Mailroom's default otherwise. A template that does not render (a strict template
   *  requiring a variable the call cannot give) sends nothing. */
  const renderConfirmation = (contact: Contact, url: string, template: SendableTemplate | undefined) =>
    Effect.gen(function* () {
      const engine = yield* Effect.serviceOption(TemplateEngine)
      if (Option.isNone(engine)) return yield* Effect.dieMessage("a confirmation mail needs the TemplateEngine")
      const pipeline = { confirm_url: url }
      const rendered = yield* Effect.either(template === undefined
        ? engine.value.renderInline(defaultConfirmationTemplate, {
          variables: { first_name: contact.firstName ?? "", last_name: contact.lastName ?? "", email: contact.email },
          pipeline,
        })
        : renderRelease(template, { variables: confirmationValues(contact, template), pipeline })
          .pipe(Effect.provideService(TemplateEngine, engine.value)))
      if (Either.isLeft(rendered)) yield* Effect.logWarning("confirmation template did not render", rendered.left.message)
      return rendered
    })

  /** A fresh confirmation for the contact: a new nonce and link, valid 7 days from now. */
  const newConfirmation = (
    account: Account,
    contact: Contact,
    fields: Pick<PendingConfirmation, "listIds" | "topicIds" | "redirectUrl" | "source" | "formId" | "templateId">,
    at: Date,
  ) =>
    Effect.gen(function* () {
      const nonce = ids.token(16)
      const { url, expiresAt } = yield* tokens.confirmationUrl({ accountId: account.id, recipient: contact.email, nonce })
      const confirmation: PendingConfirmation = { accountId: account.id, contactId: contact.id, nonce, ...fields, expiresAt, createdAt: at }
      yield* store.confirmations.put(confirmation)
      return { url, confirmation }
    })

  /** Creates or updates the contact of a subscribe call and joins what it names, in the caller's transaction: the lists
   *  are checked with the address's read, the topics after; decideSubscribe rules; the Free plan's room is checked
   *  before a contact becomes ACTIVE; tags are added and custom fields set; an Unsubscribe suppression is lifted when
   *  the decision says so; topics are opted into and lists joined. The confirmation and the events are the caller's. */
  const writeSubscriber = (account: Account, input: SubscribeInput, channel: SubscriberChannel) =>
    Effect.gen(function* () {
      const listIds = unique(input.listIds)
      const topicIds = unique(input.topicIds)
      // The lists named are checked with the address's read, in the same query.
      const address = yield* store.contacts.findAddress(account.id, input.email, listIds)
      yield* requireLists(listIds, address.listIds)
      yield* checkTopics(account, topicIds)
      const at = yield* now
      const existing = Option.getOrUndefined(address.contact)
      const suppression = Option.getOrUndefined(address.suppression)
      const decision = yield* Either.match(decideSubscribe(input.email, {
        contactStatus: existing?.status ?? null,
        hasConsent: existing !== undefined && existing.consentAt !== null,
        suppression: suppression?.reason ?? null,
      }, {
        doubleOptIn: input.doubleOptIn ?? false,
        resubscribe: input.resubscribe ?? false,
        consent: channel.consent,
        requestIp: channel.clientAddress,
        consentSource: channel.consentSource,
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
          source: channel.contactSource,
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

      // A contact made by this call has no pending confirmation: no need to ask the store.
      const pending = created ? undefined : Option.getOrUndefined(yield* store.confirmations.find(account.id, contactId))
      return {
        contact,
        created,
        decision,
        listIds,
        topicIds,
        addedToListIds,
        confirmation: confirmationStep(decision.requiresConfirmation, existing?.status ?? null, pending, at),
        pending,
        changed: subscribeChanged({
          created,
          statusChanged: existing !== undefined && existing.status !== contact.status,
          decision,
          listsJoined: addedToListIds.length,
          topicsOptedIn,
        }),
        at,
      } satisfies WrittenSubscriber
    })

  /** Makes the new link a `send` step asks for (answering its URL, to mail after the commit) or withdraws the pending
   *  confirmation of a `withdraw` step; `outstanding` and `none` change nothing here. */
  const settleConfirmation = (
    account: Account,
    written: WrittenSubscriber,
    fields: Pick<PendingConfirmation, "redirectUrl" | "source" | "formId" | "templateId">,
  ) =>
    Effect.gen(function* () {
      if (written.confirmation === "send") {
        const { listIds, topicIds } = written
        return (yield* newConfirmation(account, written.contact, { listIds, topicIds, ...fields }, written.at)).url
      }
      if (written.confirmation === "withdraw") yield* store.confirmations.delete(account.id, written.contact.id)
      return undefined
    })

  /** Runs a subscribe write in its own transaction, then mails the confirmation it made, if any. Two calls for the
   *  same new address at once: the one that loses the insert runs again and finds the contact. */
  const commitAndMail = <A extends { readonly contact: Contact; readonly mail: string | undefined }, E, R>(
    account: Account,
    write: Effect.Effect<A, E, R>,
    template?: SendableTemplate,
  ) =>
    Effect.gen(function* () {
      const transaction = store.transaction(write)
      const written = yield* Effect.catchIf(transaction, (error) => isDuplicateContact(error), () => transaction)
      const confirmationSent = written.mail === undefined ? false : yield* sendConfirmation(account, written.contact, written.mail, template)
      return { written, confirmationSent }
    })

  /** A new link for a PENDING contact's confirmation (the older one stops working), valid 7 days from now, mailed
   *  again from the template the confirmation recorded. `anySource`: the confirmation page offering a new link also
   *  serves signup-form confirmations; the API's resend serves only its own. While sending is paused nothing changes
   *  and confirmationSent is false. A recorded template that can no longer be sent (deleted, retired, unpublished)
   *  fails the API's resend with its template error and changes nothing; the confirmation page (`anySource`), whose
   *  visitor cannot fix the template, mails Mailroom's default confirmation instead. */
  const resend = (account: Account, email: EmailAddress, anySource: boolean) =>
    Effect.gen(function* () {
      const written = yield* store.transaction(Effect.gen(function* () {
        const contact = Option.getOrUndefined(yield* store.contacts.findByEmail(account.id, email))
        if (contact === undefined) return yield* Effect.fail(new ContactNotFound({ email }))
        const pending = Option.getOrUndefined(yield* store.confirmations.find(account.id, contact.id))
        if (contact.status !== "PENDING" || pending === undefined) {
          return yield* Effect.fail(new NoPendingConfirmation({ email, detail: `the contact is ${contact.status} with no outstanding confirmation` }))
        }
        if (pending.source !== "API" && !anySource) {
          return yield* Effect.fail(new NoPendingConfirmation({ email, detail: "the contact subscribed through a signup form" }))
        }
        const template = pending.templateId === null
          ? undefined
          : yield* resolveSendable(store, account.id, null, pending.templateId).pipe(
            Effect.catchIf((error) => anySource && error._tag !== "StoreError", () => Effect.succeed(undefined)),
          )
        if (yield* pause.isPaused(account.id)) return { contact, pending, url: undefined, template }
        const { listIds, topicIds, redirectUrl, source, formId, templateId } = pending
        const made = yield* newConfirmation(account, contact, { listIds, topicIds, redirectUrl, source, formId, templateId }, yield* now)
        return { contact, pending: made.confirmation, url: made.url, template }
      }))
      const confirmationSent = written.url === undefined
        ? false
        : yield* sendConfirmation(account, written.contact, written.url, written.template)
      return { email, confirmationSent, expiresAt: written.pending.expiresAt }
    })

  /** Unsubscribe from everything: the contact becomes UNSUBSCRIBED (its pending confirmation goes) and an Unsubscribe
   *  suppression is added unless the address has one; contact.unsubscribed when something changed. `contact` and
   *  `suppression` are what one `findAddress` read in the same transaction. */
  const unsubscribeAll = (
    accountId: AccountId,
    email: EmailAddress,
    contact: Contact | undefined,
    suppression: Suppression | undefined,
    details: LeaveDetails,
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
  const leaveList = (accountId: AccountId, contact: Contact, listId: string, details: LeaveDetails, at: Date) =>
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
    details: LeaveDetails,
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

  return {
    event, memberEvents, checkLists, joinLists, checkTopics, checkRoom, writeSubscriber, settleConfirmation,
    commitAndMail, resend, unsubscribeAll, leaveList, leaveTopic,
  } as const
})
