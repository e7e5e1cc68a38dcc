/** Schemas of the answers whose routes build them field by field rather than encode them with a Schema of their own
 *  (domains, webhooks, subscriptions, bulk results). They describe those bodies for the OpenAPI document; the
 *  document's tests decode real answers with them, so a field renamed in a route fails a test. */
import {
  type Contacts, ContactStatus, type Domains, type FailureSettings, type Lists, type SubscriptionStatus, SuppressionReason,
  type Suppressions, type Topics, type Webhooks,
} from "@mailroom/core"
import { type Effect, Schema } from "effect"

export const DateString = Schema.String.annotations({ format: "date-time", description: "ISO 8601 date and time" })
const NullableDate = Schema.NullOr(DateString)
/** An object whose fields this document does not list one by one. */
export const AnyObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const Deleted = Schema.Struct({ id: Schema.String, deleted: Schema.Literal(true) })
export const Message = Schema.Struct({ message: Schema.String })

export const BulkCreateResponse = Schema.Struct({
  created: Schema.Number,
  skipped: Schema.Number,
  errors: Schema.Array(Schema.Struct({ email: Schema.String, error: Schema.String })),
})

export const CancelResponse = Schema.Struct({ id: Schema.String, status: Schema.Literal("cancelled") })

export const SubscribeResponse = Schema.Struct({
  contactId: Schema.String,
  email: Schema.String,
  status: Schema.Literal("ACTIVE", "PENDING"),
  created: Schema.Boolean,
  listIds: Schema.Array(Schema.String),
  addedToListIds: Schema.Array(Schema.String),
  topicIds: Schema.Array(Schema.String),
  requiresConfirmation: Schema.Boolean,
  confirmationSent: Schema.Boolean,
})

export const UnsubscribeResponse = Schema.Struct({
  email: Schema.String,
  contactId: Schema.NullOr(Schema.String),
  scope: Schema.String,
  changed: Schema.Boolean,
})

export const SubscriptionStatusResponse = Schema.Struct({
  email: Schema.String,
  contact: Schema.NullOr(Schema.Struct({
    id: Schema.String,
    status: ContactStatus,
    firstName: Schema.NullOr(Schema.String),
    lastName: Schema.NullOr(Schema.String),
    subscribedAt: DateString,
    unsubscribedAt: NullableDate,
    confirmedAt: NullableDate,
    consent: Schema.Struct({
      source: Schema.NullOr(Schema.String),
      at: NullableDate,
      ip: Schema.NullOr(Schema.String),
      userAgent: Schema.NullOr(Schema.String),
      text: Schema.NullOr(Schema.String),
    }),
  })),
  suppression: Schema.NullOr(Schema.Struct({ reason: SuppressionReason, since: DateString })),
  unsubscribedFromAll: Schema.Boolean,
  pendingConfirmation: Schema.NullOr(Schema.Struct({ expiresAt: DateString })),
  lists: Schema.Array(Schema.Struct({
    id: Schema.String, name: Schema.String, subscribed: Schema.Boolean, addedAt: DateString, removedAt: NullableDate,
  })),
  topics: Schema.Array(Schema.Struct({
    id: Schema.String, name: Schema.String, label: Schema.NullOr(Schema.String), description: Schema.NullOr(Schema.String),
    subscribed: Schema.Boolean,
  })),
})

export const ResendResponse = Schema.Struct({ email: Schema.String, confirmationSent: Schema.Boolean, expiresAt: DateString })

const DnsRecord = Schema.Struct({
  status: Schema.String,
  type: Schema.optional(Schema.String),
  host: Schema.optional(Schema.String),
  value: Schema.optional(Schema.String),
  selector: Schema.optional(Schema.String),
  error: Schema.optional(Schema.Struct({ code: Schema.String, message: Schema.String })),
})

export const DomainResponse = Schema.Struct({
  id: Schema.String,
  hostname: Schema.String,
  status: Schema.String,
  isInboxHosted: Schema.Boolean,
  dnsRecords: Schema.Record({ key: Schema.String, value: DnsRecord }),
  createdAt: DateString,
  verifiedAt: NullableDate,
  lastCheckedAt: NullableDate,
})

export const WebhookResponse = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  description: Schema.NullOr(Schema.String),
  active: Schema.Boolean,
  secretPrefix: Schema.String,
  totalDeliveries: Schema.Number,
  disabledReason: Schema.NullOr(Schema.String),
  createdAt: DateString,
  updatedAt: DateString,
})

export const DeliveryResponse = Schema.Struct({
  id: Schema.String,
  eventId: Schema.String,
  eventType: Schema.String,
  kind: Schema.String,
  status: Schema.String,
  attempts: Schema.Number,
  lastStatusCode: Schema.NullOr(Schema.Number),
  lastError: Schema.NullOr(Schema.String),
  createdAt: DateString,
  updatedAt: DateString,
  completedAt: NullableDate,
})

export const AttemptResponse = Schema.Struct({
  id: Schema.String,
  attempt: Schema.Number,
  success: Schema.Boolean,
  statusCode: Schema.NullOr(Schema.Number),
  durationMs: Schema.NullOr(Schema.Number),
  responseSnippet: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  startedAt: DateString,
})

