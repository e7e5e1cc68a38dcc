/** The domains API: add a sending domain with its four records, verify them through the Dns port, read, list and
 *  delete. Spec: sending "Domain", "States and transitions" (Domain rows), "Domains", "Errors", "Limits". The DKIM
 *  private key is made here, sealed at once, and unsealed only to sign (signingKey). */
import { generateKeyPair } from "node:crypto"
import { promisify } from "node:util"
import { Context, Effect, Either, Option } from "effect"
import type { Account, AccountId } from "../domain/account.js"
import {
  checkDomainPlan, checkDomainRoom, type CreateDomainInput, decideVerification, type DomainDkimKey, type Domain, type DomainId, domainLimits, type DomainQuery,
  type DomainRecordName, domainRecordNames, parseHostname, pendingRecords,
  plainSpfValue, type RecordProblem, type RecordState, recordHost, recordValue,
} from "../domain/domain.js"
import { checkSpf } from "../domain/dns-records.js"
import {
  DomainNotFound, SenderDomainNotVerified, type StoreError,
  ValidationFailed,
} from "../errors.js"
import { orFailWith } from "../internal/found.js"
import { deriveKey, seal, unseal } from "../internal/secret-box.js"
import { currentDate } from "../internal/time.js"
import { Ids } from "../ports/ids.js"
import type { DkimKey } from "../ports/mailer.js"
import { Store } from "../ports/store.js"
import { Accounts } from "./accounts.js"
import { Background } from "./background.js"
import { readRecords, txtAt } from "./domain-checks.js"
import { domainRecheckJob, recheckDomains, scheduleDomainRecheck } from "./domain-recheck.js"
import { LinksConfig } from "./tokens.js"
import { serviceMethod } from "./tracing.js"

/** Who may send: `allow-unverified` (the default) sends from any domain, signing only mail from verified domains, since
 *  a host may relay through a service that signs; `verified-only` refuses a send whose From domain is not a verified
 *  domain of the account (403 SENDER_DOMAIN_NOT_VERIFIED). */
export type SenderPolicy = "allow-unverified" | "verified-only"

export interface DomainsOptions {
  /** Who may send (docs/domains.md, "Signing and the sender policy"). Default `allow-unverified`. */
  readonly senderPolicy?: SenderPolicy | undefined
  /** The host of the `include:` in the SPF record domains publish (SPF_INCLUDE). Default `_spf.` + APP_URL's host. */
  readonly spfInclude?: string | undefined
  /** The `rua=mailto:` address of the DMARC record (DMARC_REPORT_ADDRESS). Default `dmarc@` + APP_URL's host. */
  readonly dmarcReportAddress?: string | undefined
}

export class DomainsConfig extends Context.Reference<DomainsConfig>()("@mailroom/core/DomainsConfig", {
  defaultValue: (): DomainsOptions => ({}),
}) {}

/** SPF_INCLUDE and DMARC_REPORT_ADDRESS in force: the configured values, or their defaults from APP_URL's host. */
export const domainSettings = Effect.gen(function* () {
  const config = yield* DomainsConfig
  const host = new URL((yield* LinksConfig).appUrl).hostname
  return {
    spfInclude: config.spfInclude ?? `_spf.${host}`,
    dmarcReportAddress: config.dmarcReportAddress ?? `dmarc@${host}`,
  }
})

/** One record as a domain shows it: where to publish what, and how its last check went. */
export interface DomainRecordView {
  readonly status: RecordState["status"]
  readonly type: "TXT"
  readonly host: string
  readonly value: string
  readonly problem: RecordProblem | null
}

/** A domain with the records it is asked to publish. */
export interface DomainDetails {
  readonly domain: Domain
  readonly dnsRecords: Readonly<Record<DomainRecordName, DomainRecordView>>
}

const dkimKeyPurpose = "dkim-private-keys"

const makeKeyPair = Effect.promise(() =>
  promisify(generateKeyPair)("rsa", {
    modulusLength: domainLimits.dkimKeyBits,
    publicKeyEncoding: { type: "spki", format: "der" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  }))

const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1).toLowerCase()

/** The sender policy at acceptance: under `verified-only`, a From address whose domain is not a verified domain of the
 *  account is refused. Under `allow-unverified`, nothing is read. */
export const checkSender = (
  store: Store["Type"],
  accountId: AccountId,
  from: string,
): Effect.Effect<void, SenderDomainNotVerified | StoreError> =>
  Effect.gen(function* () {
    if ((yield* DomainsConfig).senderPolicy !== "verified-only") return
    const domain = domainOf(from)
    const found = yield* store.domains.findByHostname(accountId, domain)
    if (Option.isNone(found) || found.value.status !== "verified") {
      return yield* Effect.fail(new SenderDomainNotVerified({ domain }))
    }
  })

