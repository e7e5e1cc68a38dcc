/** Sending domains: the hostname rule, the four DNS records a domain publishes, and the decision a verification makes
 *  from the checks of those records (domain/dns-records.ts). Spec: sending "Domain", "States and transitions" (Domain
 *  rows), "Domains" and its record table, "Limits" (custom domains). */
import { isIP } from "node:net"
import { domainToASCII } from "node:url"
import { Either, Schema } from "effect"
import { parse } from "tldts"
import { type AccountId, type Plan, planLimits } from "./account.js"
import { DomainLimitReached, PlanUpgradeRequired } from "../errors.js"

export const DomainId = Schema.String.pipe(Schema.brand("DomainId"))
export type DomainId = typeof DomainId.Type

export const domainStatuses = ["pending", "verified", "failed"] as const
export const DomainStatus = Schema.Literal(...domainStatuses)
export type DomainStatus = typeof DomainStatus.Type

/** The four records, in the order they are checked. */
export const domainRecordNames = ["verification", "spf", "dkim", "dmarc"] as const
export type DomainRecordName = (typeof domainRecordNames)[number]

/** A record's status: `pending` until it is found as it should be, `verified` once it is, `failed` when a record is
 *  there but wrong (another value, two records where one is allowed). */
export type RecordStatus = "pending" | "verified" | "failed"

/** Why a record is not verified, with the code of the spec's error table: DNS_VERIFICATION_FAILED for the ownership
 *  record, DNS_RECORD_MISSING for SPF, DKIM and DMARC (missing, wrong or duplicated). */
export interface RecordProblem {
  readonly code: "DNS_VERIFICATION_FAILED" | "DNS_RECORD_MISSING"
  readonly message: string
}

export interface RecordState {
  readonly status: RecordStatus
  readonly problem: RecordProblem | null
}

export type DomainRecordStates = Readonly<Record<DomainRecordName, RecordState>>

/** The DKIM key pair made for a domain. The private key is only ever held sealed (AES-256-GCM under a key derived
 *  from MAILROOM_SECRET): no response, log or export carries it. */
export interface DomainDkimKey {
  readonly selector: string
  /** base64 of the DER SubjectPublicKeyInfo: the `p=` of the DKIM record. */
  readonly publicKey: string
  readonly sealedPrivateKey: string
}

export interface Domain {
  readonly id: DomainId
  readonly accountId: AccountId
  /** Lower-case, IDN in punycode (A-labels). */
  readonly hostname: string
  readonly status: DomainStatus
  readonly isInboxHosted: boolean
  readonly records: DomainRecordStates
  /** The SPF value the domain is asked to publish: the plain record, or its existing record with the include added. */
  readonly spfValue: string
  readonly dkim: DomainDkimKey
  readonly createdAt: Date
  readonly verifiedAt: Date | null
  readonly lastCheckedAt: Date | null
  /** Since when a verified domain's records have failed their checks (null while they pass). */
  readonly failingSince: Date | null
}

export const domainLimits = {
  /** GET /domains: page size default and maximum (spec, Domains and Pagination). */
  pageSize: 25,
  maxPageSize: 100,
  /** Longest hostname (RFC 1035: 253 characters in text form). */
  hostnameLength: 253,
  /** The DKIM selector of every domain: its record is at `default._domainkey.<hostname>`. */
  dkimSelector: "default",
  /** RSA key size of DKIM keys. */
  dkimKeyBits: 2048,
} as const

/** Body of POST /domains. The hostname is checked by the service (parseHostname), so that its refusals name the rule. */
export const CreateDomainInput = Schema.Struct({
  hostname: Schema.String.pipe(Schema.maxLength(1_000, { message: () => "hostname is at most 253 characters" })),
})
export type CreateDomainInput = typeof CreateDomainInput.Type

/** GET /domains after defaults. */
export interface DomainQuery {
  readonly page: number
  readonly limit: number
  readonly status?: DomainStatus | undefined
}

/** Newest first, ties by id, as every backend orders GET /domains. */
export const compareDomains = (a: Domain, b: Domain): number => {
  const byCreation = b.createdAt.getTime() - a.createdAt.getTime()
  return byCreation !== 0 ? byCreation : a.id < b.id ? 1 : a.id > b.id ? -1 : 0
}

export const matchesDomainQuery = (domain: Domain, query: Pick<DomainQuery, "status">): boolean =>
  query.status === undefined || domain.status === query.status

const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

/** The hostname of POST /domains: a registrable domain or a subdomain of one, lower-cased, an IDN in punycode. Refuses
 *  an IP address, a public suffix on its own (com, co.uk, github.io) and anything that is not a domain name. Answers
 *  the reason of a refusal, to be shown after "hostname". */
