/** Reading a domain's four records through the Dns port, as POST /domains/{id}/verify and the daily re-check do: the
 *  ownership record first, the other three only once it is found, each asked of the servers now (past the cache), with
 *  the doubled-name hint. Spec: sending "Domains"; docs/domains.md, "Verifying". */
import { Effect } from "effect"
import {
  type Domain, type DomainRecordStates, ownershipValue, plainSpfValue, type RecordState, recordHost, recordValue,
  type VerificationFindings,
} from "../domain/domain.js"
import { checkDkim, checkDmarc, checkOwnership, checkSpf, doubledName, doubledNameProblem } from "../domain/dns-records.js"
import { DnsLookupFailed } from "../errors.js"
import { Dns, recordsOrNone } from "../ports/dns.js"

/** SPF_INCLUDE and DMARC_REPORT_ADDRESS in force. */
export interface RecordSettings {
  readonly spfInclude: string
  readonly dmarcReportAddress: string
}

/** The TXT values at `host`, asked of the servers now (a verify follows a record just published; the cache may still
 *  hold "none"): none when DNS says there are none; DNS_LOOKUP_ERROR when the lookup fails. */
export const txtAt = (host: string): Effect.Effect<ReadonlyArray<string>, DnsLookupFailed> =>
  Effect.flatMap(Dns, (dns) => recordsOrNone(dns.resolveTxt(host, { fresh: true }))).pipe(
    Effect.mapError((error) => new DnsLookupFailed({ hostname: host, reason: error.reason })),
  )

/** A record found nowhere at its host but as it should be at the doubled name: the answer says so. A failed lookup of
 *  the doubled name leaves the record as missing. */
const withDoubledName = (
  state: RecordState,
  host: string,
  hostname: string,
  check: (values: ReadonlyArray<string>) => RecordState,
): Effect.Effect<RecordState> => {
  if (state.status !== "pending" || state.problem === null) return Effect.succeed(state)
  return txtAt(doubledName(host, hostname)).pipe(
    Effect.map((values) => check(values).status === "pending" || state.problem === null
      ? state
      : { status: "pending" as const, problem: doubledNameProblem(state.problem, host, hostname) }),
    Effect.orElseSucceed(() => state),
  )
}

/** What the records of `domain` hold now. Fails with DNS_LOOKUP_ERROR when a lookup fails: nothing is known then. */
export const readRecords = (domain: Domain, settings: RecordSettings): Effect.Effect<VerificationFindings, DnsLookupFailed> =>
  Effect.gen(function* () {
    const hostname = domain.hostname
    const atHost = yield* txtAt(hostname)
    const ownership = (values: ReadonlyArray<string>) => checkOwnership(values, hostname, ownershipValue(domain.id))
    const verification = yield* withDoubledName(ownership(atHost), hostname, hostname, ownership)
    if (verification.status !== "verified") return { records: { verification }, spfValue: domain.spfValue }
    const dkimHost = recordHost("dkim", hostname)
    const dmarcHost = recordHost("dmarc", hostname)
    const [atDkim, atDmarc] = yield* Effect.all([txtAt(dkimHost), txtAt(dmarcHost)], { concurrency: 2 })
    const plain = plainSpfValue(settings.spfInclude)
    const spfOf = (values: ReadonlyArray<string>) => checkSpf(values, hostname, settings.spfInclude, plain)
    const spf = spfOf(atHost)
    const dkimExpected = recordValue(domain, "dkim", settings.dmarcReportAddress)
    const dkimOf = (values: ReadonlyArray<string>) => checkDkim(values, dkimHost, domain.dkim.publicKey, dkimExpected)
    const dmarcExpected = recordValue(domain, "dmarc", settings.dmarcReportAddress)
    const dmarcOf = (values: ReadonlyArray<string>) => checkDmarc(values, dmarcHost, dmarcExpected)
    const records: DomainRecordStates = {
      verification,
      spf: yield* withDoubledName(spf.state, hostname, hostname, (values) => spfOf(values).state),
      dkim: yield* withDoubledName(dkimOf(atDkim), dkimHost, hostname, dkimOf),
      dmarc: yield* withDoubledName(dmarcOf(atDmarc), dmarcHost, hostname, dmarcOf),
    }
    return { records, spfValue: spf.value }
  })
