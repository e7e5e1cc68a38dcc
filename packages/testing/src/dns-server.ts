/** A DNS server on 127.0.0.1 (dns2), over UDP and TCP on one port (an answer larger than 512 bytes, such as two DKIM
 *  keys, is truncated over UDP and asked again over TCP), answering from a zone the test can change between lookups: A, AAAA, TXT (one or
 *  several character strings per record), MX and CNAME records with a TTL, and names that answer SERVFAIL or never answer. */
import { createServer } from "node:net"
import dns2 from "dns2"

export interface ZoneEntry {
  readonly a?: ReadonlyArray<string>
  readonly aaaa?: ReadonlyArray<string>
  /** One entry per record; an array is one record made of several character strings (each at most 255 bytes). */
  readonly txt?: ReadonlyArray<string | ReadonlyArray<string>>
  readonly mx?: ReadonlyArray<{ readonly exchange: string; readonly priority: number }>
  /** The target of a CNAME record, answered to CNAME questions (the server does not follow it). */
  readonly cname?: string
  /** TTL of every record of the entry, in seconds. Default 0. */
  readonly ttl?: number
  /** `servfail`: every question about the name answers SERVFAIL; `silent`: no answer ever comes (a timeout). */
  readonly failure?: "servfail" | "silent"
  /** Every answer about the name leaves this many milliseconds after its question came (a slow server). */
  readonly delayMs?: number
}

export interface TestDnsServer {
  /** `127.0.0.1:port`, for NodeDns's servers. */
  readonly server: string
  readonly zone: Map<string, ZoneEntry>
  /** Questions asked so far, as `TYPE name`. */
  readonly questions: Array<string>
  readonly close: () => Promise<void>
}

const { Packet } = dns2
/** Error codes of answers; the package's type declarations leave them out. */
const SERVFAIL = 2
const NXDOMAIN = 3

/** Starts the server with `entries` (names lower-case, without the trailing dot). A name absent from the zone answers
 *  NXDOMAIN; a name present without records of the asked type answers NOERROR with no answers (NODATA). */
export const startDnsServer = async (entries: Record<string, ZoneEntry> = {}): Promise<TestDnsServer> => {
  const zone = new Map(Object.entries(entries))
  const questions: Array<string> = []
  const server = dns2.createServer({
    udp: true,
    tcp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request)
      const question = request.questions[0]!
      const name = question.name.toLowerCase()
      const entry = zone.get(name)
      // Plain records: the package serialises them, though its declarations ask for Resource instances.
      const answers = response.answers as unknown as Array<Record<string, unknown>>
      const typeName = Object.entries(Packet.TYPE).find(([, value]) => value === question.type)?.[0] ?? String(question.type)
      questions.push(`${typeName} ${name}`)
      if (entry?.failure === "silent") return
      if (entry === undefined || entry.failure === "servfail") {
        response.header.rcode = entry === undefined ? NXDOMAIN : SERVFAIL
        void send(response)
        return
      }
      const base = { name: question.name, class: Packet.CLASS.IN, ttl: entry.ttl ?? 0 }
      if (question.type === Packet.TYPE.A) for (const address of entry.a ?? []) answers.push({ ...base, type: Packet.TYPE.A, address })
      if (question.type === Packet.TYPE.AAAA) for (const address of entry.aaaa ?? []) answers.push({ ...base, type: Packet.TYPE.AAAA, address })
      if (question.type === Packet.TYPE.TXT) for (const data of entry.txt ?? []) answers.push({ ...base, type: Packet.TYPE.TXT, data })
      if (question.type === Packet.TYPE.MX) {
        for (const mx of entry.mx ?? []) answers.push({ ...base, type: Packet.TYPE.MX, exchange: mx.exchange, priority: mx.priority })
      }
      if (question.type === Packet.TYPE.CNAME && entry.cname !== undefined) {
        answers.push({ ...base, type: Packet.TYPE.CNAME, domain: entry.cname })
      }
      if (entry.delayMs === undefined) void send(response)
      else setTimeout(() => void send(response), entry.delayMs)
    },
  })
  const port = await freeTcpPort()
  await server.listen({ udp: { port, address: "127.0.0.1" }, tcp: { port, address: "127.0.0.1" } })
  return {
    server: `127.0.0.1:${port}`,
    zone,
    questions,
    close: async () => {
      await server.close()
    },
  }
}

/** A TCP port free on 127.0.0.1 at the time of asking (the UDP port of the same number is taken with it). */
const freeTcpPort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

/** Splits a long TXT value into character strings of at most 255 bytes, as DNS panels publish a DKIM key. */
export const txtChunks = (value: string, size = 255): ReadonlyArray<string> => {
  const chunks: Array<string> = []
  for (let at = 0; at < value.length; at += size) chunks.push(value.slice(at, at + size))
  return chunks
}