export class Domains extends Effect.Service<Domains>()("@mailroom/core/Domains", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const accounts = yield* Accounts
    const method = yield* serviceMethod
    const now = currentDate
    const background = yield* Background
    // The daily re-check (domain-recheck.ts): each run queues the next day's first; every process queues it at start.
    yield* background.work(domainRecheckJob, () =>
      Effect.zipRight(scheduleDomainRecheck, Effect.flatMap(domainSettings, recheckDomains)))
    yield* background.atStart("domain re-check", Effect.asVoid(scheduleDomainRecheck))

    const find = (account: Account, id: string) =>
      store.domains.findById(account.id, id).pipe(orFailWith(() => new DomainNotFound({ id })))

    const details = (domain: Domain) =>
      Effect.map(domainSettings, (settings): DomainDetails => ({
        domain,
        dnsRecords: Object.fromEntries(domainRecordNames.map((name) => [name, {
          status: domain.records[name].status,
          type: "TXT",
          host: recordHost(name, domain.hostname),
          value: recordValue(domain, name, settings.dmarcReportAddress),
          problem: domain.records[name].problem,
        } satisfies DomainRecordView])) as unknown as DomainDetails["dnsRecords"],
      }))

    const list = method("Domains.list")(function* (account: Account, query: DomainQuery) {
      const page = yield* store.domains.list(account.id, query)
      return { domains: yield* Effect.forEach(page.domains, details), total: page.total }
    })

    const get = method("Domains.get")(function* (account: Account, id: string) {
      return yield* details(yield* find(account, id))
    })

    /** POST /domains. The SPF value shown starts from the domain's existing SPF record when it has one (a failed lookup
     *  shows the plain record; verify shows the merged one once DNS answers). */
    const create = method("Domains.create")(function* (account: Account, input: CreateDomainInput) {
      yield* checkDomainPlan(account.plan)
      const parsed = parseHostname(input.hostname)
      if (Either.isLeft(parsed)) return yield* Effect.fail(new ValidationFailed({ field: "hostname", detail: `hostname ${parsed.left}` }))
      const hostname = parsed.right
      const settings = yield* domainSettings
      const existing = yield* txtAt(hostname).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))
      const spf = checkSpf(existing, hostname, settings.spfInclude, plainSpfValue(settings.spfInclude))
      const keys = yield* makeKeyPair
      const masterSecret = yield* accounts.secret
      const at = yield* now
      const dkim: DomainDkimKey = {
        selector: domainLimits.dkimSelector,
        publicKey: keys.publicKey.toString("base64"),
        sealedPrivateKey: seal(deriveKey(masterSecret, dkimKeyPurpose), keys.privateKey),
      }
      const domain: Domain = {
        id: ids.make("domain", at) as DomainId,
        accountId: account.id,
        hostname,
        status: "pending",
        isInboxHosted: false,
        records: pendingRecords,
        spfValue: spf.value,
        dkim,
        createdAt: at,
        verifiedAt: null,
        lastCheckedAt: null,
        failingSince: null,
      }
      yield* store.transaction(Effect.gen(function* () {
        yield* store.accounts.lock(account.id)
        yield* checkDomainRoom(account.plan, yield* store.domains.count(account.id))
        yield* store.domains.insert(domain)
      }))
      return yield* details(domain)
    })

    /** POST /domains/{id}/verify: the ownership record first, the other three only once it is found; each record
     *  checked takes its new state, and all four verified make the domain verified. A failed lookup answers
     *  DNS_LOOKUP_ERROR and changes nothing. May be called again and again. */
    const verify = method("Domains.verify")(function* (account: Account, id: string) {
      const domain = yield* find(account, id)
      const findings = yield* readRecords(domain, yield* domainSettings)
      const next = yield* store.transaction(Effect.gen(function* () {
        const current = yield* find(account, id)
        const decided = decideVerification(current, findings, yield* now)
        yield* store.domains.update(decided)
        return decided
      }))
      return yield* details(next)
    })

    /** DELETE: the domain and its key go at once, so nothing is signed or sent from it afterwards; mail already
     *  queued may still deliver. */
    const remove = method("Domains.remove")(function* (account: Account, id: string) {
      const domain = yield* find(account, id)
      yield* store.domains.delete(account.id, domain.id)
      return { id: domain.id, deleted: true as const }
    }, store.transaction)

    /** The key that signs mail from `hostname` for the account: its verified domain's, or none. The private key is in
     *  clear only in memory, while the message is signed. */
    const signingKey = method("Domains.signingKey")(function* (accountId: AccountId, hostname: string) {
      const found = yield* store.domains.findByHostname(accountId, hostname.toLowerCase())
      if (Option.isNone(found) || found.value.status !== "verified") return Option.none<DkimKey>()
      const privateKey = unseal(deriveKey(yield* accounts.secret, dkimKeyPurpose), found.value.dkim.sealedPrivateKey)
      if (privateKey === undefined) {
        yield* Effect.logWarning(`domains: the DKIM key of ${found.value.hostname} cannot be unsealed with this MAILROOM_SECRET; mail from it is not signed`)
        return Option.none<DkimKey>()
      }
      return Option.some<DkimKey>({ domainName: found.value.hostname, keySelector: found.value.dkim.selector, privateKey })
    })

    return { list, get, create, verify, remove, signingKey } as const
  }),
}) {}
