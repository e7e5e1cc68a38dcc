/** The settings of createMailroom, and the choice of backend its `database` URL makes. CONTRACT.md lists the
 *  environment variables a starter maps onto these fields. The HTTP layer's own options (request rates, trusted
 *  proxies) join them in create-mailroom.ts, the one module of the facade that builds on @mailroom/http. */
import type { AlertWebhookOptions } from "./alert-webhook.js"
import type { CanaryAlert, CanaryOptions, DeliveryOptions, GeoService, Ids, Mailer, Store, TrackingOptions } from "@mailroom/core"
import type { NodeDnsOptions } from "@mailroom/net"
import type { TemplateEngineOptions } from "@mailroom/templates"
import type { Layer } from "effect"

export interface MailroomSettings {
  /** `sqlite:PATH`, `postgres://…` / `postgresql://…`, or `memory:`. Default `sqlite:.data/mailroom.sqlite`. */
  readonly database?: string
  /** SQLite durability: FULL (default) survives power loss; NORMAL commits faster. */
  readonly sqliteSynchronous?: "FULL" | "NORMAL"
  /** Enables the operator API under /admin, which then requires `Authorization: Bearer <adminToken>`. */
  readonly adminToken?: string
  /** Origin of hosted pages (confirmation, preference centre, forms). */
  readonly appUrl?: string
  /** Origin of tracking and unsubscribe links. Default: appUrl. */
  readonly trackUrl?: string
  /** Key for signed tokens. Default: generated once and kept in the database. */
  readonly secret?: string
  /** Sender address of double opt-in confirmation mail (the display name is the account's name). Default:
   *  confirm@mailroom.localhost, which a real relay will likely refuse: set it when `smtpUrl` is set. */
  readonly confirmationFrom?: string
  /** What following a double opt-in confirmation link does. `link` (default): a person's browser confirms at once;
   *  HEAD requests, prefetches, crawlers, link previewers and headless browsers see a page whose button confirms.
   *  `button`: everyone sees the button (no mail scanner can confirm, at the cost of a second click). See
   *  docs/consent.md, "Link scanners". */
  readonly confirmation?: "link" | "button"
  /** `smtp://user:pass@host:port` or `smtps://…` (query parameters in docs/mail-delivery.md); unset keeps mail in the
   *  dev outbox. createMailroom throws SmtpUrlError, without the password, when it cannot be used. */
  readonly smtpUrl?: string
  /** The host's own Mailer instead of SMTP or the dev outbox (say `SmtpMailer.layer(options)`, or a provider's API).
   *  It may use Mailroom's Store and Ids. Not together with `smtpUrl`. */
  readonly mailer?: Layer.Layer<Mailer, unknown, Store | Ids>
  /** The DNS servers every lookup asks (domain verification, MX hosts, webhook hosts), as `host` or `host:port`
   *  (IPv6 in brackets with a port). Default: the system's resolvers. createMailroom throws DnsServersError for an
   *  entry it cannot use. */
  readonly dnsServers?: ReadonlyArray<string>
  /** How DNS lookups wait and cache: `{ timeoutMs, tries, cache }` as @mailroom/net's NodeDns takes them (cache false
   *  turns the cache off). Default: 2 000 ms, 2 tries, the cache of docs/embedding.md, "DNS lookups". */
  readonly dns?: Omit<NodeDnsOptions, "servers" | "now">
  /** The host named in the `include:` of the SPF record a sending domain is asked to publish. Default `_spf.` + the
   *  host of appUrl. */
  readonly spfInclude?: string
  /** The `rua=mailto:` address of the DMARC record a sending domain is asked to publish. Default `dmarc@` + the host of
   *  appUrl. */
  readonly dmarcReportAddress?: string
  /** Who may send: `"allow-unverified"` (the default: any From domain; only verified domains' mail is signed) or
   *  `"verified-only"` (a send from a domain that is not a verified domain of the account answers 403
   *  SENDER_DOMAIN_NOT_VERIFIED). See docs/domains.md. */
  readonly senderPolicy?: "allow-unverified" | "verified-only"
  /** The template engine's tuning: how many compiled releases to keep (`cacheSize`, default 1 000) and the MJML
   *  limits (`mjml.deadlineMs`, default 5 000). See docs/templates.md, "The engine". */
  readonly templates?: TemplateEngineOptions
  /** The port of the SMTP handshake of address validation (`extended: true`): the best MX host of the address's domain
   *  is asked on it. Default 25 (the starter's SMTP_PROBE_PORT). See docs/validation.md. */
  readonly smtpProbePort?: number
  /** Relaxes the webhook URL rules (http://, private addresses) for local development only. */
  readonly unsafeAllowPrivateUrls?: boolean
  /** The least level logged. Default "info": one line per request, per delivery outcome and per failed job attempt.
   *  See docs/logging.md. */
  readonly logLevel?: "debug" | "info" | "warn" | "error"
  /** "text" (default): one key=value line per entry; "json": one JSON object per line. Lines go to stderr, with keys,
   *  tokens, secrets, passwords and address local parts masked. */
  readonly logFormat?: "text" | "json"
  /** Record spans: one per service call (`Contacts.create`) and one per SQL statement, for a host that exports traces
   *  from `runtime` or `layer`. Off by default: spans cost every request time and nobody reads them otherwise. */
  readonly tracing?: boolean
  /** Run the background work in this process: the outbox relay (events to webhooks) and the job workers. Default
   *  true. On Postgres, several processes may run it side by side; a host can also keep it to dedicated worker
   *  processes and set false in its web processes. */
  readonly backgroundWork?: boolean
  /** How long close() waits for running jobs to finish before interrupting them (they are retried later). Default
   *  30 000. */
  readonly shutdownGraceMillis?: number
  /** How sent messages are delivered: DKIM keys per sender domain, the envelope sender (bounce address), the
   *  List-Unsubscribe mailbox, jobs at once. See docs/sending.md, "Delivery". */
  readonly delivery?: DeliveryOptions
  /** Open and click tracking: extra Apple and scanner address ranges, how often hits are written (docs/tracking.md). */
  readonly tracking?: TrackingOptions
  /** The country of a tracking hit, for the analytics. Default: a trusted proxy's CDN country header (docs/tracking.md,
   *  "Country"); a host plugs a GeoIP database lookup in here. */
  readonly geo?: GeoService
  /** Largest JSON request body in bytes. Default 8 MiB. */
  readonly bodyLimitBytes?: number
  /** Enables POST /api/cron/email-canary, the delivery canary, which then requires `Authorization: Bearer <cronToken>`
   *  (CRON_TOKEN). Unset, the route answers 404 and nothing watches for a stale canary. See docs/canary.md. */
  readonly cronToken?: string
  /** The delivery canary: where it sends (`address`, CANARY_ADDRESS; `from`, CANARY_FROM), where it reads the message
   *  back (`imapUrl`, CANARY_IMAP_URL: `imaps://user:password@host/INBOX`; unset, the dev outbox while mail stays
   *  there), how long it waits. See docs/canary.md. */
  readonly canary?: CanaryOptions & { readonly imapUrl?: string | undefined }
  /** Operator alerts (email_canary_failed, email_canary_stale): each is logged, then handed to `notify` when given (a
   *  pager, a chat webhook, mail to the operator), or POSTed to `webhook` (ALERT_WEBHOOK_URL, signed with
   *  ALERT_WEBHOOK_SECRET; docs/canary.md). A notifier that fails is logged. */
  readonly alerts?:
    | { readonly notify: (alert: CanaryAlert) => Promise<void> | void }
    | { readonly webhook: AlertWebhookOptions }
}

