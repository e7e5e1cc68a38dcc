/** Every domain error of Mailroom, each carrying the spec's code. HTTP statuses live in @mailroom/http, not here. */
import { Schema } from "effect"
import type { BrandError } from "./brand-errors.js"
import type { TemplateError } from "./template-errors.js"

/** Input failed validation. `field` names the offending field (a dotted path) when one can be named. */
export class ValidationFailed extends Schema.TaggedError<ValidationFailed>()("ValidationFailed", {
  field: Schema.optional(Schema.String),
  detail: Schema.String,
}) {
  readonly code = "VALIDATION_ERROR"
  override get message() { return this.field ? `${this.field}: ${this.detail}` : this.detail }
}

/** The request body is larger than the route accepts. */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  limitBytes: Schema.Number,
  /** The part of the body that is too large (content.html, …), when the limit is on one field. */
  field: Schema.optional(Schema.String),
}) {
  readonly code = "PAYLOAD_TOO_LARGE"
  override get message() {
    return this.field === undefined
      ? `request body is larger than ${this.limitBytes} bytes`
      : `${this.field} is larger than ${this.limitBytes} bytes`
  }
}

/** No API key was sent. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {
  detail: Schema.String,
}) {
  readonly code = "UNAUTHORIZED"
  override get message() { return this.detail }
}

/** The API key is malformed, unknown or revoked. */
export class InvalidCredentials extends Schema.TaggedError<InvalidCredentials>()("InvalidCredentials", {
  detail: Schema.String,
}) {
  readonly code = "INVALID_CREDENTIALS"
  override get message() { return this.detail }
}

/** The API key lacks the scope the route needs. */
export class ScopeInsufficient extends Schema.TaggedError<ScopeInsufficient>()("ScopeInsufficient", {
  scope: Schema.String,
}) {
  readonly code = "SCOPE_INSUFFICIENT"
  override get message() { return `this API key lacks the scope ${this.scope}` }
}

/** Too many requests from this client in the current window. */
export class RateLimitExceeded extends Schema.TaggedError<RateLimitExceeded>()("RateLimitExceeded", {
  retryAfter: Schema.Number,
  limit: Schema.Number,
  windowSeconds: Schema.Number,
}) {
  readonly code = "RATE_LIMIT_EXCEEDED"
  override get message() {
    return `rate limit of ${this.limit} requests per ${this.windowSeconds} s exceeded; retry in ${this.retryAfter} s`
  }
}

/** A contact, suppression or other resource is unknown in this account (ids of other accounts included). */
export class ResourceNotFound extends Schema.TaggedError<ResourceNotFound>()("ResourceNotFound", {
  resource: Schema.String,
  id: Schema.String,
}) {
  readonly code = "RESOURCE_NOT_FOUND"
  override get message() { return `${this.resource} ${this.id} was not found` }
}

/** No route answers this method and path. */
export class RouteNotFound extends Schema.TaggedError<RouteNotFound>()("RouteNotFound", {
  method: Schema.String,
  path: Schema.String,
}) {
  readonly code = "NOT_FOUND"
  override get message() { return `no route for ${this.method} ${this.path}` }
}

/** Another contact of the account already has this address. */
export class DuplicateContact extends Schema.TaggedError<DuplicateContact>()("DuplicateContact", {
  email: Schema.String,
}) {
  readonly code = "DUPLICATE_CONTACT"
  override get message() { return `a contact with the address ${this.email} already exists` }
}

/** PATCH /contacts/{id} asked for a status move outside the spec's table. */
export class InvalidStatusTransition extends Schema.TaggedError<InvalidStatusTransition>()("InvalidStatusTransition", {
  from: Schema.String,
  to: Schema.String,
}) {
  readonly code = "INVALID_STATUS_TRANSITION"
  override get message() { return `a contact cannot move from ${this.from} to ${this.to}` }
}

/** The contact would hold more tags than the limit. */
export class TagLimitExceeded extends Schema.TaggedError<TagLimitExceeded>()("TagLimitExceeded", {
  limit: Schema.Number,
  wouldHold: Schema.Number,
}) {
  readonly code = "TAG_LIMIT_EXCEEDED"
  override get message() { return `a contact holds at most ${this.limit} tags; this change would give it ${this.wouldHold}` }
}

/** A Free account already holds its maximum of active contacts. */
export class FreeTierContactLimit extends Schema.TaggedError<FreeTierContactLimit>()("FreeTierContactLimit", {
  limit: Schema.Number,
}) {
  readonly code = "FREE_TIER_CONTACT_LIMIT"
  override get message() { return `a Free account holds at most ${this.limit} active contacts` }
}

