/** Address validation: the inputs of POST /emails/validate and /emails/validate/bulk with their limits, the checks an
 *  answer carries, and the pure rules behind them (mail hosts from MX records, role accounts, disposable domains,
 *  typo suggestions, the verdict). Spec: sending "Endpoints" (Validate), "Limits". The lookups live in the service. */
import { run as suggestDomain } from "@zootools/email-spell-checker"
import { disposableEmailBlocklistSet } from "disposable-email-domains-js"
import { Schema } from "effect"
import { parse as parseDomain } from "tldts"
import type { AccountId } from "./account.js"

export const validationLimits = {
  minTimeoutMs: 1_000,
  maxTimeoutMs: 60_000,
  /** Default `timeout` of POST /emails/validate. */
  timeoutMs: 10_000,
  /** Default `timeout` of POST /emails/validate/bulk. */
  bulkTimeoutMs: 30_000,
  maxBulkEmails: 10_000,
  /** Longest string accepted as an address to check (longer is refused as input; 255 to 1000 answer syntax false). */
  maxInputLength: 1_000,
  /** Addresses checked together in one step of a bulk job, and stored whole: its progress moves by multiples of this. */
  bulkChunkSize: 500,
  /** A bulk job runs in slices: a run checks chunks until this long has passed (or `bulkSliceChunks` chunks), stores
   *  them with its progress and queues the next slice. */
  bulkProgressIntervalMs: 1_000,
  /** The most chunks one slice of a bulk job checks. */
  bulkSliceChunks: 4,
  /** Addresses of one bulk job checked at a time (their lookups are cached per domain). */
  bulkConcurrency: 50,
  /** SMTP sessions opened at a time to one MX host by one job: mailbox providers throttle probing hosts. */
  probesPerMxHost: 2,
} as const

const timeoutField = (fallback: number) =>
  Schema.optionalWith(
    Schema.Int.pipe(Schema.between(validationLimits.minTimeoutMs, validationLimits.maxTimeoutMs, {
      message: () => `must be an integer number of milliseconds from ${validationLimits.minTimeoutMs} to ${validationLimits.maxTimeoutMs}`,
    })),
    { default: () => fallback },
  )

const AddressText = Schema.String.pipe(Schema.maxLength(validationLimits.maxInputLength, {
  message: () => `must be at most ${validationLimits.maxInputLength} characters`,
}))

/** Body of POST /emails/validate. */
export const ValidateInput = Schema.Struct({
  email: AddressText,
  extended: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  timeout: timeoutField(validationLimits.timeoutMs),
})
export type ValidateInput = typeof ValidateInput.Type

/** Body of POST /emails/validate/bulk. */
export const BulkValidateInput = Schema.Struct({
  emails: Schema.Array(AddressText).pipe(
    Schema.minItems(1, { message: () => "must hold at least one address" }),
    Schema.maxItems(validationLimits.maxBulkEmails, { message: () => `must hold at most ${validationLimits.maxBulkEmails} addresses` }),
  ),
  extended: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  timeout: timeoutField(validationLimits.bulkTimeoutMs),
  continueOnError: Schema.optionalWith(Schema.Boolean, { default: () => true }),
})
export type BulkValidateInput = typeof BulkValidateInput.Type

/** What each check found. `mxRecords` null: the lookup failed (see the verdict's error); `smtpHandshake` and `catchAll`
 *  null: not asked (no `extended`) or no clear answer (4xx, timeout, refused connection). */
export const AddressChecks = Schema.Struct({
  syntax: Schema.Boolean,
  mxRecords: Schema.NullOr(Schema.Boolean),
  smtpHandshake: Schema.NullOr(Schema.Boolean),
  disposable: Schema.Boolean,
  roleAccount: Schema.Boolean,
  catchAll: Schema.NullOr(Schema.Boolean),
})
export type AddressChecks = typeof AddressChecks.Type

/** The answer for one address. */
export const AddressVerdict = Schema.Struct({
  email: Schema.String,
  valid: Schema.Boolean,
  checks: AddressChecks,
  suggestion: Schema.NullOr(Schema.String),
  /** Why the address is not valid, in words; null when it is. */
  reason: Schema.NullOr(Schema.String),
  /** A check that could not be made (bulk only; a single validation fails with it instead). */
  error: Schema.NullOr(Schema.Struct({ code: Schema.String, message: Schema.String })),
})
export type AddressVerdict = typeof AddressVerdict.Type

/** Where mail for a domain goes, from its MX records (RFC 5321 5.1): the exchanges by preference; `implicit` when the
 *  domain has no MX record, so the domain itself is the host if it has an address; `none` for a null MX (RFC 7505: a
 *  single MX whose exchange is the root, `0 .`), which says the domain takes no mail. */
export type MailHosts =
  | { readonly _tag: "exchanges"; readonly hosts: ReadonlyArray<string> }
  | { readonly _tag: "implicit" }
  | { readonly _tag: "none" }

