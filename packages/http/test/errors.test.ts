import {
  TrackingDomainInUse, TrackingDomainNotFound,
  ContactBlocked, ContactNotFound, DuplicateContact, DuplicateTopic, type ErrorCode, FreeTierContactLimit,
  IdempotencyKeyReused, ImportRejected, InvalidCredentials, InvalidStatusTransition, InvalidToken, ListNotFound,
  NoPendingConfirmation, NotAMember, OriginNotAllowed, PayloadTooLarge, QuotaExceeded, RateLimitExceeded,
  RecipientSuppressed, RecipientUnsubscribed, ResourceNotFound, RouteNotFound, ScopeInsufficient, StoreError,
  TagLimitExceeded, TopicNotFound, Unauthorized, ValidationFailed, WebhookEventUnknown, WebhookLimitReached,
  WebhookNotFound, type MailroomError, PlanUpgradeRequired, DomainNotFound, DomainAlreadyExists, DnsVerificationFailed,
  DnsRecordMissing, DnsLookupFailed, DomainLimitReached, SenderDomainNotVerified,
  UnsafeTemplateMarkup, InvalidTemplateSyntax, MjmlCompileTimedOut, CompiledTemplateTooLarge, MissingTemplateVariables,
  UnknownTemplateVariables, MistypedTemplateVariables,
  TemplateLimitReached, TemplateNotFound, RevisionConflict, DesignAlreadyExists, TemplateInUse, TemplateNotPublished,
  TemplateRetired, SenderNotAllowed, BrandNotFound, BrandInUse, BrandLimitReached, BrandRevisionConflict,
} from "@mailroom/core"
import { existsSync, readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import {
  docsHomeUrl, docsUrlOf, errorBody, errorResponse, fixActionByCode, internalErrorResponse, isDomainError, statusByCode,
} from "../src/index.js"

/** One instance of every domain error with the status the spec gives its code. */
const cases: ReadonlyArray<readonly [MailroomError, number]> = [
  [new ValidationFailed({ field: "email", detail: "is required" }), 400],
  [new PayloadTooLarge({ limitBytes: 10 }), 413],
  [new Unauthorized({ detail: "missing API key" }), 401],
  [new InvalidCredentials({ detail: "revoked" }), 401],
  [new ScopeInsufficient({ scope: "contacts:write" }), 403],
  [new RateLimitExceeded({ retryAfter: 7, limit: 60, windowSeconds: 60 }), 429],
  [new ResourceNotFound({ resource: "contact", id: "ct_1" }), 404],
  [new RouteNotFound({ method: "GET", path: "/x" }), 404],
  [new DuplicateContact({ email: "a@example.com" }), 409],
  [new InvalidStatusTransition({ from: "CLEANED", to: "ACTIVE" }), 400],
  [new TagLimitExceeded({ limit: 50, wouldHold: 51 }), 400],
  [new FreeTierContactLimit({ limit: 100 }), 403],
  [new ListNotFound({ listId: "lst_1" }), 404],
  [new TopicNotFound({ topicId: "top_1" }), 404],
  [new NotAMember({ listId: "lst_1" }), 404],
  [new ContactNotFound({ email: "a@example.com" }), 404],
  [new RecipientUnsubscribed({ email: "a@example.com" }), 409],
  [new RecipientSuppressed({ email: "a@example.com", reason: "Bounce" }), 409],
  [new ContactBlocked({ email: "a@example.com", status: "COMPLAINED" }), 409],
  [new ImportRejected({ reason: "TOO_LARGE", detail: "file over 2 MiB" }), 413],
]

/** Every error each code is answered for, in each shape its context takes. Typed by code, so that a new code does
 *  not compile until it has a row here. StoreError is answered as INTERNAL_ERROR by internalErrorResponse. */
const everyError = {
  VALIDATION_ERROR: [
    new ValidationFailed({ field: "email", detail: "is required" }),
    new ValidationFailed({ detail: "the request body is not valid JSON" }),
    new UnsafeTemplateMarkup({ field: "html", findings: [{ problem: "<script>", line: 3, column: 5, path: "html > body > script" }] }),
    new InvalidTemplateSyntax({ field: "html", line: 4, detail: "unclosed mj-section" }),
    new MjmlCompileTimedOut({ field: "html", deadlineMs: 5000 }),
    new UnknownTemplateVariables({ names: ["nickname"] }),
    new MistypedTemplateVariables({ problems: [{ name: "items", expected: "an array" }] }),
    new UnknownTemplateVariables({ names: ["nickname"], field: "recipients[3].variables" }),
  ],
  PAYLOAD_TOO_LARGE: [new PayloadTooLarge({ limitBytes: 10 }), new PayloadTooLarge({ limitBytes: 10, field: "content.html" }),
    new CompiledTemplateTooLarge({ field: "html", limitBytes: 10, actualBytes: 11 })],
  UNAUTHORIZED: [new Unauthorized({ detail: "missing API key" })],
  INVALID_CREDENTIALS: [new InvalidCredentials({ detail: "revoked" })],
  SCOPE_INSUFFICIENT: [new ScopeInsufficient({ scope: "contacts:write" })],
  RATE_LIMIT_EXCEEDED: [new RateLimitExceeded({ retryAfter: 7, limit: 60, windowSeconds: 60 })],
  RESOURCE_NOT_FOUND: [new ResourceNotFound({ resource: "contact", id: "ct_1" }), new TrackingDomainNotFound({ brandId: "brd_1" })],
  NOT_FOUND: [new RouteNotFound({ method: "GET", path: "/x" }), new WebhookNotFound({ resource: "webhook", id: "wh_1" })],
  DUPLICATE_CONTACT: [new DuplicateContact({ email: "a@example.com" })],
  INVALID_STATUS_TRANSITION: [new InvalidStatusTransition({ from: "CLEANED", to: "ACTIVE" })],
  TAG_LIMIT_EXCEEDED: [new TagLimitExceeded({ limit: 50, wouldHold: 51 })],
  FREE_TIER_CONTACT_LIMIT: [new FreeTierContactLimit({ limit: 100 })],
  LIST_NOT_FOUND: [new ListNotFound({ listId: "lst_1" })],
  TOPIC_NOT_FOUND: [new TopicNotFound({ topicId: "top_1" })],
  DUPLICATE_TOPIC: [new DuplicateTopic({ name: "News" })],
  NOT_A_MEMBER: [new NotAMember({ listId: "lst_1" })],
  CONTACT_NOT_FOUND: [new ContactNotFound({ email: "a@example.com" })],
  RECIPIENT_UNSUBSCRIBED: [new RecipientUnsubscribed({ email: "a@example.com" })],
  RECIPIENT_SUPPRESSED: [new RecipientSuppressed({ email: "a@example.com", reason: "Bounce" })],
  CONTACT_BLOCKED: [new ContactBlocked({ email: "a@example.com", status: "COMPLAINED" })],
  NO_PENDING_CONFIRMATION: [new NoPendingConfirmation({ email: "a@example.com", detail: "the contact is ACTIVE" })],
  INVALID_TOKEN: [new InvalidToken({ detail: "expired" })],
  IMPORT_REJECTED: [new ImportRejected({ reason: "INVALID_REQUEST", detail: "no email column" })],
  WEBHOOK_EVENT_UNKNOWN: [new WebhookEventUnknown({ eventType: "contact.exploded" })],
  API_KEY_LIMIT_REACHED: [new BrandLimitReached({ plan: "micro", limit: 3 }), new WebhookLimitReached({ plan: "starter", limit: 1 }), new DomainLimitReached({ plan: "starter", limit: 1 }),
    new TemplateLimitReached({ plan: "micro", limit: 25 })],
  TEMPLATE_NOT_FOUND: [new TemplateNotFound({ id: "tpl_1" })],
  REVISION_CONFLICT: [
    new RevisionConflict({ id: "tpl_1", expected: 1, current: 2 }),
    new BrandRevisionConflict({ id: "brd_1", expected: "2026-11-29T16:00:00.000Z", current: "2026-11-29T16:00:01.000Z" }),
  ],
  DESIGN_ALREADY_EXISTS: [new DesignAlreadyExists({ applicationKey: "account", key: "welcome", locale: "en" })],
  TEMPLATE_IN_USE: [new TemplateInUse({ id: "tpl_1", sends: 3 })],
  TEMPLATE_NOT_PUBLISHED: [new TemplateNotPublished({ id: "tpl_1" })],
  TEMPLATE_RETIRED: [new TemplateRetired({ id: "tpl_1", replacementId: "tpl_2" }), new TemplateRetired({ id: "tpl_1", replacementId: null })],
  SENDER_NOT_ALLOWED: [new SenderNotAllowed({ from: "x@example.com", allowed: ["shop@example.com"] })],
  PLAN_UPGRADE_REQUIRED: [new PlanUpgradeRequired({ plan: "free", feature: "webhooks", requiredPlan: "starter" })],
  DOMAIN_NOT_FOUND: [new DomainNotFound({ id: "dom_1" })],
  DOMAIN_ALREADY_EXISTS: [new DomainAlreadyExists({ hostname: "mail.example.com" })],
  DNS_VERIFICATION_FAILED: [new DnsVerificationFailed({ detail: "no mailroom-verify record" })],
  DNS_RECORD_MISSING: [new DnsRecordMissing({ detail: "no SPF record" })],
  DNS_LOOKUP_ERROR: [new DnsLookupFailed({ hostname: "mail.example.com", reason: "ETIMEOUT" })],
  SENDER_DOMAIN_NOT_VERIFIED: [new SenderDomainNotVerified({ domain: "example.com" })],
  MISSING_TEMPLATE_VARIABLES: [new MissingTemplateVariables({ names: ["first_name", "order_id"] })],
  QUOTA_EXCEEDED: [new QuotaExceeded({ limit: 100, used: 100, requested: 1, resetsAt: new Date("2026-12-01T00:00:00Z") })],
  IDEMPOTENCY_KEY_REUSED: [new IdempotencyKeyReused({ key: "order-1" })],
  INTERNAL_ERROR: [],
  ORIGIN_NOT_ALLOWED: [new OriginNotAllowed({ origin: "https://elsewhere.example" }), new OriginNotAllowed({ origin: null })],
  BRAND_NOT_FOUND: [new BrandNotFound({ id: "brd_1" })],
  BRAND_IN_USE: [new BrandInUse({ id: "brd_1", templates: 2, campaigns: 1, isDefault: false }), new BrandInUse({ id: "brd_1", templates: 0, campaigns: 0, isDefault: true })],
  TRACKING_DOMAIN_IN_USE: [new TrackingDomainInUse({ hostname: "links.example.com" })],
} satisfies Record<ErrorCode, ReadonlyArray<MailroomError>>

/** The context fields a fix_action tells the caller to read (`error.context.<name>`). */
const contextFieldsNamedBy = (fixAction: string): ReadonlyArray<string> =>
  [...fixAction.matchAll(/error\.context\.(\w+)/g)].map((match) => match[1]!)

describe("the error table", () => {
  it.each(Object.entries(everyError).flatMap(([code, errors]) => errors.map((error) => [code, error] as const)))(
    "%s: a fix_action sends the caller only to context fields the error carries (%s)",
    (_code, error) => {
      for (const realm of ["api", "admin"] as const) {
        const { fix_action, context } = errorBody(error, realm).error
        for (const field of contextFieldsNamedBy(fix_action)) expect(context ?? {}, fix_action).toHaveProperty(field)
      }
    },
  )

  it("the internal error's fix_action names no context", async () => {
    const { error } = await internalErrorResponse("req-1").json()
    expect(contextFieldsNamedBy(error.fix_action)).toEqual([])
  })

  it("has a status and a fix_action for every code", () => {
    expect(Object.keys(fixActionByCode).sort()).toEqual(Object.keys(statusByCode).sort())
    for (const action of Object.values(fixActionByCode)) expect(action.length).toBeGreaterThan(10)
  })

  it.each(cases)("answers %s with the spec's status and the standard envelope", async (error, status) => {
    const response = errorResponse(error)
    expect(response.status).toBe(status)
    expect(response.headers.get("content-type")).toBe("application/json")
    const body = await response.json()
    expect(body).toEqual({
      success: false,
      error: expect.objectContaining({
        code: error.code,
        message: error.message,
        fix_action: fixActionByCode[error.code],
        docs_url: expect.stringContaining(error.code.toLowerCase()),
      }),
    })
  })

  it("carries context.field for VALIDATION_ERROR, and no context without a field", async () => {
    expect((await errorResponse(new ValidationFailed({ field: "tags.3", detail: "bad" })).json()).error.context).toEqual({ field: "tags.3" })
    expect((await errorResponse(new ValidationFailed({ detail: "not JSON" })).json()).error.context).toBeUndefined()
  })

  it("names a batch recipient's variables in context.field: strict template refusals carry the field they were given", async () => {
    const field = "recipients[3].variables"
    expect((await errorResponse(new UnknownTemplateVariables({ names: ["x"], field })).json()).error.context).toEqual({ field })
    expect((await errorResponse(new MistypedTemplateVariables({ problems: [], field })).json()).error.context).toEqual({ field })
    expect((await errorResponse(new UnknownTemplateVariables({ names: ["x"] })).json()).error.context).toEqual({ field: "variables" })
    const missing = new MissingTemplateVariables({ names: ["order"], field })
    expect(await errorResponse(missing).json()).toMatchObject({ error: { context: { field }, message: expect.stringContaining(field) } })
    expect((await errorResponse(new MissingTemplateVariables({ names: ["order"] })).json()).error.context).toBeUndefined()
  })

  it("carries context.retry_after and a Retry-After header for RATE_LIMIT_EXCEEDED", async () => {
    const response = errorResponse(new RateLimitExceeded({ retryAfter: 42, limit: 60, windowSeconds: 60 }))
    expect(response.headers.get("retry-after")).toBe("42")
    expect((await response.json()).error.context).toEqual({ retry_after: 42 })
  })

  it("answers the plain shape { error } when a route asks for it, with the error's own status", async () => {
    const response = errorResponse(new ImportRejected({ reason: "LIST_NOT_FOUND", detail: "listId is not one of the account's lists" }), "plain")
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: "listId is not one of the account's lists" })
  })

  it("answers internal errors 500 with only the request id", async () => {
    const response = internalErrorResponse("req-123")
    expect(response.status).toBe(500)
    const body = await response.json()
    expect(body.error.code).toBe("INTERNAL_ERROR")
    expect(body.error.message).toContain("req-123")
  })

  it("treats StoreError and foreign values as internal, never as domain errors", () => {
    expect(isDomainError(new StoreError({ operation: "x", cause: new Error("boom") }))).toBe(false)
    expect(isDomainError(new Error("boom"))).toBe(false)
    expect(isDomainError({ _tag: "Fake", code: "NOPE" })).toBe(false)
    expect(isDomainError(new DuplicateContact({ email: "a@example.com" }))).toBe(true)
  })

  it("docs/errors.md has a row for every code, at the anchor of its docs_url, with its status", () => {
    const doc = readFileSync(new URL("../../../docs/errors.md", import.meta.url), "utf8")
    for (const [code, status] of Object.entries(statusByCode)) {
      const row = doc.split("\n").find((line) => line.startsWith(`| <a id="${code.toLowerCase()}"></a>\`${code}\` |`))
      expect(row, code).toBeDefined()
      expect(row!.split("|")[2]!.trim().split("/"), code).toContain(String(status))
    }
  })

  it("every code's docs_url is a page of the repository's docs/ with the code's anchor on it", async () => {
    const docsDirectory = new URL("../../../docs/", import.meta.url)
    for (const code of Object.keys(statusByCode) as Array<ErrorCode>) {
      const url = docsUrlOf(code)
      expect(url.startsWith(`${docsHomeUrl}/`), code).toBe(true)
      const [page = "", anchor = ""] = url.slice(docsHomeUrl.length + 1).split("#")
      const file = new URL(page, docsDirectory)
      expect(existsSync(file), `${code}: docs/${page}`).toBe(true)
      expect(readFileSync(file, "utf8"), `${code}: #${anchor} on docs/${page}`).toContain(`<a id="${anchor}"></a>`)
    }
    // Every answer carries its code's docs_url, the internal error's too.
    for (const [error] of cases) expect(errorBody(error).error.docs_url).toBe(docsUrlOf(error.code))
    const internal = await internalErrorResponse("req-1").json() as ReturnType<typeof errorBody>
    expect(internal.error.docs_url).toBe(docsUrlOf("INTERNAL_ERROR"))
  })
})
