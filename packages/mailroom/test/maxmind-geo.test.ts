// The MaxMind-format Geo port, over a small database written here in the MaxMind DB format (version 2.0: an IPv4
// search tree with 24-bit records, the data section, the metadata), so that the real reader reads a real file.
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { maxmindGeo, maxmindGeoFromBuffer } from "../src/index.js"

const control = (type: number, size: number) => type <= 7 ? [(type << 5) | size] : [size, type - 7]
const str = (s: string) => [...control(2, Buffer.byteLength(s)), ...Buffer.from(s)]
const uint = (type: number, n: number) => {
  const bytes: Array<number> = []
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256)
  return [...control(type, bytes.length), ...bytes]
}
const map = (entries: ReadonlyArray<readonly [string, Array<number>]>) => [...control(7, entries.length), ...entries.flatMap(([k, v]) => [...str(k), ...v])]

/** A database of IPv4 networks (each a /8 here, by its first octet) and their country codes. */
const database = (networks: ReadonlyArray<readonly [octet: number, country: string]>) => {
  const data: Array<number> = []
  const offsets = networks.map(([, country]) => {
    const offset = data.length
    data.push(...map([["country", map([["iso_code", str(country)]])]]))
    return offset
  })
  // Nodes: one path of 8 nodes per network; node 0 is the root shared by all paths.
  const nodes: Array<[number, number]> = [[-1, -1]]
  const leaves: Array<{ node: number; side: 0 | 1; network: number }> = []
  networks.forEach(([octet], n) => {
    let node = 0
    for (let bit = 7; bit >= 0; bit--) {
      const side = ((octet >> bit) & 1) as 0 | 1
      if (bit === 0) {
        leaves.push({ node, side, network: n })
        break
      }
      if (nodes[node]![side] === -1) {
        nodes.push([-1, -1])
        nodes[node]![side] = nodes.length - 1
      }
      node = nodes[node]![side]
    }
  })
  const count = nodes.length
  for (const leaf of leaves) nodes[leaf.node]![leaf.side] = count + 16 + offsets[leaf.network]!
  const tree = nodes.flatMap(([l, r]) => [l, r].flatMap((v) => {
    const value = v === -1 ? count : v
    return [(value >> 16) & 255, (value >> 8) & 255, value & 255]
  }))
  const metadata = map([
    ["node_count", uint(6, count)], ["record_size", uint(5, 24)], ["ip_version", uint(5, 4)],
    ["database_type", str("Mailroom-Test-Country")], ["languages", [...control(11, 1), ...str("en")]],
    ["binary_format_major_version", uint(5, 2)], ["binary_format_minor_version", uint(5, 0)],
    ["build_epoch", uint(9, 1_700_000_000)], ["description", map([["en", str("test")]])],
  ])
  return Buffer.from([...tree, ...new Array<number>(16).fill(0), ...data, 0xab, 0xcd, 0xef, ...Buffer.from("MaxMind.com"), ...metadata])
}

const request = (address: string | null) => ({ address, headers: { get: () => null }, trustedProxy: false })

describe("maxmindGeo", () => {
  const bytes = database([[81, "DE"], [2, "fr"]])

  it("answers the country of an address in the database, upper case, and null for one that is not", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "mailroom-geo-")), "country.mmdb")
    writeFileSync(file, bytes)
    const geo = await maxmindGeo(file)
    expect(geo.country(request("81.2.69.142"))).toBe("DE")
    expect(geo.country(request("2.16.0.1"))).toBe("FR")
    expect(geo.country(request("198.51.100.7"))).toBeNull()
  })

  it("answers null for no address, a malformed one, or an IPv6 address asked of an IPv4 database", () => {
    const geo = maxmindGeoFromBuffer(bytes)
    expect(geo.country(request(null))).toBeNull()
    expect(geo.country(request("not-an-address"))).toBeNull()
    expect(geo.country(request("2001:db8::1"))).toBeNull()
    expect(geo.country(request("81.0.0.1"))).toBe("DE")
  })
})