/** The list id is not one of the account's lists. */
export class ListNotFound extends Schema.TaggedError<ListNotFound>()("ListNotFound", {
  listId: Schema.String,
}) {
  readonly code = "LIST_NOT_FOUND"
  override get message() { return `list ${this.listId} was not found` }
}

/** The topic id is not one of the account's topics. */
export class TopicNotFound extends Schema.TaggedError<TopicNotFound>()("TopicNotFound", {
  topicId: Schema.String,
}) {
  readonly code = "TOPIC_NOT_FOUND"
  override get message() { return `topic ${this.topicId} was not found` }
}

/** Another topic of the account already has this name. */
export class DuplicateTopic extends Schema.TaggedError<DuplicateTopic>()("DuplicateTopic", {
  name: Schema.String,
}) {
  readonly code = "DUPLICATE_TOPIC"
  override get message() { return `a topic named ${this.name} already exists` }
}

/** Removing members: none of the named contacts is a member of the list. */
export class NotAMember extends Schema.TaggedError<NotAMember>()("NotAMember", {
  listId: Schema.String,
}) {
  readonly code = "NOT_A_MEMBER"
  override get message() { return `none of the given contacts is a member of list ${this.listId}` }
}

/** The address is not a contact of the account. */
export class ContactNotFound extends Schema.TaggedError<ContactNotFound>()("ContactNotFound", {
  email: Schema.String,
}) {
  readonly code = "CONTACT_NOT_FOUND"
  override get message() { return `${this.email} is not a contact` }
}

/** The address unsubscribed and the request did not pass `resubscribe: true`. */
export class RecipientUnsubscribed extends Schema.TaggedError<RecipientUnsubscribed>()("RecipientUnsubscribed", {
  email: Schema.String,
}) {
  readonly code = "RECIPIENT_UNSUBSCRIBED"
  override get message() { return `${this.email} unsubscribed; resubscribe needs fresh consent` }
}

/** The address hard-bounced, complained or is manually suppressed. */
export class RecipientSuppressed extends Schema.TaggedError<RecipientSuppressed>()("RecipientSuppressed", {
  email: Schema.String,
  reason: Schema.String,
}) {
  readonly code = "RECIPIENT_SUPPRESSED"
  override get message() { return `${this.email} is suppressed (${this.reason}) and cannot be added` }
}

/** The contact is COMPLAINED or CLEANED and cannot be resubscribed. */
export class ContactBlocked extends Schema.TaggedError<ContactBlocked>()("ContactBlocked", {
  email: Schema.String,
  status: Schema.String,
}) {
  readonly code = "CONTACT_BLOCKED"
  override get message() { return `${this.email} is ${this.status} and cannot be resubscribed` }
}

/** Resend-confirmation for a contact that is not PENDING, has no outstanding confirmation, or subscribed through a
 *  signup form. */
export class NoPendingConfirmation extends Schema.TaggedError<NoPendingConfirmation>()("NoPendingConfirmation", {
  email: Schema.String,
  detail: Schema.String,
}) {
  readonly code = "NO_PENDING_CONFIRMATION"
  override get message() { return `${this.email} has no confirmation to resend: ${this.detail}` }
}

/** A signed link token is forged, malformed, expired, of another account or no longer matches anything. */
export class InvalidToken extends Schema.TaggedError<InvalidToken>()("InvalidToken", {
  detail: Schema.String,
}) {
  readonly code = "INVALID_TOKEN"
  override get message() { return `the token is not valid: ${this.detail}` }
}

/** Why a CSV import was refused as a whole: the request or file is invalid (a missing part, bad mappings, a malformed
 *  file, a limit of rows, columns or fields), the list is not the account's, or the file or request is too large. */
export const importRejectionReasons = ["INVALID_REQUEST", "LIST_NOT_FOUND", "TOO_LARGE"] as const
export type ImportRejectionReason = (typeof importRejectionReasons)[number]

/** A CSV import was refused as a whole. Answered with the import route's own `{ error }` body; the HTTP layer maps
 *  the reason to its status. */
export class ImportRejected extends Schema.TaggedError<ImportRejected>()("ImportRejected", {
  reason: Schema.Literal(...importRejectionReasons),
  detail: Schema.String,
}) {
  readonly code = "IMPORT_REJECTED"
  override get message() { return this.detail }
}

/** A webhook subscription named an event type that does not exist. */
export class WebhookEventUnknown extends Schema.TaggedError<WebhookEventUnknown>()("WebhookEventUnknown", {
  eventType: Schema.String,
}) {
  readonly code = "WEBHOOK_EVENT_UNKNOWN"
  override get message() { return `${this.eventType} is not an event type a webhook can subscribe to` }
}

