import {
  ContactBlocked, ContactNotFound, DuplicateContact, FreeTierContactLimit, ImportRejected, InvalidCredentials,
  InvalidStatusTransition, ListNotFound, NotAMember, PayloadTooLarge, RateLimitExceeded, RecipientSuppressed,
  RecipientUnsubscribed, ResourceNotFound, RouteNotFound, ScopeInsufficient, StoreError, TagLimitExceeded,
  TopicNotFound, Unauthorized, ValidationFailed, type MailroomError,
} from "@mailroom/core"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { errorResponse, fixActionByCode, internalErrorResponse, isDomainError, statusByCode } from "../src/index.js"

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

describe("the error table", () => {
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
})
