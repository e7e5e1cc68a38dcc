/** Subscribe, resubscribe, unsubscribe and topic opt-in/opt-out as plain functions of data, and the contact.* events.
 *  Spec: audience rules 1-5, "Moves made by other operations", "Subscriptions", "details of contact.subscribed",
 *  "details of contact.confirmed", "details of contact.unsubscribed". */
import { Either, ParseResult, Schema } from "effect"
import { ContactBlocked, RecipientSuppressed, RecipientUnsubscribed } from "../errors.js"
import type { AccountId } from "./account.js"
import type { ContactStatus } from "./contact.js"
import type { DomainEvent } from "./event.js"
import type { SuppressionReason } from "./suppression.js"

export const consentLimits = { ip: 64, userAgent: 1024, text: 2000, reason: 500 } as const

const limited = (field: string, max: number) =>
  Schema.String.pipe(Schema.maxLength(max, { message: () => `${field} is at most ${max} characters` }))

/** `consent` of POST and PATCH /subscriptions. */
export const ConsentInput = Schema.Struct({
  ip: Schema.optional(Schema.NullOr(limited("ip", consentLimits.ip))),
  userAgent: Schema.optional(Schema.NullOr(limited("userAgent", consentLimits.userAgent))),
  text: Schema.optional(Schema.NullOr(limited("text", consentLimits.text))),
})
export type ConsentInput = typeof ConsentInput.Type

/** Consent evidence as a contact carries it. */
export interface ConsentRecord {
  readonly consentSource: string | null
  readonly consentAt: Date | null
  readonly consentIp: string | null
  readonly consentUserAgent: string | null
  readonly consentText: string | null
}

/** What a subscribe call knows of the address before it changes anything. */
export interface SubscribeFacts {
  /** The status of the account's contact with this address; null when there is none. */
  readonly contactStatus: ContactStatus | null
  /** Whether that contact carries consent evidence already. */
  readonly hasConsent: boolean
  /** The account-level suppression of the address, if any. */
  readonly suppression: SuppressionReason | null
}

export interface SubscribeRequest {
  readonly doubleOptIn: boolean
  readonly resubscribe: boolean
  readonly consent: ConsentInput | undefined
  /** The client address of the request (null when unknown): recorded as consentIp on a resubscribe without consent. */
  readonly requestIp: string | null
  /** The consent source recorded (api for the Subscriptions API). */
  readonly consentSource: string
}

export interface SubscribeDecision {
  /** The contact's status afterwards. */
  readonly status: "ACTIVE" | "PENDING"
  /** The address is back after an unsubscribe (a resubscribe), or new: subscribedAt is stamped. */
  readonly resubscribed: boolean
  /** The Unsubscribe suppression of the address is lifted. */
  readonly liftSuppression: boolean
  /** Consent evidence to record, or undefined to keep what the contact has (a repeat call never overwrites it). */
  readonly consent: ConsentRecord | undefined
  /** A confirmation mail is due (double opt-in asked and the contact is not ACTIVE). */
  readonly requiresConfirmation: boolean
}

/** The checks a subscribe call makes, in order. Spec: rules 3-5 and the errors RECIPIENT_SUPPRESSED,
 *  RECIPIENT_UNSUBSCRIBED and CONTACT_BLOCKED. Bounce, Complaint and Manual suppressions are never lifted; an
 *  Unsubscribe suppression and the UNSUBSCRIBED status only with `resubscribe`. */
export const checkSubscribe = (
  email: string,
  facts: Pick<SubscribeFacts, "contactStatus" | "suppression">,
  resubscribe: boolean,
): Either.Either<{ readonly unsubscribed: boolean }, ContactBlocked | RecipientSuppressed | RecipientUnsubscribed> => {
  const { contactStatus, suppression } = facts
  if (contactStatus === "COMPLAINED" || contactStatus === "CLEANED") {
    return Either.left(new ContactBlocked({ email, status: contactStatus }))
  }
  if (suppression === "Bounce" || suppression === "Complaint") {
    return Either.left(new RecipientSuppressed({ email, reason: suppression }))
  }
  if (contactStatus === "BOUNCED") return Either.left(new RecipientSuppressed({ email, reason: "BOUNCED" }))
  if (suppression === "Manual") {
    return Either.left(resubscribe
      ? new RecipientSuppressed({ email, reason: "Manual" })
      : new RecipientUnsubscribed({ email }))
  }
  const unsubscribed = suppression === "Unsubscribe" || contactStatus === "UNSUBSCRIBED"
  if (unsubscribed && !resubscribe) return Either.left(new RecipientUnsubscribed({ email }))
  return Either.right({ unsubscribed })
}