export const parseHostname = (input: string): Either.Either<string, string> => {
  const text = input.trim().replace(/\.$/, "")
  if (text === "") return Either.left("must not be empty")
  if (isIP(text) !== 0 || isIP(text.replace(/^\[(.*)\]$/, "$1")) !== 0) {
    return Either.left("is an IP address; a sending domain is a domain name such as example.com")
  }
  if (/[\s/:@?#\\]/.test(text)) return Either.left("must be a bare domain name, without scheme, port, path or address")
  const ascii = domainToASCII(text.toLowerCase())
  if (ascii === "") return Either.left(`${text} is not a valid domain name`)
  if (ascii.length > domainLimits.hostnameLength) return Either.left(`is at most ${domainLimits.hostnameLength} characters`)
  const labels = ascii.split(".")
  if (labels.length < 2) return Either.left(`${ascii} is not a domain name with a registrable part (such as example.com)`)
  if (!labels.every((part) => label.test(part))) {
    return Either.left(`${ascii} is not a valid domain name: each label is 1-63 letters, digits or hyphens`)
  }
  const parsed = parse(ascii, { allowPrivateDomains: true })
  if (parsed.domain === null || parsed.publicSuffix === ascii) {
    return Either.left(`${ascii} is a public suffix; add a domain registered under it (such as example.${ascii})`)
  }
  return Either.right(ascii)
}

/** Where each record is published. */
export const recordHost = (name: DomainRecordName, hostname: string): string =>
  name === "dkim" ? `${domainLimits.dkimSelector}._domainkey.${hostname}`
  : name === "dmarc" ? `_dmarc.${hostname}`
  : hostname

/** The value of the ownership record. CONTRACT.md, "Domains". */
export const ownershipValue = (id: string): string => `mailroom-verify=${id}`

export const plainSpfValue = (include: string): string => `v=spf1 include:${include} -all`

export const dkimValue = (publicKey: string): string => `v=DKIM1; k=rsa; p=${publicKey}`

export const dmarcValue = (reportAddress: string): string => `v=DMARC1; p=quarantine; rua=mailto:${reportAddress}`

/** The value each record is asked to hold. */
export const recordValue = (domain: Domain, name: DomainRecordName, reportAddress: string): string =>
  name === "verification" ? ownershipValue(domain.id)
  : name === "spf" ? domain.spfValue
  : name === "dkim" ? dkimValue(domain.dkim.publicKey)
  : dmarcValue(reportAddress)

export const pendingRecords: DomainRecordStates = {
  verification: { status: "pending", problem: null },
  spf: { status: "pending", problem: null },
  dkim: { status: "pending", problem: null },
  dmarc: { status: "pending", problem: null },
}

/** What one verification found: the state of each record checked (the ownership record always; the other three only
 *  once it is verified) and the SPF value to show from now on. */
export interface VerificationFindings {
  readonly records: Partial<DomainRecordStates> & { readonly verification: RecordState }
  readonly spfValue: string
}

/** POST /domains/{id}/verify. Spec: "States and transitions", Domain rows. Every record checked takes its new state;
 *  records not checked keep theirs. All four verified: the domain is verified (verifiedAt set when it was not
 *  verified). Otherwise a pending or failed domain keeps its status, and a verified one stays verified and starts
 *  (or continues) failing: the daily re-check, not one call, decides when it becomes failed (docs/domains.md). */
export const decideVerification = (domain: Domain, findings: VerificationFindings, at: Date): Domain => {
  const records: DomainRecordStates = { ...domain.records, ...findings.records }
  const allVerified = domainRecordNames.every((name) => records[name].status === "verified")
  return {
    ...domain,
    records,
    spfValue: findings.spfValue,
    lastCheckedAt: at,
    status: allVerified ? "verified" : domain.status,
    verifiedAt: allVerified ? (domain.status === "verified" ? domain.verifiedAt ?? at : at) : domain.verifiedAt,
    failingSince: allVerified ? null : domain.status === "verified" ? domain.failingSince ?? at : null,
  }
}

/** The re-check rule (docs/domains.md, "When a domain fails"): a verified domain whose records have failed for
 *  `failingDays` becomes failed and stops signing; a pending domain not verified within `pendingDays` of its creation
 *  becomes failed. A failed domain may be verified again with POST /domains/{id}/verify. */
export const domainFailurePolicy = { failingDays: 3, pendingDays: 7 } as const

export const failedByRecheck = (domain: Domain, now: Date): boolean => {
  const day = 24 * 60 * 60 * 1000
  if (domain.status === "verified") {
    return domain.failingSince !== null && now.getTime() - domain.failingSince.getTime() >= domainFailurePolicy.failingDays * day
  }
  return domain.status === "pending" && now.getTime() - domain.createdAt.getTime() >= domainFailurePolicy.pendingDays * day
}

/** What the daily re-check makes of a domain (docs/domains.md, "When a domain fails"). A verified domain whose records
 *  were read again (`findings`) takes them as a verify would (decideVerification: still verified, and failing since
 *  the first check that found a record wrong); then, verified or pending, it becomes failed when failedByRecheck says
 *  so. `findings` is null for a domain whose records were not read (a pending one, or a lookup that failed): only the
 *  time rule applies. A failed domain is left alone. */
export const decideRecheck = (domain: Domain, findings: VerificationFindings | null, at: Date): Domain => {
  if (domain.status === "failed") return domain
  const checked = findings === null ? domain : decideVerification(domain, findings, at)
  return failedByRecheck(checked, at) ? { ...checked, status: "failed" } : checked
}

/** Custom domains need the Starter plan or above. Spec: sending "What the service does" and "Limits". */
export const checkDomainPlan = (plan: Plan): Either.Either<void, PlanUpgradeRequired> =>
  planLimits[plan].customDomains === 0
    ? Either.left(new PlanUpgradeRequired({ feature: "custom domains", plan, requiredPlan: "starter" }))
    : Either.void

/** Whether an account of the plan holding `count` domains may add one more (Starter 1, Micro 2, Pro 5, Scale 20). */
export const checkDomainRoom = (plan: Plan, count: number): Either.Either<void, PlanUpgradeRequired | DomainLimitReached> => {
  const limit = planLimits[plan].customDomains
  return Either.flatMap(checkDomainPlan(plan), () =>
    limit !== null && count >= limit ? Either.left(new DomainLimitReached({ plan, limit })) : Either.void)
}
