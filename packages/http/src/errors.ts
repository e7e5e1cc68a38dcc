/** The one place that turns errors into HTTP answers: the status of each spec code, its fix_action, and the two
 *  body shapes (the standard envelope and the `{ error }` body of CSV import). Routes never build error bodies. */
import type { ErrorCode, ImportRejectionReason, MailroomError } from "@mailroom/core"

/** Status of every code. Typed against ErrorCode, so a new domain error does not compile until it has a row. */
export const statusByCode = {
  VALIDATION_ERROR: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNAUTHORIZED: 401,
  INVALID_CREDENTIALS: 401,
  SCOPE_INSUFFICIENT: 403,
  RATE_LIMIT_EXCEEDED: 429,
  RESOURCE_NOT_FOUND: 404,
  NOT_FOUND: 404,
  DUPLICATE_CONTACT: 409,
  INVALID_STATUS_TRANSITION: 400,
  TAG_LIMIT_EXCEEDED: 400,
  FREE_TIER_CONTACT_LIMIT: 403,
  LIST_NOT_FOUND: 404,
  TOPIC_NOT_FOUND: 404,
  DUPLICATE_TOPIC: 409,
  NOT_A_MEMBER: 404,
  CONTACT_NOT_FOUND: 404,
  RECIPIENT_UNSUBSCRIBED: 409,
  RECIPIENT_SUPPRESSED: 409,
  CONTACT_BLOCKED: 409,
  NO_PENDING_CONFIRMATION: 409,
  INVALID_TOKEN: 400,
  // ImportRejected is answered with the status of its reason (importStatusByReason); this row is the fallback.
  IMPORT_REJECTED: 400,
  WEBHOOK_EVENT_UNKNOWN: 400,
  PLAN_UPGRADE_REQUIRED: 403,
  API_KEY_LIMIT_REACHED: 400,
  QUOTA_EXCEEDED: 429,
  IDEMPOTENCY_KEY_REUSED: 409,
  INTERNAL_ERROR: 500,
  ORIGIN_NOT_ALLOWED: 403,
  DOMAIN_NOT_FOUND: 404,
  DOMAIN_ALREADY_EXISTS: 400,
  DNS_VERIFICATION_FAILED: 400,
  DNS_RECORD_MISSING: 400,
  DNS_LOOKUP_ERROR: 400,
  SENDER_DOMAIN_NOT_VERIFIED: 403,
  // The spec leaves its status open: the request's variables are wrong, as with any other validation failure.
  MISSING_TEMPLATE_VARIABLES: 400,
  TEMPLATE_NOT_FOUND: 404,
  REVISION_CONFLICT: 409,
  DESIGN_ALREADY_EXISTS: 409,
  TEMPLATE_IN_USE: 409,
  // The spec leaves these statuses open: a send that names a template in the wrong state conflicts with that state,
  // as RECIPIENT_UNSUBSCRIBED does with a contact's (docs/templates.md, "Errors").
  TEMPLATE_NOT_PUBLISHED: 409,
  TEMPLATE_RETIRED: 409,
  SENDER_NOT_ALLOWED: 403,
  BRAND_NOT_FOUND: 404,
  BRAND_IN_USE: 409,
  TRACKING_DOMAIN_IN_USE: 409,
} as const satisfies Record<ErrorCode, number>

