import { describe, expect, it } from "vitest"
import { recipientDomain, redactLogText } from "../../src/index.js"

describe("redactLogText", () => {
  it.each([
    ["an API key", "key svc_live_AbC123xyz0987 refused", "svc_live_AbC123xyz0987", "svc_live_***"],
    ["a test key", "svc_test_Zz9_-aa", "svc_test_Zz9_-aa", "svc_test_***"],
    ["an application credential", "svc_app_q1w2e3", "svc_app_q1w2e3", "svc_app_***"],
    ["a webhook secret", "secret whsec_c2VjcmV0IHZhbHVl+/=", "whsec_c2VjcmV0IHZhbHVl", "whsec_***"],
    ["an SMTP password", "connect smtps://mailer:hunter2@relay.example.com:465 failed", "hunter2", "smtps://***@relay.example.com"],
    ["a Postgres password", "postgres://app:s3cr3t@db:5432/mail", "s3cr3t", "postgres://***@db"],
    ["a bearer token", "Authorization: Bearer abc.def.ghi", "abc.def.ghi", "Bearer ***"],
    ["an unsubscribe token", "GET /u/eyJhbGciOi.c2lnbmF0dXJl", "eyJhbGciOi.c2lnbmF0dXJl", "/u/***"],
    ["a token field", "token=abcdef123&x=1", "abcdef123", "token=***"],
    ["a JSON password", '{"password":"pa55word","user":"x"}', "pa55word", '"password":"***"'],
    ["an address", "550 5.1.1 <ada.lovelace@example.com>: user unknown", "ada.lovelace", "***@example.com"],
    ["an ADMIN_TOKEN field", "adminToken: letmein", "letmein", "adminToken: ***"],
  ])("masks %s", (_what, text, secret, masked) => {
    const redacted = redactLogText(text)
    expect(redacted).not.toContain(secret)
    expect(redacted).toContain(masked)
  })

  it("leaves the rest of the line as it was", () => {
    const line = 'timestamp=2026-01-01T00:00:00.000Z level=INFO message=request method=GET route=/v1/contacts/{id} status=200'
    expect(redactLogText(line)).toBe(line)
    expect(redactLogText("250 2.0.0 Ok: queued as 4F2A1")).toBe("250 2.0.0 Ok: queued as 4F2A1")
  })
})

describe("recipientDomain", () => {
  it("answers the part after the last @, lower-cased", () => {
    expect(recipientDomain("Ada@Example.COM")).toBe("example.com")
    expect(recipientDomain('"a@b"@example.org')).toBe("example.org")
    expect(recipientDomain("no-at-sign")).toBe("")
  })
})
