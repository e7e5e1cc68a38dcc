import { describe, expect, it } from "vitest"
import { EnvironmentError, readEnvironment } from "../src/environment.js"

describe("the starter's environment (CONTRACT.md)", () => {
  it("uses the contract's defaults when nothing is set", () => {
    const { port, host, mailroom } = readEnvironment({})
    expect({ port, host }).toEqual({ port: 3000, host: "127.0.0.1" })
    expect(mailroom).toMatchObject({
      database: "sqlite:.data/mailroom.sqlite",
      appUrl: "http://localhost:3000",
      trackUrl: "http://localhost:3000",
      unsafeAllowPrivateUrls: false,
      logLevel: "info",
      confirmation: "link",
    })
    expect(mailroom.adminToken).toBeUndefined()
    expect(mailroom.smtpUrl).toBeUndefined()
    expect(mailroom.secret).toBeUndefined()
    expect(mailroom.dnsServers).toBeUndefined()
  })

  it("reads SPF_INCLUDE and DMARC_REPORT_ADDRESS; unset, Mailroom derives them from APP_URL", () => {
    expect(readEnvironment({ SPF_INCLUDE: "_spf.Mail.example.com", DMARC_REPORT_ADDRESS: "reports@example.com" }).mailroom)
      .toMatchObject({ spfInclude: "_spf.mail.example.com", dmarcReportAddress: "reports@example.com" })
    const unset = readEnvironment({}).mailroom
    expect([unset.spfInclude, unset.dmarcReportAddress]).toEqual([undefined, undefined])
  })

  it("reads CRON_TOKEN and the canary's CANARY_ADDRESS, CANARY_FROM and CANARY_IMAP_URL; unset, none is passed", () => {
    expect(readEnvironment({
      CRON_TOKEN: "c", CANARY_ADDRESS: "canary@inbox.example.com", CANARY_FROM: "canary@mail.example.com",
      CANARY_IMAP_URL: "imaps://canary%40inbox.example.com:pw@imap.example.com/INBOX",
    }).mailroom).toMatchObject({
      cronToken: "c",
      canary: { address: "canary@inbox.example.com", from: "canary@mail.example.com", imapUrl: "imaps://canary%40inbox.example.com:pw@imap.example.com/INBOX" },
    })
    const unset = readEnvironment({}).mailroom
    expect([unset.cronToken, unset.canary]).toEqual([undefined, undefined])
  })

  it("reads SMTP_PROBE_PORT as the port of the validation handshake, unset when not given", () => {
    expect(readEnvironment({ SMTP_PROBE_PORT: "2525" }).mailroom.smtpProbePort).toBe(2525)
    expect(readEnvironment({}).mailroom.smtpProbePort).toBeUndefined()
  })

  it("reads DNS_SERVERS as a list of resolvers, IPv6 in brackets with a port", () => {
    expect(readEnvironment({ DNS_SERVERS: "127.0.0.1:5353, [::1]:53,1.1.1.1" }).mailroom.dnsServers)
      .toEqual(["127.0.0.1:5353", "[::1]:53", "1.1.1.1"])
  })

  it("maps every variable to its option; TRACK_URL defaults to APP_URL", () => {
    const { port, mailroom } = readEnvironment({
      PORT: "4000", DATABASE_URL: "memory:", APP_URL: "https://mail.example.com", MAILROOM_SECRET: "s3cret",
      ADMIN_TOKEN: "t", SMTP_URL: "smtps://u:p@relay.example.com:465", MAILROOM_UNSAFE_ALLOW_PRIVATE_URLS: "1",
      LOG_LEVEL: "WARN", LOG_FORMAT: "JSON", MAILROOM_CONFIRMATION: "Button",
    })
    expect(port).toBe(4000)
    expect(mailroom).toMatchObject({
      database: "memory:", appUrl: "https://mail.example.com", trackUrl: "https://mail.example.com", secret: "s3cret",
      adminToken: "t", smtpUrl: "smtps://u:p@relay.example.com:465", unsafeAllowPrivateUrls: true, logLevel: "warn",
      logFormat: "json", confirmation: "button",
    })
    expect(readEnvironment({ PORT: "4000" }).mailroom.appUrl).toBe("http://localhost:4000")
    expect(readEnvironment({ TRACK_URL: "https://t.example.com" }).mailroom.trackUrl).toBe("https://t.example.com")
  })

  it.each([
    ["PORT", "eighty", "PORT"],
    ["PORT", "70000", "PORT"],
    ["LOG_LEVEL", "loud", "LOG_LEVEL"],
    ["LOG_FORMAT", "xml", "LOG_FORMAT must be one of text, json"],
    ["MAILROOM_CONFIRMATION", "click", "MAILROOM_CONFIRMATION"],
    ["APP_URL", "mail.example.com", "APP_URL"],
    ["TRACK_URL", "ftp://t.example.com", "TRACK_URL"],
    ["SMTP_URL", "relay.example.com:25", "SMTP_URL"],
    ["TRUST_PROXY", "10.0.0.0/33", "TRUST_PROXY"],
    ["TRUST_PROXY", "proxy.internal", "TRUST_PROXY"],
    ["DNS_SERVERS", "dns.example.com", "DNS_SERVERS"],
    ["DNS_SERVERS", "127.0.0.1:99999", "DNS_SERVERS"],
    ["SPF_INCLUDE", "not a host", "SPF_INCLUDE"],
    ["DMARC_REPORT_ADDRESS", "dmarc.example.com", "DMARC_REPORT_ADDRESS"],
    ["CANARY_ADDRESS", "canary", "CANARY_ADDRESS"],
    ["CANARY_FROM", "canary@", "CANARY_FROM"],
    ["CANARY_IMAP_URL", "pop3://u:p@mail.example.com", "CANARY_IMAP_URL"],
    ["SMTP_PROBE_PORT", "smtp", "SMTP_PROBE_PORT"],
    ["SMTP_PROBE_PORT", "70000", "SMTP_PROBE_PORT"],
  ])("refuses a malformed %s (%s) with a message naming it", (name, value, named) => {
    expect(() => readEnvironment({ [name]: value })).toThrow(EnvironmentError)
    expect(() => readEnvironment({ [name]: value })).toThrow(named)
  })

  it.each([
    [undefined, undefined],
    ["false", undefined],
    ["true", true],
    ["2", 2],
    ["10.0.0.0/8, loopback ,fd00::/8,172.20.0.5", ["10.0.0.0/8", "loopback", "fd00::/8", "172.20.0.5"]],
  ] as const)("reads TRUST_PROXY=%s as %j", (value, trustProxy) => {
    expect(readEnvironment(value === undefined ? {} : { TRUST_PROXY: value }).mailroom.trustProxy).toEqual(trustProxy)
  })

  it.each([
    "smtp://mailer:hunter2@relay.example.com:port",
    "smtps://mailer:hunter2@relay.example.com?tls=off",
    "http://mailer:hunter2@relay.example.com",
    "mailer:hunter2@relay.example.com:25",
  ])("refuses the malformed SMTP_URL %s without repeating its password", (value) => {
    expect(() => readEnvironment({ SMTP_URL: value })).toThrow(EnvironmentError)
    expect(() => readEnvironment({ SMTP_URL: value })).toThrow(/^SMTP_URL: .*mailer:\*\*\*@relay\.example\.com/)
    expect(() => readEnvironment({ SMTP_URL: value })).not.toThrow(/hunter2/)
  })
})
