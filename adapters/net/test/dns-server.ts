/** A DNS server on 127.0.0.1 (dns2) answering from a zone the test can change between lookups. */
import dns2 from "dns2"

export interface ZoneEntry {
  readonly a?: ReadonlyArray<string>
  readonly aaaa?: ReadonlyArray<string>
  readonly txt?: ReadonlyArray<string>
  readonly mx?: ReadonlyArray<{ readonly exchange: string; readonly priority: number }>
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
const NXDOMAIN = 3

export const startDnsServer = async (entries: Record<string, ZoneEntry>): Promise<TestDnsServer> => {
  const zone = new Map(Object.entries(entries))
  const questions: Array<string> = []
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request)
      const question = request.questions[0]!
      const name = question.name.toLowerCase()
      const entry = zone.get(name)
      // Plain records: the package serialises them, though its declarations ask for Resource instances.
      const answers = response.answers as unknown as Array<Record<string, unknown>>
      const typeName = Object.entries(Packet.TYPE).find(([, value]) => value === question.type)?.[0] ?? String(question.type)
      questions.push(`${typeName} ${name}`)
      if (entry === undefined) {
        response.header.rcode = NXDOMAIN
        void send(response)
        return
      }
      const base = { name: question.name, class: Packet.CLASS.IN, ttl: 0 }
      if (question.type === Packet.TYPE.A) for (const address of entry.a ?? []) answers.push({ ...base, type: Packet.TYPE.A, address })
      if (question.type === Packet.TYPE.AAAA) for (const address of entry.aaaa ?? []) answers.push({ ...base, type: Packet.TYPE.AAAA, address })
      if (question.type === Packet.TYPE.TXT) for (const data of entry.txt ?? []) answers.push({ ...base, type: Packet.TYPE.TXT, data })
      if (question.type === Packet.TYPE.MX) {
        for (const mx of entry.mx ?? []) answers.push({ ...base, type: Packet.TYPE.MX, exchange: mx.exchange, priority: mx.priority })
      }
      void send(response)
    },
  })
  const addresses = await server.listen({ udp: { port: 0, address: "127.0.0.1" } })
  const port = (addresses as unknown as { udp: { port: number } }).udp.port
  return {
    server: `127.0.0.1:${port}`,
    zone,
    questions,
    close: async () => {
      await server.close()
    },
  }
}
