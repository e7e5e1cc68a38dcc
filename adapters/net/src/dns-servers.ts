/** DNS_SERVERS: the resolvers every lookup asks, as a comma-separated list of `host` or `host:port`, an IPv6 address
 *  in brackets when it carries a port (`[2001:db8::1]:5353`). Hosts are IP addresses: a resolver's own name would
 *  need a resolver to find it. */
import { isIP } from "node:net"

export class DnsServersError extends Error {}

const port = (text: string, entry: string): string => {
  const value = Number(text)
  if (!/^\d+$/.test(text) || value < 1 || value > 65_535) throw new DnsServersError(`DNS server "${entry}" has an invalid port`)
  return text
}

/** One entry in the form Node's Resolver.setServers takes: `1.2.3.4`, `1.2.3.4:53`, `2001:db8::1`, `[2001:db8::1]:53`. */
const parseEntry = (entry: string): string => {
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(entry)
  if (bracketed !== null) {
    const address = bracketed[1]!
    if (isIP(address) !== 6) throw new DnsServersError(`DNS server "${entry}" is not an IPv6 address in brackets`)
    return bracketed[2] === undefined ? address : `[${address}]:${port(bracketed[2], entry)}`
  }
  if (isIP(entry) !== 0) return entry
  const hostPort = /^([^:]+):([^:]*)$/.exec(entry)
  if (hostPort !== null && isIP(hostPort[1]!) === 4) return `${hostPort[1]}:${port(hostPort[2]!, entry)}`
  throw new DnsServersError(
    `DNS server "${entry}" must be an IP address, optionally with a port (1.2.3.4:53, [2001:db8::1]:53)`,
  )
}

/** The servers of a DNS_SERVERS value (or of a list of entries), checked; an empty value names none. Throws
 *  DnsServersError naming the entry it cannot use. */
export const parseDnsServers = (value: string | ReadonlyArray<string>): ReadonlyArray<string> =>
  (typeof value === "string" ? value.split(",") : value)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
    .map(parseEntry)