/** A webhook endpoint or delivery is unknown in this account (ids of other accounts included). */
export class WebhookNotFound extends Schema.TaggedError<WebhookNotFound>()("WebhookNotFound", {
  resource: Schema.Literal("webhook", "delivery"),
  id: Schema.String,
}) {
  readonly code = "NOT_FOUND"
  override get message() { return `${this.resource} ${this.id} was not found` }
}

/** The account's plan is below the tier a feature needs: webhooks and custom domains need the Starter plan or above. Spec: audience
 *  "What the service does" (plan rules); sending "Authentication" 5 and "Errors": insufficient tier answers 403. */
export class PlanUpgradeRequired extends Schema.TaggedError<PlanUpgradeRequired>()("PlanUpgradeRequired", {
  plan: Schema.String,
  feature: Schema.String,
  requiredPlan: Schema.String,
}) {
  readonly code = "PLAN_UPGRADE_REQUIRED"
  override get message() {
    const required = `${this.requiredPlan.charAt(0).toUpperCase()}${this.requiredPlan.slice(1)}`
    return `the ${this.plan} plan does not include ${this.feature}; ${this.feature} need the ${required} plan or above`
  }
}

/** The account's plan holds as many webhook endpoints as it allows. The sending spec answers a plan's count limit with
 *  API_KEY_LIMIT_REACHED (custom domains), and webhooks follow it. */
export class WebhookLimitReached extends Schema.TaggedError<WebhookLimitReached>()("WebhookLimitReached", {
  plan: Schema.String,
  limit: Schema.Number,
}) {
  readonly code = "API_KEY_LIMIT_REACHED"
  override get message() {
    return `the ${this.plan} plan allows at most ${this.limit} webhook ${this.limit === 1 ? "endpoint" : "endpoints"}; delete one or upgrade the plan`
  }
}

/** The account's monthly sending quota cannot hold the recipients of this request. Spec: sending "Errors" and
 *  "Limits": the response carries the date the counter resets (the 1st of next month, UTC). */
export class QuotaExceeded extends Schema.TaggedError<QuotaExceeded>()("QuotaExceeded", {
  limit: Schema.Number,
  used: Schema.Number,
  requested: Schema.Number,
  resetsAt: Schema.DateFromSelf,
}) {
  readonly code = "QUOTA_EXCEEDED"
  override get message() {
    return `the monthly quota of ${this.limit} recipients cannot hold ${this.requested} more (${this.used} used); it resets on ${this.resetsAt.toISOString()}`
  }
}

/** An Idempotency-Key was used again with another request body (or on another route) within its 24 hours. */
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", {
  key: Schema.String,
}) {
  readonly code = "IDEMPOTENCY_KEY_REUSED"
  override get message() {
    return `the Idempotency-Key ${this.key} was already used with a different request; use a new key for a new request`
  }
}

/** The database is unreachable or answered something unexpected. */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  operation: Schema.String,
  cause: Schema.Defect,
}) {
  readonly code = "INTERNAL_ERROR"
  override get message() { return `storage failed during ${this.operation}` }
}

/** A signup form was submitted from a page whose origin the form does not allow (or that sent no Origin). */
export class OriginNotAllowed extends Schema.TaggedError<OriginNotAllowed>()("OriginNotAllowed", {
  origin: Schema.NullOr(Schema.String),
}) {
  readonly code = "ORIGIN_NOT_ALLOWED"
  override get message() {
    return this.origin === null ? "the request carries no Origin; forms accept submissions from browsers only"
      : `this form does not accept submissions from ${this.origin}`
  }
}

/** A sending domain is unknown in this account (ids of other accounts included). */
export class DomainNotFound extends Schema.TaggedError<DomainNotFound>()("DomainNotFound", {
  id: Schema.String,
}) {
  readonly code = "DOMAIN_NOT_FOUND"
  override get message() { return `domain ${this.id} was not found` }
}

/** The account has a sending domain with this hostname already. */
export class DomainAlreadyExists extends Schema.TaggedError<DomainAlreadyExists>()("DomainAlreadyExists", {
  hostname: Schema.String,
}) {
  readonly code = "DOMAIN_ALREADY_EXISTS"
  override get message() { return `the domain ${this.hostname} was added to this account already` }
}

/** The ownership record (`mailroom-verify=<id>`) was not found: the state a verify reports on the verification record. */
export class DnsVerificationFailed extends Schema.TaggedError<DnsVerificationFailed>()("DnsVerificationFailed", {
  detail: Schema.String,
}) {
  readonly code = "DNS_VERIFICATION_FAILED"
  override get message() { return this.detail }
}

