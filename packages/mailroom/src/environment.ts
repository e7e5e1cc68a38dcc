// The starter's configuration: every environment variable of the operator contract, mapped to createMailroom's
// options. Unset variables keep Mailroom's defaults; malformed ones stop the process with a message. The starter and
// the `mailroom` command both read it, so that they agree on what DATABASE_URL and the rest mean.
import { DnsServersError, parseDnsServers } from "@mailroom/net"
import { ImapUrlError, parseImapUrl, parseSmtpUrl, SmtpUrlError } from "@mailroom/smtp"
import { isIP } from "node:net"
import { AlertWebhookError, type AlertWebhookOptions, checkAlertWebhook } from "./alert-webhook.js"
import { parseDatabase } from "./config.js"
import type { MailroomConfig, TrustProxy } from "./create-mailroom.js"

export interface StarterEnvironment {
  readonly port: number
  readonly host: string
  readonly mailroom: MailroomConfig & { readonly database: string }
}

const logLevels = ["debug", "info", "warn", "error"] as const
type LogLevel = (typeof logLevels)[number]
const logFormats = ["text", "json"] as const
type LogFormat = (typeof logFormats)[number]

/** A variable that is missing or empty counts as unset. */
const valueOf = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const value = env[name]?.trim()
  return value === undefined || value === "" ? undefined : value
}

/** Thrown for a variable that is set to something the starter cannot use. */
export class EnvironmentError extends Error {}

const parsePort = (value: string | undefined): number => {
  if (value === undefined) return 3000
  const port = Number(value)
  if (!/^\d+$/.test(value) || port > 65535) throw new EnvironmentError(`PORT must be a TCP port (0-65535), not "${value}"`)
  return port
}

const parseLogLevel = (value: string | undefined): LogLevel => {
  if (value === undefined) return "info"
  const level = value.toLowerCase()
  if (!(logLevels as ReadonlyArray<string>).includes(level)) {
    throw new EnvironmentError(`LOG_LEVEL must be one of ${logLevels.join(", ")}, not "${value}"`)
  }
  return level as LogLevel
}

const parseLogFormat = (value: string | undefined): LogFormat => {
  if (value === undefined) return "text"
  const format = value.toLowerCase()
  if (!(logFormats as ReadonlyArray<string>).includes(format)) {
    throw new EnvironmentError(`LOG_FORMAT must be one of ${logFormats.join(", ")}, not "${value}"`)
  }
  return format as LogFormat
}

/** A URL variable with one of `protocols`, or the error that names the variable. */
const parseUrl = (name: string, value: string | undefined, protocols: ReadonlyArray<string>): string | undefined => {
  if (value === undefined) return undefined
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (url === undefined || !protocols.includes(url.protocol)) {
    throw new EnvironmentError(`${name} must be a ${protocols.map((p) => `${p}//`).join(" or ")} URL, not "${value}"`)
  }
  return value
}

/** MAILROOM_CONFIRMATION: `link` (the default: a person's browser confirms on following the link) or `button` (the
 *  page's button confirms, for everyone). */
const parseConfirmation = (value: string | undefined): "link" | "button" => {
  if (value === undefined) return "link"
  const mode = value.toLowerCase()
  if (mode !== "link" && mode !== "button") {
    throw new EnvironmentError(`MAILROOM_CONFIRMATION must be link or button, not "${value}"`)
  }
  return mode
}

const proxyNames = ["loopback", "linklocal", "uniquelocal"]

/** TRUST_PROXY: unset or `false` trusts no proxy; `true` every hop; a number that many hops; otherwise a
 *  comma-separated list of addresses, CIDR ranges and the names loopback, linklocal, uniquelocal. */
const parseTrustProxy = (value: string | undefined): TrustProxy | undefined => {
  if (value === undefined || value.toLowerCase() === "false") return undefined
  if (value.toLowerCase() === "true") return true
  if (/^\d+$/.test(value)) return Number(value)
  const entries = value.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")
  for (const entry of entries) {
    const [address = "", bits, ...rest] = entry.split("/")
    const version = isIP(address)
    const validBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (version === 6 ? 128 : 32))
    if (!proxyNames.includes(entry.toLowerCase()) && (version === 0 || !validBits || rest.length > 0)) {
      throw new EnvironmentError(
        `TRUST_PROXY must be true, false, a number of hops, or addresses, CIDR ranges and loopback, linklocal, uniquelocal separated by commas; "${entry}" is none of them`,
      )
    }
  }
  return entries
}