/** What the caller can do about each code, answered as `fix_action`. */
export const fixActionByCode = {
  VALIDATION_ERROR: "Correct the field named in error.context.field and send the request again.",
  PAYLOAD_TOO_LARGE: "Send a smaller request body, or split the work into several requests.",
  UNAUTHORIZED: "Send the header Authorization: Bearer <API_KEY>.",
  INVALID_CREDENTIALS: "Check the API key; create a new one if it was revoked.",
  SCOPE_INSUFFICIENT: "Use an API key that has the scope named in the message.",
  RATE_LIMIT_EXCEEDED: "Wait error.context.retry_after seconds (the Retry-After header) before retrying.",
  RESOURCE_NOT_FOUND: "Check the id; ids of other accounts are not visible.",
  NOT_FOUND: "Check the method, the path and any id in it against the API reference; ids of other accounts are not visible.",
  DUPLICATE_CONTACT: "Update the existing contact instead, or use another address.",
  INVALID_STATUS_TRANSITION: "Move the contact only along the allowed status transitions.",
  TAG_LIMIT_EXCEEDED: "Remove tags from the contact before adding new ones.",
  FREE_TIER_CONTACT_LIMIT: "Upgrade the plan, or unsubscribe or delete active contacts first.",
  LIST_NOT_FOUND: "Check the list id; lists of other accounts are not visible.",
  TOPIC_NOT_FOUND: "Check the topic id; topics of other accounts are not visible.",
  DUPLICATE_TOPIC: "Choose another name, or update the existing topic.",
  NOT_A_MEMBER: "Check the contact ids against the list's current members.",
  CONTACT_NOT_FOUND: "Create the contact first, or check the address.",
  RECIPIENT_UNSUBSCRIBED: "Pass resubscribe: true, and only with fresh consent from the recipient.",
  RECIPIENT_SUPPRESSED: "The address cannot be added through the API; remove a manual suppression first if it is one.",
  CONTACT_BLOCKED: "The contact complained or was cleaned and cannot be resubscribed.",
  NO_PENDING_CONFIRMATION: "Only PENDING contacts subscribed through the Subscriptions API have a confirmation to resend.",
  INVALID_TOKEN: "Use the link from the most recent email; ask for a new one if it expired.",
  IMPORT_REJECTED: "Correct the CSV file or the mappings and upload again.",
  WEBHOOK_EVENT_UNKNOWN: "Subscribe only to the event types listed in the webhooks guide.",
  PLAN_UPGRADE_REQUIRED: "Upgrade the account to the plan named in the message; the feature is not part of the current plan.",
  API_KEY_LIMIT_REACHED: "Upgrade the plan, or delete a resource of this kind first.",
  QUOTA_EXCEEDED: "Wait until error.context.resets_at, or upgrade the plan for a larger monthly quota.",
  IDEMPOTENCY_KEY_REUSED: "Send a new Idempotency-Key with a new request; repeat a key only with the same body.",
  INTERNAL_ERROR: "Retry later; if it persists, report the request id to the operator.",
  ORIGIN_NOT_ALLOWED: "Add the page's origin to the form's allowedOrigins, or submit from the hosted form page.",
  DOMAIN_NOT_FOUND: "Check the domain id; domains of other accounts are not visible.",
  DOMAIN_ALREADY_EXISTS: "Use the domain already added (GET /domains), or delete it before adding it again.",
  DNS_VERIFICATION_FAILED: "Publish the verification TXT record shown in dnsRecords.verification, then verify again.",
  DNS_RECORD_MISSING: "Publish the record as dnsRecords shows it (host and value), then verify again.",
  DNS_LOOKUP_ERROR: "Retry in a moment; if it persists, check the DNS servers Mailroom uses (DNS_SERVERS).",
  SENDER_DOMAIN_NOT_VERIFIED: "Add the domain named in the message with POST /domains, publish its records and verify it, or send from a verified domain.",
  MISSING_TEMPLATE_VARIABLES: "Pass every variable the message names in variables, or make it optional in the template's variables schema.",
  TEMPLATE_NOT_FOUND: "Check the template id; templates of other accounts (and, for an application credential, of other applications) are not visible.",
  REVISION_CONFLICT: "Read the template (GET /designs/{id}) or brand (GET /designs/brands/{id}) again and repeat the change with its current revision as expectedRevision, or its updatedAt as expectedUpdatedAt.",
  DESIGN_ALREADY_EXISTS: "Use the existing template with this key and locale (GET /designs?key=...), or choose another key or locale.",
  TEMPLATE_IN_USE: "Retire the template instead (PATCH /designs/{id}/lifecycle): templates that sent mail keep their releases.",
  TEMPLATE_NOT_PUBLISHED: "Publish the template's draft (POST /designs/{id}/publish) before sending with it.",
  TEMPLATE_RETIRED: "Send with the replacement the message names, or restore the template (PATCH /designs/{id}/lifecycle).",
  SENDER_NOT_ALLOWED: "Send from one of the application credential's allowed senders.",
  BRAND_NOT_FOUND: "Check the brand id; brands of other accounts (and, for an application credential, of other applications) are not visible.",
  BRAND_IN_USE: "Bind the templates using it to another brand (GET /designs/brands/{id}/usage lists them), or make another brand the default, then delete.",
  TRACKING_DOMAIN_IN_USE: "Choose another hostname (a subdomain of your own domain, such as links.example.com), or delete the tracking domain from the brand that holds it.",
} as const satisfies Record<ErrorCode, string>

/** Who answers a 401: the API (an API key is asked for) or the operator API under /admin (the admin token is). */
export type Realm = "api" | "admin"

/** fix_action of the operator API's 401s, which ask for the admin token rather than an API key. */
export const adminFixActionByCode = {
  UNAUTHORIZED: "Send the operator token the server was started with as Authorization: Bearer <ADMIN_TOKEN>.",
  INVALID_CREDENTIALS: "Check the ADMIN_TOKEN the server was started with; API keys do not open /admin.",
} as const satisfies Partial<Record<ErrorCode, string>>

/** fix_action of a VALIDATION_ERROR that names no field (a body that is not JSON, or could not be read): the table's
 *  own sends the caller to error.context.field, which such an error does not carry. */
export const fixActionWithoutField = "Correct the request as error.message describes and send it again."