/** POST /subscriptions (and a PATCH that joins a list) for one address. Spec: "Subscriptions", POST /subscriptions,
 *  and the rows of "Moves made by other operations". Consent is recorded when the contact is created, is
 *  resubscribed, or had none; with `resubscribe` and no `consent`, the request's address is recorded as consentIp. */
export const decideSubscribe = (
  email: string,
  facts: SubscribeFacts,
  request: SubscribeRequest,
  at: Date,
): Either.Either<SubscribeDecision, ContactBlocked | RecipientSuppressed | RecipientUnsubscribed> =>
  Either.map(checkSubscribe(email, facts, request.resubscribe), ({ unsubscribed }) => {
    const created = facts.contactStatus === null
    const wasActive = facts.contactStatus === "ACTIVE" && !unsubscribed
    const status = wasActive ? "ACTIVE" : request.doubleOptIn ? "PENDING" : "ACTIVE"
    const recordConsent = created || unsubscribed || !facts.hasConsent
    const consent: ConsentRecord | undefined = recordConsent
      ? {
        consentSource: request.consentSource,
        consentAt: at,
        consentIp: request.consent?.ip
          ?? (request.resubscribe && request.consent === undefined ? request.requestIp : null),
        consentUserAgent: request.consent?.userAgent ?? null,
        consentText: request.consent?.text ?? null,
      }
      : undefined
    return {
      status,
      resubscribed: created || unsubscribed,
      liftSuppression: facts.suppression === "Unsubscribe",
      consent,
      requiresConfirmation: status === "PENDING",
    }
  })

/** What a subscribe call does about the contact's double opt-in link:
 *  - send: a confirmation is due and none is outstanding: a new link is made and mailed;
 *  - outstanding: a confirmation is due and the link already mailed still holds: nothing is mailed again (resend);
 *  - withdraw: no confirmation is due (the contact is ACTIVE) but one was pending: it goes;
 *  - none: nothing to do. */
export type ConfirmationStep = "send" | "outstanding" | "withdraw" | "none"

/** Spec: "Moves made by other operations" (doubleOptIn is ignored for an ACTIVE contact) and POST
 *  /subscriptions/{email}/resend-confirmation (a repeated call does not mail again). `previousStatus` is the contact's
 *  status before the call (null for a new contact); `pending` its confirmation, if any. */
export const confirmationStep = (
  requiresConfirmation: boolean,
  previousStatus: ContactStatus | null,
  pending: { readonly expiresAt: Date } | undefined,
  at: Date,
): ConfirmationStep => {
  if (!requiresConfirmation) return pending === undefined ? "none" : "withdraw"
  const outstanding = previousStatus === "PENDING" && pending !== undefined && pending.expiresAt.getTime() > at.getTime()
  return outstanding ? "outstanding" : "send"
}

/** Whether a subscribe call changed anything, which decides whether contact.subscribed fires: a repeat that changes
 *  nothing fires nothing. */
export const subscribeChanged = (change: {
  readonly created: boolean
  readonly statusChanged: boolean
  readonly decision: Pick<SubscribeDecision, "resubscribed" | "liftSuppression">
  readonly listsJoined: number
  readonly topicsOptedIn: number
}): boolean =>
  change.created || change.statusChanged || change.decision.resubscribed || change.decision.liftSuppression
  || change.listsJoined > 0 || change.topicsOptedIn > 0

/** Scope of an unsubscribe. */
export const unsubscribeScopes = ["all", "list", "topic"] as const
export const UnsubscribeScope = Schema.Literal(...unsubscribeScopes)
export type UnsubscribeScope = typeof UnsubscribeScope.Type

/** `scope` as a request sends it, wherever one is read (POST /unsubscribe, POST /subscriptions/unsubscribe): all, list
 *  or topic in any case, and the legacy value `category` for topic. Spec: "Public unsubscribe endpoints" and
 *  "Versioning" (legacy aliases stay accepted everywhere). */
export const UnsubscribeScopeInput = Schema.transformOrFail(Schema.String, UnsubscribeScope, {
  strict: true,
  decode: (value, _, ast) => {
    const lower = value.toLowerCase()
    const scope = lower === "category" ? "topic" : lower
    return Schema.is(UnsubscribeScope)(scope)
      ? ParseResult.succeed(scope)
      : ParseResult.fail(new ParseResult.Type(ast, value, "must be all, list or topic (any case; category for topic)"))
  },
  encode: ParseResult.succeed,
})