/** DATABASE_URL as given, once Mailroom can tell which backend it names; the refusal never repeats a password. */
const parseDatabaseUrl = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  try {
    const choice = parseDatabase(value)
    if (choice.kind === "postgres" && !URL.canParse(choice.url)) {
      throw new EnvironmentError(
        "DATABASE_URL is not a valid postgres:// URL: write it as postgres://user:password@host:5432/database, " +
          "with any special character of the password percent-encoded",
      )
    }
    return value
  } catch (error) {
    if (error instanceof EnvironmentError) throw error
    throw new EnvironmentError(`DATABASE_URL: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/** SMTP_URL as given, once Mailroom can use it; the refusal never repeats the URL's password. */
const parseSmtp = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  try {
    parseSmtpUrl(value)
    return value
  } catch (error) {
    if (error instanceof SmtpUrlError) throw new EnvironmentError(`SMTP_URL: ${error.message}`)
    throw error
  }
}

/** DNS_SERVERS as a list of servers, once each entry is one Node's resolver can use. */
const parseDns = (value: string | undefined): ReadonlyArray<string> | undefined => {
  if (value === undefined) return undefined
  try {
    return parseDnsServers(value)
  } catch (error) {
    if (error instanceof DnsServersError) throw new EnvironmentError(`DNS_SERVERS: ${error.message}`)
    throw error
  }
}

/** SPF_INCLUDE: a host name (the `include:` of the SPF record domains publish). */
const parseSpfInclude = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  if (!/^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/i.test(value)) {
    throw new EnvironmentError(`SPF_INCLUDE must be a host name such as _spf.mail.example.com, not "${value}"`)
  }
  return value.toLowerCase()
}

/** DMARC_REPORT_ADDRESS: the address of the `rua=mailto:` of the DMARC record domains publish. */
const parseReportAddress = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  if (!/^[^\s@;,!]+@[a-z0-9.-]+\.[a-z0-9-]{2,}$/i.test(value)) {
    throw new EnvironmentError(`DMARC_REPORT_ADDRESS must be an email address such as dmarc@mail.example.com, not "${value}"`)
  }
  return value
}

/** An email address variable (CANARY_ADDRESS, CANARY_FROM). */
const parseAddress = (name: string, value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  if (!/^[^\s@;,!<>]+@[a-z0-9.-]+\.[a-z0-9-]{2,}$/i.test(value)) {
    throw new EnvironmentError(`${name} must be an email address such as canary@mail.example.com, not "${value}"`)
  }
  return value
}

/** CANARY_IMAP_URL as given, once Mailroom can use it; the refusal never repeats the URL's password. */
const parseImap = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  try {
    parseImapUrl(value)
    return value
  } catch (error) {
    if (error instanceof ImapUrlError) throw new EnvironmentError(`CANARY_IMAP_URL ${error.message}`)
    throw error
  }
}

/** The delivery canary's settings (docs/canary.md): CANARY_ADDRESS, CANARY_FROM and CANARY_IMAP_URL. */
const readCanary = (env: NodeJS.ProcessEnv) => {
  const address = parseAddress("CANARY_ADDRESS", valueOf(env, "CANARY_ADDRESS"))
  const from = parseAddress("CANARY_FROM", valueOf(env, "CANARY_FROM"))
  const imapUrl = parseImap(valueOf(env, "CANARY_IMAP_URL"))
  return {
    ...(address === undefined ? {} : { address }),
    ...(from === undefined ? {} : { from }),
    ...(imapUrl === undefined ? {} : { imapUrl }),
  }
}

/** ALERT_WEBHOOK_URL and ALERT_WEBHOOK_SECRET: where operator alerts are POSTed, and the secret that signs them. */
const readAlertWebhook = (env: NodeJS.ProcessEnv): AlertWebhookOptions | undefined => {
  const url = valueOf(env, "ALERT_WEBHOOK_URL")
  const secret = valueOf(env, "ALERT_WEBHOOK_SECRET")
  if (url === undefined) {
    if (secret !== undefined) throw new EnvironmentError("ALERT_WEBHOOK_SECRET is set but ALERT_WEBHOOK_URL is not: set both, or neither")
    return undefined
  }
  try {
    checkAlertWebhook({ url, secret })
  } catch (error) {
    if (error instanceof AlertWebhookError) throw new EnvironmentError(error.message)
    throw error
  }
  return { url, ...(secret === undefined ? {} : { secret }) }
}

/** SMTP_PROBE_PORT: the port of the SMTP handshake of address validation. */
const parseProbePort = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) < 1 || Number(value) > 65_535) {
    throw new EnvironmentError(`SMTP_PROBE_PORT must be a TCP port from 1 to 65535, not "${value}"`)
  }
  return Number(value)
}

/** Reads PORT, HOST, DATABASE_URL, APP_URL, TRACK_URL, MAILROOM_SECRET, ADMIN_TOKEN, SMTP_URL,
 *  MAILROOM_UNSAFE_ALLOW_PRIVATE_URLS, LOG_LEVEL, LOG_FORMAT, DNS_SERVERS, SPF_INCLUDE, DMARC_REPORT_ADDRESS, CRON_TOKEN and SMTP_PROBE_PORT, with the
 *  defaults of the operator contract, CANARY_ADDRESS, CANARY_FROM, CANARY_IMAP_URL, ALERT_WEBHOOK_URL and
 *  ALERT_WEBHOOK_SECRET (the delivery canary and its alerts; see docs/canary.md), TRUST_PROXY (which proxies may report the client's address; see docs/embedding.md) and
 *  MAILROOM_CONFIRMATION (what following a confirmation link does; see docs/consent.md). */
export const readEnvironment = (env: NodeJS.ProcessEnv): StarterEnvironment => {
  const port = parsePort(valueOf(env, "PORT"))
  const appUrl = parseUrl("APP_URL", valueOf(env, "APP_URL"), ["http:", "https:"]) ?? `http://localhost:${port}`
  const trackUrl = parseUrl("TRACK_URL", valueOf(env, "TRACK_URL"), ["http:", "https:"]) ?? appUrl
  const secret = valueOf(env, "MAILROOM_SECRET")
  const adminToken = valueOf(env, "ADMIN_TOKEN")
  const smtpUrl = parseSmtp(valueOf(env, "SMTP_URL"))
  const trustProxy = parseTrustProxy(valueOf(env, "TRUST_PROXY"))
  const dnsServers = parseDns(valueOf(env, "DNS_SERVERS"))
  const spfInclude = parseSpfInclude(valueOf(env, "SPF_INCLUDE"))
  const dmarcReportAddress = parseReportAddress(valueOf(env, "DMARC_REPORT_ADDRESS"))
  const smtpProbePort = parseProbePort(valueOf(env, "SMTP_PROBE_PORT"))
  const database = parseDatabaseUrl(valueOf(env, "DATABASE_URL")) ?? "sqlite:.data/mailroom.sqlite"
  const cronToken = valueOf(env, "CRON_TOKEN")
  const canary = readCanary(env)
  const alertWebhook = readAlertWebhook(env)
  return {
    port,
    host: valueOf(env, "HOST") ?? "127.0.0.1",
    mailroom: {
      database,
      appUrl,
      trackUrl,
      // Unset means Mailroom generates a secret once and keeps it in the database.
      ...(secret === undefined ? {} : { secret }),
      // Unset leaves the operator API at /admin disabled.
      ...(adminToken === undefined ? {} : { adminToken }),
      // Unset: POST /api/cron/email-canary answers 404.
      ...(cronToken === undefined ? {} : { cronToken }),
      // Unset: canary@ the host of APP_URL, read back from the dev outbox (no IMAP mailbox).
      ...(Object.keys(canary).length === 0 ? {} : { canary }),
      // Unset: alerts are only logged.
      ...(alertWebhook === undefined ? {} : { alerts: { webhook: alertWebhook } }),
      // Unset sends mail to the dev outbox.
      ...(smtpUrl === undefined ? {} : { smtpUrl }),
      unsafeAllowPrivateUrls: valueOf(env, "MAILROOM_UNSAFE_ALLOW_PRIVATE_URLS") === "1",
      logLevel: parseLogLevel(valueOf(env, "LOG_LEVEL")),
      logFormat: parseLogFormat(valueOf(env, "LOG_FORMAT")),
      // Unset: _spf. and dmarc@ the host of APP_URL.
      ...(spfInclude === undefined ? {} : { spfInclude }),
      ...(dmarcReportAddress === undefined ? {} : { dmarcReportAddress }),
      // Unset: 25, the port mail servers listen on.
      ...(smtpProbePort === undefined ? {} : { smtpProbePort }),
      // Unset asks the system's resolvers.
      ...(dnsServers === undefined ? {} : { dnsServers }),
      confirmation: parseConfirmation(valueOf(env, "MAILROOM_CONFIRMATION")),
      // Unset believes no proxy: X-Forwarded-For is ignored.
      ...(trustProxy === undefined ? {} : { trustProxy }),
    },
  }
}

/** readEnvironment(env), or a message on stderr and exit code 1 when a variable is malformed. */
export const readEnvironmentOrExit = (env: NodeJS.ProcessEnv): StarterEnvironment => {
  try {
    return readEnvironment(env)
  } catch (error) {
    if (!(error instanceof EnvironmentError)) throw error
    console.error(error.message)
    return process.exit(1)
  }
}

/** The database URL without its password, for messages. */
export const displayDatabase = (database: string): string => {
  if (!/^postgres(ql)?:\/\//.test(database)) return database
  const url = new URL(database)
  if (url.password !== "") url.password = "***"
  return url.toString()
}