export const mailHostsOf = (records: ReadonlyArray<{ readonly exchange: string; readonly priority: number }>): MailHosts => {
  if (records.length === 0) return { _tag: "implicit" }
  const isRoot = (exchange: string) => exchange === "" || exchange === "."
  if (records.some((record) => isRoot(record.exchange))) return { _tag: "none" }
  const hosts = [...records].sort((a, b) => a.priority - b.priority).map((record) => record.exchange.replace(/\.$/, "").toLowerCase())
  return { _tag: "exchanges", hosts }
}

/** Local parts that name a function rather than a person (RFC 2142 and common practice): mail to them reaches a
 *  team, is often filtered, and complaints from them count heavily. */
export const roleAccounts: ReadonlySet<string> = new Set([
  "abuse", "accounting", "accounts", "admin", "administrator", "all", "billing", "careers", "contact", "customerservice",
  "devnull", "dns", "do-not-reply", "donotreply", "enquiries", "everyone", "feedback", "finance", "ftp", "hello", "help",
  "helpdesk", "hostmaster", "hr", "info", "inquiries", "jobs", "legal", "list", "mail", "mailer-daemon", "marketing",
  "media", "news", "newsletter", "no-reply", "noc", "noreply", "office", "orders", "postmaster", "press", "privacy",
  "root", "sales", "security", "service", "support", "sysadmin", "team", "usenet", "uucp", "webmaster", "www",
])

/** Whether the local part is a role account; a `+tag` and letter case do not matter. */
export const isRoleAccount = (localPart: string): boolean =>
  roleAccounts.has(localPart.replace(/^"|"$/g, "").split("+")[0]!.toLowerCase())

let disposableDomains: ReadonlySet<string> | undefined

/** Whether the domain, or a domain it is under, is on the disposable-domains list (disposable-email-domains-js). The
 *  list is read on first use. */
export const isDisposableDomain = (domain: string): boolean => {
  disposableDomains ??= disposableEmailBlocklistSet()
  const labels = domain.split(".")
  for (let at = 0; at < labels.length - 1; at++) if (disposableDomains.has(labels.slice(at).join("."))) return true
  return false
}

/** The domain a likely typo meant (gmial.com -> gmail.com), with @zootools/email-spell-checker, which looks at the
 *  domain only; null when nothing better is known. A suggestion must end in a public suffix of the ICANN list: the
 *  checker otherwise turns any unknown name into a neighbour (mx.example -> mail.example). */
export const suggestedDomain = (domain: string): string | null => {
  const found = suggestDomain({ email: `mailbox@${domain}` })
  if (found === undefined || found.domain === domain) return null
  return parseDomain(found.domain).isIcann === true ? found.domain : null
}

/** Valid: the syntax holds, the domain takes mail, and no mail server refused the mailbox. Disposable and role
 *  addresses are valid (they receive mail): their flags let the caller decide. A catch-all domain's accepted address
 *  is valid too, flagged by `catchAll`. */
export const isValidAddress = (checks: AddressChecks): boolean =>
  checks.syntax && checks.mxRecords === true && checks.smtpHandshake !== false

/** Why checks that are not valid are not, in words. */
export const invalidReason = (checks: AddressChecks, syntaxProblem: string | null): string | null => {
  if (!checks.syntax) return syntaxProblem ?? "the address is not well formed"
  if (checks.mxRecords === null) return "the domain's mail servers could not be looked up"
  if (!checks.mxRecords) return "the domain takes no mail: it has no MX record and no address, or a null MX"
  if (checks.smtpHandshake === false) return "the domain's mail server refused the mailbox"
  return null
}

export const ValidationJobStatus = Schema.Literal("queued", "running", "completed", "failed")
export type ValidationJobStatus = typeof ValidationJobStatus.Type

export const ValidationJobId = Schema.String.pipe(Schema.brand("ValidationJobId"))
export type ValidationJobId = typeof ValidationJobId.Type

/** Why a bulk job stopped: the first failing lookup, when `continueOnError` is false. */
export const ValidationJobError = Schema.Struct({ code: Schema.String, message: Schema.String, email: Schema.String })
export type ValidationJobError = typeof ValidationJobError.Type

/** A bulk validation: its request, and how far it is. Results are kept beside it, a chunk at a time. */
export interface ValidationJob {
  readonly id: ValidationJobId
  readonly accountId: AccountId
  readonly status: ValidationJobStatus
  readonly emails: ReadonlyArray<string>
  readonly extended: boolean
  readonly timeoutMs: number
  readonly continueOnError: boolean
  /** Addresses whose results are stored. */
  readonly processed: number
  readonly error: ValidationJobError | null
  readonly createdAt: Date
  readonly startedAt: Date | null
  readonly completedAt: Date | null
}

/** A bulk job without its addresses (their count in `total`): what a client polling it reads, without reading back
 *  every address on every poll. */
export interface ValidationJobProgress extends Omit<ValidationJob, "emails"> {
  readonly total: number
}

export const progressOf = ({ emails, ...job }: ValidationJob): ValidationJobProgress => ({ ...job, total: emails.length })
