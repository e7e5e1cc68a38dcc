/** The Dns port: the lookups Mailroom makes itself (webhook hosts, the records of sending domains, MX hosts). Engines:
 *  Node's resolver with its TTL cache (@mailroom/net) and fakes behind the port in tests. */
import { Context, Effect, Schema } from "effect"

/** Why a lookup gave no records. `notFound`: the answer was authoritative and holds none: the name does not exist
 *  (NXDOMAIN, reason ENOTFOUND) or has no record of the asked type (NODATA, reason ENODATA). `failed`: no usable answer
 *  came (SERVFAIL, a timeout, a refused or unreachable server): the records may well exist. */
export const DnsFailureKind = Schema.Literal("notFound", "failed")
export type DnsFailureKind = typeof DnsFailureKind.Type

/** The lookup could not be answered with records: see `kind` for whether they are known to be absent. */
export class DnsError extends Schema.TaggedError<DnsError>()("DnsError", {
  hostname: Schema.String,
  /** The resolver's code (ENOTFOUND, ENODATA, ESERVFAIL, ETIMEOUT, …) or a short reason. */
  reason: Schema.String,
  kind: Schema.optionalWith(DnsFailureKind, { default: () => "failed" }),
}) {
  override get message() {
    return this.kind === "notFound"
      ? `${this.hostname} has no such DNS record (${this.reason})`
      : `DNS lookup of ${this.hostname} failed: ${this.reason}`
  }
}

/** Whether `error` says that the records do not exist (rather than that the lookup failed). */
export const isNoSuchRecord = (error: DnsError): boolean => error.kind === "notFound"

export interface MxRecord {
  readonly exchange: string
  readonly priority: number
}

export interface LookupOptions {
  /** Ask the servers now, whatever the cache holds (the answer then replaces the cached one): for a check the user
   *  asked for just after publishing a record, such as a domain verification. */
  readonly fresh?: boolean | undefined
}

export interface DnsService {
  /** Every A and AAAA address of `hostname`, IPv4 first. An empty answer when the name exists without addresses;
   *  DnsError `notFound` when it does not exist, `failed` when the lookup fails. */
  readonly lookupAddresses: (hostname: string) => Effect.Effect<ReadonlyArray<string>, DnsError>
  /** The TXT records of `hostname`, one string per record: the character strings of a record joined in order with
   *  nothing between them (RFC 7208 §3.3), never the strings of two records. DnsError `notFound` when the name does not
   *  exist or has no TXT record. */
  readonly resolveTxt: (hostname: string, options?: LookupOptions) => Effect.Effect<ReadonlyArray<string>, DnsError>
  /** The MX records of `hostname`. DnsError `notFound` when the name does not exist or has no MX record. */
  readonly resolveMx: (hostname: string, options?: LookupOptions) => Effect.Effect<ReadonlyArray<MxRecord>, DnsError>
  /** The CNAME targets of `hostname` (lower-case, without the trailing dot). DnsError `notFound` when the name does not
   *  exist or has no CNAME record. */
  readonly resolveCname: (hostname: string, options?: LookupOptions) => Effect.Effect<ReadonlyArray<string>, DnsError>
}

/** The records of a lookup, or none when DNS says there are none; a failed lookup still fails. */
export const recordsOrNone = <A>(lookup: Effect.Effect<ReadonlyArray<A>, DnsError>): Effect.Effect<ReadonlyArray<A>, DnsError> =>
  Effect.catchIf(lookup, isNoSuchRecord, () => Effect.succeed([]))

/** Until a host provides an engine (the facade provides @mailroom/net's NodeDns), every lookup fails saying so. */
const unconfigured = (hostname: string) => Effect.fail(new DnsError({ hostname, reason: "no DNS engine is configured" }))

export class Dns extends Context.Reference<Dns>()("@mailroom/core/Dns", {
  defaultValue: (): DnsService => ({
    lookupAddresses: unconfigured, resolveTxt: unconfigured, resolveMx: unconfigured, resolveCname: unconfigured,
  }),
}) {}