const fixActionOf = (code: ErrorCode, realm: Realm, context: Record<string, string | number> | undefined): string => {
  if (realm === "admin" && code in adminFixActionByCode) return adminFixActionByCode[code as keyof typeof adminFixActionByCode]
  if (code === "VALIDATION_ERROR" && context?.field === undefined) return fixActionWithoutField
  return fixActionByCode[code]
}

/** Where Mailroom's documentation is published: the docs/ folder of its repository. */
export const docsHomeUrl = "https://github.com/mailroom/mailroom/blob/main/docs"

/** The page every `docs_url` points into; each code has its anchor there (docs/errors.md, tested). */
export const docsBaseUrl = `${docsHomeUrl}/errors.md`

/** The `docs_url` of a code: its row of docs/errors.md. */
export const docsUrlOf = (code: ErrorCode): string => `${docsBaseUrl}#${code.toLowerCase()}`

/** `envelope`: { success: false, error: { … } }; `plain`: { error: message } (CSV import). */
export type ErrorShape = "envelope" | "plain"

export interface ErrorBody {
  readonly success: false
  readonly error: {
    readonly code: ErrorCode
    readonly message: string
    readonly fix_action: string
    readonly docs_url: string
    readonly context?: Readonly<Record<string, string | number>>
  }
}

/** Status of each reason a CSV import is refused. Spec: audience "Errors", CSV import errors. */
export const importStatusByReason = {
  INVALID_REQUEST: 400,
  LIST_NOT_FOUND: 404,
  TOO_LARGE: 413,
} as const satisfies Record<ImportRejectionReason, number>

export const statusOf = (error: MailroomError): number =>
  error._tag === "ImportRejected" ? importStatusByReason[error.reason] : statusByCode[error.code]

/** The spec's context: the field of a VALIDATION_ERROR, the wait of a RATE_LIMIT_EXCEEDED. */
const contextOf = (error: MailroomError): Record<string, string | number> | undefined => {
  switch (error._tag) {
    case "ValidationFailed":
    case "PayloadTooLarge":
      return error.field === undefined ? undefined : { field: error.field }
    case "UnsafeTemplateMarkup":
    case "InvalidTemplateSyntax":
    case "MjmlCompileTimedOut":
    case "CompiledTemplateTooLarge":
    case "ManifestTooLarge":
      return { field: error.field }
    case "UnknownTemplateVariables":
    case "MistypedTemplateVariables":
      return { field: error.field ?? "variables" }
    case "MissingTemplateVariables":
      return error.field === undefined ? undefined : { field: error.field }
    case "RateLimitExceeded":
      return { retry_after: error.retryAfter }
    case "QuotaExceeded":
      return { resets_at: error.resetsAt.toISOString(), limit: error.limit, used: error.used }
    default:
      return undefined
  }
}

const body = (code: ErrorCode, message: string, context?: Record<string, string | number>, realm: Realm = "api"): ErrorBody => ({
  success: false,
  error: {
    code,
    message,
    fix_action: fixActionOf(code, realm, context),
    docs_url: docsUrlOf(code),
    ...(context === undefined ? {} : { context }),
  },
})

export const errorBody = (error: MailroomError, realm: Realm = "api"): ErrorBody =>
  body(error.code, error.message, contextOf(error), realm)

const json = (value: unknown, status: number, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json", ...headers } })

/** The answer to a domain error, with `extraHeaders` (CORS, say) made part of it from the start: a header set on a
 *  Response afterwards is lost when @hono/node-server's Response is copied. StoreError is not a domain error: answer
 *  it with `internalErrorResponse`. */
export const errorResponse = (
  error: MailroomError,
  shape: ErrorShape = "envelope",
  realm: Realm = "api",
  extraHeaders: Readonly<Record<string, string>> = {},
): Response => {
  const headers: Record<string, string> = error._tag === "RateLimitExceeded"
    ? { ...extraHeaders, "retry-after": String(error.retryAfter) }
    : { ...extraHeaders }
  const payload = shape === "plain" ? { error: error.message } : errorBody(error, realm)
  return json(payload, statusOf(error), headers)
}

/** The answer to a StoreError or defect: 500 with nothing of the cause, only the request id to report. */
export const internalErrorResponse = (requestId: string, shape: ErrorShape = "envelope"): Response => {
  const message = `an internal error occurred; report request id ${requestId} if it persists`
  return json(shape === "plain" ? { error: message } : body("INTERNAL_ERROR", message), statusByCode.INTERNAL_ERROR)
}

/** Whether a failure is a domain error answered with its own code (anything else is internal). */
export const isDomainError = (failure: unknown): failure is MailroomError =>
  typeof failure === "object" && failure !== null && "_tag" in failure && "code" in failure &&
  typeof failure.code === "string" && failure.code in statusByCode && failure.code !== "INTERNAL_ERROR"