export const WebhookTestResponse = Schema.Struct({
  success: Schema.Boolean,
  statusCode: Schema.Number,
  responseTime: Schema.Number,
  deliveryId: Schema.String,
  message: Schema.String,
  errorMessage: Schema.optional(Schema.String),
})

export const WebhookHealthResponse = Schema.Struct({
  webhookId: Schema.String,
  status: Schema.String,
  active: Schema.Boolean,
  disabledReason: Schema.NullOr(Schema.String),
  consecutiveFailures: Schema.Number,
  stats: Schema.Struct({
    period: Schema.Literal("24h"),
    totalDeliveries: Schema.Number,
    successfulDeliveries: Schema.Number,
    successRate: Schema.NullOr(Schema.Number),
  }),
})

export const ReportOutcomes = Schema.Struct({
  type: Schema.Literal("delivery_status", "complaint"),
  feedbackType: Schema.optional(Schema.String),
  recipients: Schema.Array(Schema.Struct({
    recipient: Schema.String,
    messageId: Schema.NullOr(Schema.String),
    result: Schema.Literal("bounced", "deferred", "complained", "ignored"),
    bounceType: Schema.optional(Schema.Literal("hard", "soft")),
    detail: Schema.optional(Schema.String),
  })),
})

export const PublicUnsubscribeResponse = Schema.Struct({
  success: Schema.Literal(true),
  message: Schema.String,
  data: Schema.optional(Schema.Struct({ scope: Schema.String, changed: Schema.Boolean })),
})

export const FormSubmitResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ message: Schema.String, redirectUrl: Schema.NullOr(Schema.String) }),
})

// ---- Answers the services build as plain objects. Each schema below is checked at compile time against the type the
// service answers (`Same`, both ways; one way where the service's ids are branded strings), so that a field added,
// renamed or retyped in a service fails the typecheck here instead of drifting from the document; the document's tests
// decode real answers with them too. ----

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
/** Compiles only when `T` is true. */
const same = <T extends true>(): T | undefined => undefined
type Answer<S, K extends keyof S> = S[K] extends (...args: never) => Effect.Effect<infer A, infer _E, infer _R> ? A : never

export const TagCount = Schema.Struct({ name: Schema.String, count: Schema.Number, color: Schema.Null, definitionId: Schema.Null })
same<Same<typeof TagCount.Type, Answer<Contacts, "tags">[number]>>()

export const BulkDeleteResponse = Schema.Struct({ deleted: Schema.Number, requested: Schema.Number })
same<Same<typeof BulkDeleteResponse.Type, Answer<Contacts, "bulkDelete">>>()

export const RemoveMembersResponse = Schema.Struct({ removed: Schema.Number })
same<Same<typeof RemoveMembersResponse.Type, Answer<Lists, "removeMembers">>>()

export const BulkSuppressionResponse = Schema.Union(
  Schema.Struct({ action: Schema.Literal("add"), requested: Schema.Number, added: Schema.Number, updated: Schema.Number }),
  Schema.Struct({ action: Schema.Literal("remove"), requested: Schema.Number, removed: Schema.Number }),
)
same<Same<typeof BulkSuppressionResponse.Type, Answer<Suppressions, "bulk">>>()

export const SuppressionRemoved = Schema.Struct({ email: Schema.String, removed: Schema.Boolean })
same<Answer<Suppressions, "remove"> extends typeof SuppressionRemoved.Type ? true : false>()

export const TopicBulkResponse = Schema.Union(
  Schema.Struct({ action: Schema.Literal("add"), requested: Schema.Number, added: Schema.Number }),
  Schema.Struct({ action: Schema.Literal("remove"), requested: Schema.Number, removed: Schema.Number }),
)
same<Same<typeof TopicBulkResponse.Type, Answer<Topics, "bulkMembers">>>()

export const TopicOptedOut = Schema.Struct({ email: Schema.String, added: Schema.Boolean })
same<Answer<Topics, "addMember"> extends typeof TopicOptedOut.Type ? true : false>()
export const TopicOptedIn = Schema.Struct({ email: Schema.String, removed: Schema.Boolean })
same<Answer<Topics, "removeMember"> extends typeof TopicOptedIn.Type ? true : false>()

same<Answer<Domains, "remove"> extends typeof Deleted.Type ? true : false>()

export const WebhookStats = Schema.Struct({
  totalDeliveries: Schema.Number, successfulDeliveries: Schema.Number, successRate: Schema.Number,
})
same<Same<typeof WebhookStats.Type, Answer<Webhooks, "get">["stats"]>>()

export const FailureSettingsResponse = Schema.Struct({
  enabled: Schema.Boolean, notifyEmails: Schema.Array(Schema.String), failureThreshold: Schema.Number,
  autoDisableAfter: Schema.Number,
})
same<Same<typeof FailureSettingsResponse.Type, FailureSettings>>()

/** A service's answer as JSON: dates become ISO strings. */
type Json<T> = T extends Date ? string
  : T extends ReadonlyArray<infer U> ? ReadonlyArray<Json<U>>
  : T extends string | number | boolean | null ? T
  : { readonly [K in keyof T]: Json<T[K]> }
same<Json<SubscriptionStatus> extends typeof SubscriptionStatusResponse.Type ? true : false>()
same<keyof NonNullable<SubscriptionStatus["contact"]> extends keyof NonNullable<typeof SubscriptionStatusResponse.Type["contact"]> ? true : false>()