export interface UnsubscribeAllDecision {
  /** The contact's status afterwards, or undefined when it keeps its status (no contact, or BOUNCED, COMPLAINED and
   *  CLEANED, which block more than UNSUBSCRIBED does and must stay terminal). */
  readonly status: "UNSUBSCRIBED" | undefined
  /** An Unsubscribe suppression is added: the address had none (an existing suppression of any reason is kept). */
  readonly addSuppression: boolean
  readonly changed: boolean
}

/** Unsubscribe from all mail. Spec: the "any contact … scope all" row of "Moves made by other operations": the contact
 *  becomes UNSUBSCRIBED and an Unsubscribe suppression is added; existing Bounce, Complaint and Manual suppressions are
 *  kept; it works for addresses that are no contact. */
export const decideUnsubscribeAll = (
  contactStatus: ContactStatus | null,
  suppression: SuppressionReason | null,
): UnsubscribeAllDecision => {
  const status = contactStatus === "ACTIVE" || contactStatus === "PENDING" ? "UNSUBSCRIBED" : undefined
  const addSuppression = suppression === null
  return { status, addSuppression, changed: status !== undefined || addSuppression }
}

/** A topic switched on (`subscribed` true: the opt-out goes) or off (an opt-out is recorded). `changed` is false when
 *  the address was already so. Turning a topic on never lifts a global unsubscribe. Spec: rule 1. */
export const decideTopic = (optedOut: boolean, subscribed: boolean): { readonly optedOut: boolean; readonly changed: boolean } =>
  ({ optedOut: !subscribed, changed: optedOut === subscribed })

/** Sources of contact.subscribed. */
export const subscribeSources = ["FORM", "API", "IMPORT", "PREFERENCE_CENTER", "PLATFORM_SIGNUP", "DASHBOARD"] as const
export type SubscribeSource = (typeof subscribeSources)[number]

/** Methods of contact.unsubscribed. */
export const unsubscribeMethods = [
  "one_click", "link", "preference_center", "api", "dashboard", "platform_settings", "complaint",
] as const
export type UnsubscribeMethod = (typeof unsubscribeMethods)[number]

interface EventBase {
  readonly id: string
  readonly accountId: AccountId
  readonly occurredAt: Date
}

/** contact.subscribed. Spec: "details of contact.subscribed". */
export const subscribedEvent = (base: EventBase, details: {
  readonly contactId: string
  readonly email: string
  readonly source: SubscribeSource
  readonly listIds: ReadonlyArray<string>
  readonly topicIds: ReadonlyArray<string>
  readonly requiresConfirmation: boolean
  readonly status: "ACTIVE" | "PENDING"
}): DomainEvent => ({
  ...base,
  type: "contact.subscribed",
  recipient: details.email,
  details: {
    contactId: details.contactId,
    email: details.email,
    source: details.source,
    listIds: [...details.listIds],
    topicIds: [...details.topicIds],
    requiresConfirmation: details.requiresConfirmation,
    status: details.status,
  },
})

/** contact.confirmed. Spec: "details of contact.confirmed"; formId is null for the Subscriptions API. */
export const confirmedEvent = (base: EventBase, details: {
  readonly contactId: string
  readonly email: string
  readonly formId: string | null
  readonly listIds: ReadonlyArray<string>
  readonly topicIds: ReadonlyArray<string>
  readonly confirmedAt: Date
}): DomainEvent => ({
  ...base,
  type: "contact.confirmed",
  recipient: details.email,
  details: {
    contactId: details.contactId,
    email: details.email,
    formId: details.formId,
    listIds: [...details.listIds],
    topicIds: [...details.topicIds],
    confirmedAt: details.confirmedAt.toISOString(),
  },
})

/** contact.unsubscribed. Spec: "details of contact.unsubscribed": listId and topicId are set for their scope and null
 *  otherwise, `category` repeats topicId, campaignId and reason appear when known. */
export const unsubscribedEvent = (base: EventBase, details: {
  readonly email: string
  readonly contactId: string | null
  readonly scope: UnsubscribeScope
  readonly listId: string | null
  readonly topicId: string | null
  readonly method: UnsubscribeMethod
  readonly campaignId?: string | undefined
  readonly reason?: string | undefined
}): DomainEvent => ({
  ...base,
  type: "contact.unsubscribed",
  recipient: details.email,
  details: {
    contactEmail: details.email,
    contactId: details.contactId,
    scope: details.scope,
    listId: details.scope === "list" ? details.listId : null,
    topicId: details.scope === "topic" ? details.topicId : null,
    method: details.method,
    ...(details.campaignId !== undefined ? { campaignId: details.campaignId } : {}),
    ...(details.reason !== undefined ? { reason: details.reason } : {}),
    category: details.scope === "topic" ? details.topicId : null,
  },
})
