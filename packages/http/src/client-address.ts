/** The client's IP address: the peer of the connection, or, behind proxies the host trusts, the address those proxies
 *  report in X-Forwarded-For. By default no proxy is trusted and X-Forwarded-For is ignored: any client can write it.
 *  Consent evidence and the failed-authentication limit use this address. */
import ipaddr from "ipaddr.js"

/**
 * Which proxies in front of Mailroom are believed when they report the client's address in X-Forwarded-For:
 * - `false` (the default): none; the client address is the connection's peer.
 * - a number `n`: the `n` hops nearest to Mailroom are proxies (1: one load balancer in front).
 * - a list of addresses, CIDR ranges (`10.0.0.0/8`, `fd00::/8`) and the names `loopback`, `linklocal` and
 *   `uniquelocal`: the peers in those ranges are proxies, hop after hop.
 * - `true`: every hop is a proxy and the leftmost address is the client's. Only behind a proxy that overwrites
 *   X-Forwarded-For rather than appending to it.
 */
export type TrustProxy = boolean | number | ReadonlyArray<string>

/** Decides, for one address, whether it is a trusted proxy; `hop` 0 is the connection's peer. */
type TrustHop = (address: ipaddr.IPv4 | ipaddr.IPv6, hop: number) => boolean

const namedRanges: Record<string, ReadonlyArray<string>> = {
  loopback: ["127.0.0.0/8", "::1/128"],
  linklocal: ["169.254.0.0/16", "fe80::/10"],
  uniquelocal: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
}

/** An address as Mailroom keeps it: IPv4-mapped IPv6 (`::ffff:203.0.113.7`) written as IPv4. */
const parse = (text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined => {
  if (!ipaddr.isValid(text)) return undefined
  return ipaddr.process(text)
}

/** One X-Forwarded-For entry: an address, possibly with a port (`203.0.113.7:4711`, `[2001:db8::1]:443`). */
const parseHop = (entry: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined => {
  const text = entry.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text)
  if (bracketed) return parse(bracketed[1]!)
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(text)
  return parse(withPort ? withPort[1]! : text)
}

/** The ranges of a trust list; throws on an entry that is neither an address, a CIDR range nor a known name. */
const rangesOf = (entries: ReadonlyArray<string>): ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]> =>
  entries.flatMap((entry) => namedRanges[entry.toLowerCase()] ?? [entry]).map((entry) => {
    if (entry.includes("/")) {
      if (!ipaddr.isValidCIDR(entry)) throw new Error(`trustProxy: ${entry} is not a valid CIDR range`)
      const [address, bits] = ipaddr.parseCIDR(entry)
      const processed = ipaddr.process(address.toString())
      // An IPv4-mapped range (::ffff:10.0.0.0/104) is kept as the IPv4 range it maps.
      return processed.kind() === address.kind() ? [address, bits] : [processed, bits - 96]
    }
    const address = parse(entry)
    if (address === undefined) {
      throw new Error(`trustProxy: ${entry} is not an IP address, a CIDR range or one of loopback, linklocal, uniquelocal`)
    }
    return [address, address.kind() === "ipv4" ? 32 : 128]
  })

/** The trust decision of a `trustProxy` option, checked once at startup. */
export const makeTrustHop = (trust: TrustProxy | undefined): TrustHop | undefined => {
  if (trust === undefined || trust === false) return undefined
  if (trust === true) return () => true
  if (typeof trust === "number") {
    if (!Number.isInteger(trust) || trust < 0) throw new Error(`trustProxy: ${trust} is not a number of hops`)
    return trust === 0 ? undefined : (_, hop) => hop < trust
  }
  const ranges = rangesOf(trust)
  return (address) => ranges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits))
}

/** `::ffff:203.0.113.7` as `203.0.113.7`; any other peer address as the socket gave it. */
const normalisePeer = (peer: string): string =>
  peer.startsWith("::ffff:") && /^\d{1,3}(?:\.\d{1,3}){3}$/.test(peer.slice(7)) ? peer.slice(7) : peer

/**
 * The client address of a request that came from `peer` carrying `forwardedFor` (X-Forwarded-For). Walks from the peer
 * towards the client through the hops `trust` believes: the first hop that is not a trusted proxy is the client; so is
 * the leftmost address when every hop is trusted. An entry that is not an IP address ends the walk at the hop that
 * reported it. Without a peer (a transport that does not tell it) nothing can be verified: null.
 */
export const resolveClientAddress = (
  peer: string | null,
  forwardedFor: string | undefined,
  trust: TrustHop | undefined,
): string | null => {
  if (peer === null) return null
  if (trust === undefined || forwardedFor === undefined) return normalisePeer(peer)
  let current = parse(peer)
  if (current === undefined) return normalisePeer(peer)
  const hops = forwardedFor.split(",")
  for (let hop = 0; hop < hops.length; hop++) {
    if (!trust(current, hop)) break
    const next = parseHop(hops[hops.length - 1 - hop]!)
    if (next === undefined) break
    current = next
  }
  return current.toString()
}

/** Whether the connection's peer is a proxy the host trusts: then the headers it adds (a CDN's country header) are
 *  believed. Without a peer, or without trusted proxies, no. */
export const isTrustedPeer = (peer: string | null, trust: TrustHop | undefined): boolean => {
  if (peer === null || trust === undefined) return false
  const address = parse(peer)
  return address !== undefined && trust(address, 0)
}