/** An SPF, DKIM or DMARC record is missing, wrong or duplicated: the state a verify reports on that record. */
export class DnsRecordMissing extends Schema.TaggedError<DnsRecordMissing>()("DnsRecordMissing", {
  detail: Schema.String,
}) {
  readonly code = "DNS_RECORD_MISSING"
  override get message() { return this.detail }
}

/** A DNS lookup failed (SERVFAIL, no answer in time, unreachable server): nothing can be said of the records, so a
 *  verify changes nothing. */
export class DnsLookupFailed extends Schema.TaggedError<DnsLookupFailed>()("DnsLookupFailed", {
  hostname: Schema.String,
  reason: Schema.String,
}) {
  readonly code = "DNS_LOOKUP_ERROR"
  override get message() {
    return `the DNS lookup of ${this.hostname} failed (${this.reason}); nothing was changed, try again in a moment`
  }
}

/** The account's plan allows no more custom domains. Spec: "Errors", API_KEY_LIMIT_REACHED on POST /domains. */
export class DomainLimitReached extends Schema.TaggedError<DomainLimitReached>()("DomainLimitReached", {
  plan: Schema.String,
  limit: Schema.Number,
}) {
  readonly code = "API_KEY_LIMIT_REACHED"
  override get message() {
    return `the ${this.plan} plan allows at most ${this.limit} custom ${this.limit === 1 ? "domain" : "domains"}; delete one or upgrade the plan`
  }
}

/** A send from a domain that is not a verified sending domain of the account, while the host allows verified senders
 *  only (DomainsConfig's senderPolicy). */
export class SenderDomainNotVerified extends Schema.TaggedError<SenderDomainNotVerified>()("SenderDomainNotVerified", {
  domain: Schema.String,
}) {
  readonly code = "SENDER_DOMAIN_NOT_VERIFIED"
  override get message() {
    return `the sender domain ${this.domain} is not a verified domain of this account; add it with POST /domains and verify it`
  }
}

/** One unsafe construct found in a template's source: what it is and where (1-based line and column of the source, and
 *  the path of elements down to it). */
export const MarkupFinding = Schema.Struct({
  problem: Schema.String,
  line: Schema.Number,
  column: Schema.Number,
  path: Schema.String,
})
export type MarkupFinding = typeof MarkupFinding.Type

/** A template's source holds markup that templates may not: script, iframe, form, on* event attributes or
 *  `javascript:` URLs, in any spelling. Spec: sending "Design (Studio template)"; checked on save and publish. */
export class UnsafeTemplateMarkup extends Schema.TaggedError<UnsafeTemplateMarkup>()("UnsafeTemplateMarkup", {
  field: Schema.String,
  findings: Schema.Array(MarkupFinding),
}) {
  readonly code = "VALIDATION_ERROR"
  override get message() {
    const shown = this.findings.slice(0, 5).map((f) => `${f.problem} at line ${f.line}, column ${f.column} (${f.path})`)
    const more = this.findings.length > 5 ? `; and ${this.findings.length - 5} more` : ""
    return `${this.field}: templates may not contain scripts, frames, forms, event handlers or javascript: links: ${shown.join("; ")}${more}`
  }
}

/** A template's source does not parse: Handlebars or MJML syntax, with the line when the parser names one. */
export class InvalidTemplateSyntax extends Schema.TaggedError<InvalidTemplateSyntax>()("InvalidTemplateSyntax", {
  field: Schema.String,
  line: Schema.optional(Schema.Number),
  detail: Schema.String,
}) {
  readonly code = "VALIDATION_ERROR"
  override get message() {
    return `${this.field}${this.line === undefined ? "" : ` (line ${this.line})`}: ${this.detail}`
  }
}

/** The MJML compile ran past its deadline and was stopped. Spec: "Legacy templates", five-second deadline. */
export class MjmlCompileTimedOut extends Schema.TaggedError<MjmlCompileTimedOut>()("MjmlCompileTimedOut", {
  field: Schema.String,
  deadlineMs: Schema.Number,
}) {
  readonly code = "VALIDATION_ERROR"
  override get message() {
    return `${this.field}: the MJML did not compile within ${this.deadlineMs / 1000} s and was stopped; simplify the template`
  }
}

