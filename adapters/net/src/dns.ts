/** The Dns port over Node's resolver (c-ares), with timeouts and a TTL cache. Without servers, addresses come from the
 *  system's resolver (getaddrinfo: hosts file included, as every other program on the machine sees them) and TXT and
 *  MX records from the system's DNS servers; with servers (DNS_SERVERS), every lookup asks those servers. */
import { promises as dns } from "node:dns"
import { Dns, DnsError, type DnsService, type LookupOptions, type MxRecord } from "@mailroom/core"
import { Effect, Layer } from "effect"
import { type CachedAnswer, type DnsCacheOptions, makeDnsCache } from "./dns-cache.js"
import { parseDnsServers } from "./dns-servers.js"

export interface NodeDnsOptions {
  /** Resolvers to ask, as `host` or `host:port` (IPv6 in brackets with a port); the system's configuration when
   *  omitted. */
  readonly servers?: ReadonlyArray<string>
  /** How long one query waits for an answer before it is sent again (or the lookup fails with ETIMEOUT). Default
   *  2 000 ms. */
  readonly timeoutMs?: number
  /** How many times a query is sent before the lookup fails. Default 2. */
  readonly tries?: number
  /** The answer cache, or false for none. A and AAAA records are kept for their TTL. Node's resolver does not tell
   *  the TTL of TXT and MX records, so those are kept for `recordTtlSeconds` (default 60 s): short enough that a
   *  corrected record is seen within a minute, long enough that bulk work asks each name once. */
  readonly cache?: false | (DnsCacheOptions & { readonly recordTtlSeconds?: number })
  /** The clock of the cache, in milliseconds (tests move it). Default Date.now. */
  readonly now?: () => number
}

export const defaultDnsTimeoutMs = 2_000
export const defaultDnsTries = 2
export const defaultRecordTtlSeconds = 60

const codeOf = (cause: unknown): string =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : String(cause)

/** The codes by which DNS says there is nothing to find: no such name (NXDOMAIN), no record of the type (NODATA). */
const noSuchRecord = new Set(["ENOTFOUND", "ENODATA"])

const failureOf = (hostname: string, cause: unknown): DnsError => {
  const reason = codeOf(cause)
  return new DnsError({ hostname, reason, kind: noSuchRecord.has(reason) ? "notFound" : "failed" })
}

export const makeNodeDns = (options: NodeDnsOptions = {}): DnsService => {
  const resolver = new dns.Resolver({
    timeout: options.timeoutMs ?? defaultDnsTimeoutMs,
    tries: options.tries ?? defaultDnsTries,
  })
  if (options.servers !== undefined) resolver.setServers([...parseDnsServers(options.servers)])
  const cacheOptions = options.cache === false ? undefined : options.cache ?? {}
  const recordTtl = cacheOptions?.recordTtlSeconds ?? defaultRecordTtlSeconds
  const cache = cacheOptions === undefined ? undefined : makeDnsCache(cacheOptions, options.now ?? Date.now)

  /** One question, as records with their TTL or the authoritative "none"; any other failure rejects. */
  const ask = <A>(type: string, hostname: string, query: () => Promise<{ records: ReadonlyArray<A>; ttlSeconds: number }>, fresh = false) => {
    const run = () => query().then(
      ({ records, ttlSeconds }): CachedAnswer<A> => ({ _tag: "Records", records, ttlSeconds }),
      (cause: unknown): CachedAnswer<A> => {
        const code = codeOf(cause)
        if (noSuchRecord.has(code)) return { _tag: "None", code }
        throw cause
      },
    )
    return cache === undefined ? run() : cache.get(`${type} ${hostname.toLowerCase()}`, run, fresh)
  }

  const lookup = <A>(type: string, hostname: string, query: () => Promise<{ records: ReadonlyArray<A>; ttlSeconds: number }>, options?: LookupOptions) =>
    Effect.tryPromise({ try: () => ask(type, hostname, query, options?.fresh === true), catch: (cause) => failureOf(hostname, cause) })

  /** The records, or DnsError `notFound` with the code DNS answered. */
  const records = <A>(type: string, hostname: string, query: () => Promise<{ records: ReadonlyArray<A>; ttlSeconds: number }>, options?: LookupOptions) =>
    Effect.flatMap(lookup(type, hostname, query, options), (answer) =>
      answer._tag === "Records"
        ? Effect.succeed(answer.records)
        : Effect.fail(new DnsError({ hostname, reason: answer.code, kind: "notFound" })))

  const withTtl = (answers: ReadonlyArray<{ address: string; ttl: number }>) => ({
    records: answers.map((answer) => answer.address),
    ttlSeconds: answers.length === 0 ? 0 : Math.min(...answers.map((answer) => answer.ttl)),
  })
  const fixedTtl = <A>(promise: Promise<ReadonlyArray<A>>) => promise.then((found) => ({ records: found, ttlSeconds: recordTtl }))

  const lookupAddresses = (hostname: string): Effect.Effect<ReadonlyArray<string>, DnsError> =>
    options.servers === undefined
      ? Effect.tryPromise({
        try: async () => {
          const answers = await dns.lookup(hostname, { all: true, order: "ipv4first" })
          return answers.map((answer) => answer.address)
        },
        catch: (cause) => failureOf(hostname, cause),
      })
      : Effect.gen(function* () {
        const [v4, v6] = yield* Effect.all([
          lookup("A", hostname, async () => withTtl(await resolver.resolve4(hostname, { ttl: true }))),
          lookup("AAAA", hostname, async () => withTtl(await resolver.resolve6(hostname, { ttl: true }))),
        ], { concurrency: 2 })
        const nxdomain = [v4, v6].find((answer) => answer._tag === "None" && answer.code === "ENOTFOUND")
        if (nxdomain !== undefined) return yield* Effect.fail(new DnsError({ hostname, reason: "ENOTFOUND", kind: "notFound" }))
        return [...(v4._tag === "Records" ? v4.records : []), ...(v6._tag === "Records" ? v6.records : [])]
      })

  return {
    lookupAddresses,
    resolveTxt: (hostname, options) =>
      records("TXT", hostname, () => fixedTtl(resolver.resolveTxt(hostname).then((found) => found.map((parts) => parts.join("")))), options),
    resolveMx: (hostname, options) => records<MxRecord>("MX", hostname, () => fixedTtl(resolver.resolveMx(hostname)), options),
    resolveCname: (hostname, options) =>
      records("CNAME", hostname, () => fixedTtl(resolver.resolveCname(hostname).then((found) =>
        found.map((target) => target.toLowerCase().replace(/\.$/, "")))), options),
  }
}

export const NodeDns = {
  layer: (options: NodeDnsOptions = {}): Layer.Layer<Dns> => Layer.sync(Dns, () => makeNodeDns(options)),
} as const
