/** Address ranges that tell a machine's fetch of a tracking link from a person's: Apple's Mail Privacy Protection
 *  prefetch and mail security scanners. Small lists shipped in the repository, each range with its source; a host adds
 *  its own through the facade's `tracking` options (docs/tracking.md, "Address ranges"). Checked with ipaddr.js. */
import ipaddr from "ipaddr.js"

/** Apple: the 17.0.0.0/8 block Apple holds (ARIN, NET-17-0-0-0-1), from which Mail Privacy Protection's proxies and
 *  Apple's own services fetch. Apple publishes the full egress list of iCloud Private Relay, which MPP also uses, at
 *  https://mask-api.icloud.com/egress-ip-ranges.csv (hundreds of thousands of ranges, changing often): a host that
 *  wants it loads it into `appleRanges`. */
export const appleEgressRanges: ReadonlyArray<string> = [
  "17.0.0.0/8",
]

/** Mail security gateways that follow every link of the mail they pass, from their vendors' published ranges:
 *  - Microsoft Exchange Online Protection / Defender Safe Links: "Microsoft 365 URLs and IP address ranges", ID 9
 *    (learn.microsoft.com/microsoft-365/enterprise/urls-and-ip-address-ranges);
 *  - Barracuda Email Security Service: "Barracuda Email Security Service IP Ranges" (campus.barracuda.com), US;
 *  - Mimecast: "Mimecast Data Centers and URLs" (community.mimecast.com), US data centre. */
export const scannerNetworkRanges: ReadonlyArray<string> = [
  "40.92.0.0/15", "40.107.0.0/16", "52.100.0.0/14", "104.47.0.0/17", "2a01:111:f400::/48", "2a01:111:f403::/48",
  "209.222.80.0/21", "64.235.144.0/20",
  "205.139.110.0/24", "216.205.24.0/24",
]

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number]

/** A matcher of `ranges` (CIDR notation); throws on one that is not a CIDR range, at startup. An IPv4-mapped IPv6
 *  address is matched as the IPv4 address it maps. */
export const makeRangeMatcher = (ranges: ReadonlyArray<string>): ((address: string | null) => boolean) => {
  const parsed: ReadonlyArray<Range> = ranges.map((range) => {
    if (!ipaddr.isValidCIDR(range)) throw new Error(`tracking: ${range} is not a CIDR range`)
    return ipaddr.parseCIDR(range)
  })
  return (address) => {
    if (address === null || !ipaddr.isValid(address)) return false
    const ip = ipaddr.process(address)
    return parsed.some(([network, bits]) => network.kind() === ip.kind() && ip.match(network, bits))
  }
}
