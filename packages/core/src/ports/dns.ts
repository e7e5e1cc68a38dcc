/** The Dns port: the lookups Mailroom makes itself (webhook hosts now; TXT and MX for sending domains). Engines: Node's
 *  resolver (@mailroom/net) and fakes behind the port in tests. */
import { Context, Effect, Schema } from "effect"

/** The lookup could not be answered: no such name, no answer in time, or the resolver failed. */
export class DnsError extends Schema.TaggedError<DnsError>()("DnsError", {
  hostname: Schema.String,
  /** The resolver's code (ENOTFOUND, ETIMEOUT, …) or a short reason. */
  reason: Schema.String,
}) {
  override get message() { return `DNS lookup of ${this.hostname} failed: ${this.reason}` }
}

export interface MxRecord {
  readonly exchange: string
  readonly priority: number
}

export interface DnsService {
  /** Every A and AAAA address of `hostname`, IPv4 first. An empty answer when the name exists without addresses;
   *  DnsError when it does not exist or the lookup fails. No cache beyond the resolver's own. */
  readonly lookupAddresses: (hostname: string) => Effect.Effect<ReadonlyArray<string>, DnsError>
  /** The TXT records of `hostname`, each as its strings joined. */
  readonly resolveTxt: (hostname: string) => Effect.Effect<ReadonlyArray<string>, DnsError>
  /** The MX records of `hostname`. */
  readonly resolveMx: (hostname: string) => Effect.Effect<ReadonlyArray<MxRecord>, DnsError>
}

/** Until a host provides an engine (the facade provides @mailroom/net's NodeDns), every lookup fails saying so. */
const unconfigured = (hostname: string) => Effect.fail(new DnsError({ hostname, reason: "no DNS engine is configured" }))

export class Dns extends Context.Reference<Dns>()("@mailroom/core/Dns", {
  defaultValue: (): DnsService => ({ lookupAddresses: unconfigured, resolveTxt: unconfigured, resolveMx: unconfigured }),
}) {}
