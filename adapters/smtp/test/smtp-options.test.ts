/** SMTP_URL: what it may say, and that no refusal ever repeats its password. */
import { describe, expect, it } from "vitest"
import { parseSmtpUrl, redactUrl, SmtpUrlError } from "../src/index.js"

describe("parseSmtpUrl", () => {
  it("reads host, port, credentials and the scheme's TLS mode", () => {
    expect(parseSmtpUrl("smtp://mailer:p%40ss%3Aword@relay.example.com:2525")).toEqual({
      host: "relay.example.com", port: 2525, secure: false, auth: { user: "mailer", pass: "p@ss:word" },
    })
    expect(parseSmtpUrl("smtps://relay.example.com")).toEqual({ host: "relay.example.com", secure: true })
    expect(parseSmtpUrl(" smtp://[::1]:25 ")).toEqual({ host: "::1", port: 25, secure: false })
  })

  it("reads the documented query parameters", () => {
    expect(parseSmtpUrl(
      "smtp://relay.example.com/?starttls=required&rejectUnauthorized=false&maxConnections=3&maxMessages=50" +
        "&idleTimeout=1000&connectionTimeout=2000&greetingTimeout=3000&socketTimeout=4000&name=mx.example.com",
    )).toEqual({
      host: "relay.example.com", secure: false, starttls: "required", rejectUnauthorized: false, maxConnections: 3,
      maxMessagesPerConnection: 50, idleTimeoutMs: 1000, connectionTimeoutMs: 2000, greetingTimeoutMs: 3000,
      socketTimeoutMs: 4000, clientName: "mx.example.com",
    })
  })

  it.each([
    ["not a URL", "smtp://user:hunter2@relay.example.com:port"],
    ["another scheme", "http://user:hunter2@relay.example.com"],
    ["no host", "smtp://user:hunter2@"],
    ["a path", "smtp://user:hunter2@relay.example.com/inbox"],
    ["an unknown parameter", "smtp://user:hunter2@relay.example.com?tls=off"],
    ["a bad parameter", "smtp://user:hunter2@relay.example.com?maxConnections=many"],
    ["starttls with smtps", "smtps://user:hunter2@relay.example.com?starttls=required"],
    ["bad percent-encoding", "smtp://user:hunter2%zz@relay.example.com"],
  ])("refuses %s, naming the URL without its password", (_case, url) => {
    expect(() => parseSmtpUrl(url)).toThrow(SmtpUrlError)
    try {
      parseSmtpUrl(url)
    } catch (error) {
      expect((error as Error).message).toContain("user:***@")
      expect((error as Error).message).not.toContain("hunter2")
    }
  })
})

describe("redactUrl", () => {
  it.each([
    ["smtp://user:secret@host:25", "smtp://user:***@host:25"],
    ["smtps://user:p@ss@host", "smtps://user:***@host"],
    ["user:secret@host:25", "user:***@host:25"],
    ["smtp://host:25", "smtp://host:25"],
    ["smtp://user@host:25", "smtp://user@host:25"],
  ])("%s becomes %s", (url, shown) => {
    expect(redactUrl(url)).toBe(shown)
  })
})
