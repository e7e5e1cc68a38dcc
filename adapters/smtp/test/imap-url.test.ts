import { describe, expect, it } from "vitest"
import { ImapUrlError, parseImapUrl } from "../src/index.js"

describe("parseImapUrl (CANARY_IMAP_URL)", () => {
  it("reads imaps:// with a percent-encoded user, the default port and folder", () => {
    expect(parseImapUrl("imaps://canary%40example.com:p%40ss@imap.example.com")).toEqual({
      host: "imap.example.com", port: 993, secure: true, user: "canary@example.com", password: "p@ss", folder: "INBOX",
    })
  })

  it("reads imap:// with a port and a folder", () => {
    expect(parseImapUrl("imap://u:p@127.0.0.1:1143/Canary%20Runs")).toEqual({
      host: "127.0.0.1", port: 1143, secure: false, user: "u", password: "p", folder: "Canary Runs",
    })
  })

  it.each(["pop3://u:p@example.com", "imap://example.com", "not a url"])("refuses %s without repeating a password", (url) => {
    expect(() => parseImapUrl(url)).toThrow(ImapUrlError)
    expect(() => parseImapUrl(url)).not.toThrow(/:p@/)
  })
})
