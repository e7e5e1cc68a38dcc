/** The Dns port over Node's resolver. Without servers, addresses come from the system's resolver (getaddrinfo: hosts
 *  file included, as every other program on the machine sees them); with servers, every lookup asks those servers. */
import { promises as dns } from "node:dns"
import { Dns, DnsError, type DnsService } from "@mailroom/core"
import { Effect, Layer } from "effect"

export interface NodeDnsOptions {
  /** Resolvers to ask, as `host` or `host:port`; the system's configuration when omitted. */
  readonly servers?: ReadonlyArray<string>
}

const codeOf = (cause: unknown): string =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : String(cause)

/** A name that exists without records of the asked type answers empty rather than failing. */
const emptyOnNoData = <A>(promise: Promise<ReadonlyArray<A>>): Promise<ReadonlyArray<A>> =>
  promise.catch((cause: unknown) => {
    if (codeOf(cause) === "ENODATA") return []
    throw cause
  })

export const makeNodeDns = (options: NodeDnsOptions = {}): DnsService => {
  const resolver = new dns.Resolver()
  if (options.servers !== undefined) resolver.setServers([...options.servers])
  const attempt = <A>(hostname: string, run: () => Promise<A>) =>
    Effect.tryPromise({ try: run, catch: (cause) => new DnsError({ hostname, reason: codeOf(cause) }) })

  const lookupAddresses = (hostname: string) =>
    options.servers === undefined
      ? attempt(hostname, async () => {
        const answers = await dns.lookup(hostname, { all: true, order: "ipv4first" })
        return answers.map((answer) => answer.address)
      })
      : attempt(hostname, async () => {
        const [v4, v6] = await Promise.all([
          emptyOnNoData(resolver.resolve4(hostname)),
          emptyOnNoData(resolver.resolve6(hostname)),
        ])
        return [...v4, ...v6]
      })

  return {
    lookupAddresses,
    resolveTxt: (hostname) =>
      attempt(hostname, async () => (await emptyOnNoData(resolver.resolveTxt(hostname))).map((parts) => parts.join(""))),
    resolveMx: (hostname) => attempt(hostname, () => emptyOnNoData(resolver.resolveMx(hostname))),
  }
}

export const NodeDns = {
  layer: (options: NodeDnsOptions = {}): Layer.Layer<Dns> => Layer.sync(Dns, () => makeNodeDns(options)),
} as const
