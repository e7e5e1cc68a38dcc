/** How Mailroom reaches an SMTP relay: options, and the `smtp://` / `smtps://` URL form of SMTP_URL. */

export interface SmtpOptions {
  readonly host: string
  /** Default 465 with `secure`, 587 otherwise. */
  readonly port?: number | undefined
  /** TLS from the first byte (smtps://, usually port 465). Default false. */
  readonly secure?: boolean | undefined
  /** Without `secure`: `opportunistic` (default) upgrades with STARTTLS when the relay offers it, `required` refuses to
   *  send over a relay that does not, `never` stays in plain text. */
  readonly starttls?: "opportunistic" | "required" | "never" | undefined
  /** Refuse a relay whose TLS certificate does not verify. Default true; false only for a relay you trust by address
   *  (a self-signed relay on a private network). */
  readonly rejectUnauthorized?: boolean | undefined
  readonly auth?: { readonly user: string; readonly pass: string } | undefined
  /** Most connections open to the relay at once. Default 5. */
  readonly maxConnections?: number | undefined
  /** Messages sent over one connection before it is replaced. Default 100. */
  readonly maxMessagesPerConnection?: number | undefined
  /** An idle pooled connection is closed after this long. Default 30 s. */
  readonly idleTimeoutMs?: number | undefined
  /** How long to wait for the TCP (and TLS) connection. Default 10 s. */
  readonly connectionTimeoutMs?: number | undefined
  /** How long to wait for the relay's greeting. Default 10 s. */
  readonly greetingTimeoutMs?: number | undefined
  /** How long the connection may stay silent while a reply is awaited. Default 60 s. */
  readonly socketTimeoutMs?: number | undefined
  /** The name announced in EHLO. Default: this machine's host name. */
  readonly clientName?: string | undefined
}

/** SMTP_URL (or the `smtpUrl` option) cannot be used. The message never repeats a password. */
export class SmtpUrlError extends Error {
  override readonly name = "SmtpUrlError"
}

/** `url` with the password of its user information replaced by `***`, also when the URL does not parse. */
export const redactUrl = (url: string): string => {
  const at = url.lastIndexOf("@")
  if (at < 0) return url
  const slashes = url.indexOf("//")
  const start = slashes >= 0 && slashes < at ? slashes + 2 : 0
  const colon = url.indexOf(":", start)
  if (colon < 0 || colon > at) return url
  return `${url.slice(0, colon)}:***${url.slice(at)}`
}

const flag = (name: string, value: string): boolean => {
  if (value === "true" || value === "1") return true
  if (value === "false" || value === "0") return false
  throw new SmtpUrlError(`${name} must be true or false, not "${value}"`)
}

const positive = (name: string, value: string): number => {
  const number = Number(value)
  if (!/^\d+$/.test(value) || number < 1) throw new SmtpUrlError(`${name} must be a positive whole number, not "${value}"`)
  return number
}

const starttlsModes = ["opportunistic", "required", "never"] as const

/** Query parameters an SMTP URL may carry, and the option each one sets. */
const parameters: Record<string, (value: string) => Partial<SmtpOptions>> = {
  starttls: (value) => {
    const mode = starttlsModes.find((candidate) => candidate === value)
    if (mode === undefined) throw new SmtpUrlError(`starttls must be one of ${starttlsModes.join(", ")}, not "${value}"`)
    return { starttls: mode }
  },
  rejectUnauthorized: (value) => ({ rejectUnauthorized: flag("rejectUnauthorized", value) }),
  maxConnections: (value) => ({ maxConnections: positive("maxConnections", value) }),
  maxMessages: (value) => ({ maxMessagesPerConnection: positive("maxMessages", value) }),
  idleTimeout: (value) => ({ idleTimeoutMs: positive("idleTimeout", value) }),
  connectionTimeout: (value) => ({ connectionTimeoutMs: positive("connectionTimeout", value) }),
  greetingTimeout: (value) => ({ greetingTimeoutMs: positive("greetingTimeout", value) }),
  socketTimeout: (value) => ({ socketTimeoutMs: positive("socketTimeout", value) }),
  name: (value) => ({ clientName: value }),
}

/** Reads `smtp://user:pass@host:port` or `smtps://…`. User and password are percent-decoded. Query parameters:
 *  `starttls` (opportunistic, required, never), `rejectUnauthorized` (true, false), `maxConnections`, `maxMessages`,
 *  `idleTimeout`, `connectionTimeout`, `greetingTimeout`, `socketTimeout` (milliseconds) and `name` (EHLO name).
 *  Throws SmtpUrlError, without the password, for anything else. */
export const parseSmtpUrl = (url: string): SmtpOptions => {
  const trimmed = url.trim()
  const shown = `"${redactUrl(trimmed)}"`
  const problem = (detail: string) =>
    new SmtpUrlError(`the SMTP URL ${shown} ${detail}: use smtp://user:pass@host:port or smtps://user:pass@host:port`)
  if (!URL.canParse(trimmed)) throw problem("is not a URL")
  const parsed = new URL(trimmed)
  if (parsed.protocol !== "smtp:" && parsed.protocol !== "smtps:") throw problem(`has the scheme ${parsed.protocol}`)
  if (parsed.hostname === "") throw problem("names no host")
  if (parsed.pathname !== "" && parsed.pathname !== "/") throw problem("has a path")
  let options: SmtpOptions = {
    host: parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname,
    secure: parsed.protocol === "smtps:",
    ...(parsed.port === "" ? {} : { port: Number(parsed.port) }),
  }
  try {
    if (parsed.username !== "" || parsed.password !== "") {
      options = { ...options, auth: { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } }
    }
  } catch {
    throw problem("has user information that is not percent-encoded correctly")
  }
  for (const [name, value] of parsed.searchParams) {
    const parameter = parameters[name]
    if (parameter === undefined) throw problem(`has an unknown parameter ${name} (known: ${Object.keys(parameters).join(", ")})`)
    try {
      options = { ...options, ...parameter(value) }
    } catch (error) {
      throw error instanceof SmtpUrlError ? problem(`has a bad parameter: ${error.message}`) : error
    }
  }
  if (options.secure && options.starttls !== undefined) throw problem("sets starttls, which smtps:// does not use")
  return options
}