export const defaultDatabase = "sqlite:.data/mailroom.sqlite"

export type DatabaseChoice =
  | { readonly kind: "memory" }
  | { readonly kind: "sqlite"; readonly filename: string }
  | { readonly kind: "postgres"; readonly url: string }

/** Reads a `database` URL. `sqlite:` takes a path (`sqlite:data/app.db`, `sqlite:///var/lib/app.db`, `sqlite::memory:`).
 *  Throws on anything else, so that a typo fails at startup rather than at the first request. */
export const parseDatabase = (url: string): DatabaseChoice => {
  const trimmed = url.trim()
  if (trimmed === "memory:") return { kind: "memory" }
  if (/^postgres(ql)?:\/\//.test(trimmed)) return { kind: "postgres", url: trimmed }
  if (trimmed.startsWith("sqlite:")) {
    const rest = trimmed.slice("sqlite:".length)
    const filename = rest.startsWith("//") ? rest.slice(2) : rest
    if (filename === "") throw new Error("the sqlite: database names no file: use sqlite:PATH")
    return { kind: "sqlite", filename }
  }
  // Only the scheme is repeated: the rest of a mistyped URL may hold a password.
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(trimmed)?.[0] ?? "(no scheme)"
  throw new Error(`database scheme ${scheme} is not supported: use sqlite:PATH, postgres://…, postgresql://… or memory:`)
}