/** The HTML an MJML source compiles to is over the output limit. Spec: "Legacy templates", 4 MiB output limit. */
export class CompiledTemplateTooLarge extends Schema.TaggedError<CompiledTemplateTooLarge>()("CompiledTemplateTooLarge", {
  field: Schema.String,
  limitBytes: Schema.Number,
  actualBytes: Schema.Number,
}) {
  readonly code = "PAYLOAD_TOO_LARGE"
  override get message() {
    return `${this.field}: the MJML compiles to ${this.actualBytes} bytes of HTML, more than the limit of ${this.limitBytes}`
  }
}

/** A strict (application) template was rendered without required variables. Spec: sending rule 5, "Errors". */
export class MissingTemplateVariables extends Schema.TaggedError<MissingTemplateVariables>()("MissingTemplateVariables", {
  names: Schema.Array(Schema.String),
  /** Where the variables were to be given, when it is not the body's `variables` (a batch recipient's:
   *  `recipients[3].variables`). */
  field: Schema.optional(Schema.String),
}) {
  readonly code = "MISSING_TEMPLATE_VARIABLES"
  override get message() {
    const where = this.field === undefined ? "" : `${this.field}: `
    return `${where}the template requires ${this.names.length === 1 ? "the variable" : "the variables"} ${this.names.join(", ")}, which ${this.names.length === 1 ? "was" : "were"} not given`
  }
}

/** A strict (application) template was given variables its schema does not declare. Spec: "Design (Studio template)",
 *  application templates: unknown variables are refused. */
export class UnknownTemplateVariables extends Schema.TaggedError<UnknownTemplateVariables>()("UnknownTemplateVariables", {
  names: Schema.Array(Schema.String),
  /** The field the variables came from; `variables` when absent (a batch recipient's: `recipients[3].variables`). */
  field: Schema.optional(Schema.String),
}) {
  readonly code = "VALIDATION_ERROR"
  override get message() {
    return `${this.field ?? "variables"}: the template does not declare ${this.names.join(", ")}; remove ${this.names.length === 1 ? "it" : "them"} or declare ${this.names.length === 1 ? "it" : "them"} in the template's variables`
  }
}

/** A strict (application) template was given a value of another type than its schema declares. */
export class MistypedTemplateVariables extends Schema.TaggedError<MistypedTemplateVariables>()("MistypedTemplateVariables", {
  problems: Schema.Array(Schema.Struct({ name: Schema.String, expected: Schema.String })),
  /** The field the variables came from; `variables` when absent (a batch recipient's: `recipients[3].variables`). */
  field: Schema.optional(Schema.String),
}) {
  readonly code = "VALIDATION_ERROR"
  override get message() {
    return `${this.field ?? "variables"}: ${this.problems.map((p) => `${p.name} must be ${p.expected}`).join("; ")}`
  }
}

/** The template engine could not do its job: its MJML worker crashed or could not start. */
export class TemplateEngineError extends Schema.TaggedError<TemplateEngineError>()("TemplateEngineError", {
  operation: Schema.String,
  cause: Schema.Defect,
}) {
  readonly code = "INTERNAL_ERROR"
  override get message() { return `the template engine failed during ${this.operation}` }
}

/** A bulk validation job is unknown in this account (ids of other accounts included). */
export class ValidationJobNotFound extends Schema.TaggedError<ValidationJobNotFound>()("ValidationJobNotFound", {
  id: Schema.String,
}) {
  readonly code = "NOT_FOUND"
  override get message() { return `bulk validation ${this.id} was not found` }
}

/** Every error a Mailroom service or route can fail with. */
export type MailroomError =
  | ValidationFailed | PayloadTooLarge | Unauthorized | InvalidCredentials | ScopeInsufficient | RateLimitExceeded
  | ResourceNotFound | RouteNotFound | DuplicateContact | InvalidStatusTransition | TagLimitExceeded
  | FreeTierContactLimit | ListNotFound | TopicNotFound | DuplicateTopic | NotAMember | ContactNotFound
  | RecipientUnsubscribed | RecipientSuppressed | ContactBlocked | NoPendingConfirmation | InvalidToken | ImportRejected
  | WebhookEventUnknown | WebhookNotFound | PlanUpgradeRequired | WebhookLimitReached | QuotaExceeded | IdempotencyKeyReused | StoreError
  | OriginNotAllowed
  | DomainNotFound | DomainAlreadyExists | DnsVerificationFailed | DnsRecordMissing | DnsLookupFailed | DomainLimitReached
  | SenderDomainNotVerified
  | UnsafeTemplateMarkup | InvalidTemplateSyntax | MjmlCompileTimedOut | CompiledTemplateTooLarge
  | MissingTemplateVariables | UnknownTemplateVariables | MistypedTemplateVariables | TemplateEngineError | ValidationJobNotFound
  | TemplateError | BrandError

export type ErrorCode = MailroomError["code"]
