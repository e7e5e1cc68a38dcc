/** What the validation suite runs against: a DNS server on 127.0.0.1 with the suite's zone, the probe targets of
 *  probe-targets.ts, and a Mailroom (with its background work) whose lookups go to that server and whose SMTP probe
 *  goes to the targets' port. */
import { expect } from "vitest"
import { startDnsServer, type TestDnsServer, type ZoneEntry } from "../dns-server.js"
import { type Client, type HttpTarget, makeClient } from "../http-suite/client.js"
import { type ProbeTargets, startProbeTargets } from "../probe-targets.js"

/** What the suite asks of the Mailroom behind a target, besides adminToken "test-admin-token" and background work on. */
export interface ValidationTargetConfig {
  readonly dnsServers: ReadonlyArray<string>
  readonly dns: { readonly timeoutMs: number; readonly tries: number; readonly cache: false }
  readonly smtpProbePort: number
}

const mx = (exchange: string, priority = 10) => ({ exchange, priority })

/** The zone: mail hosts at the three probe targets, a catch-all domain, a domain with addresses and no MX, a null MX,
 *  a domain without mail records, a failing one and an IDN. Names absent from it answer NXDOMAIN. */
export const validationZone: Record<string, ZoneEntry> = {
  "mx.example": { mx: [mx("backup.mx.example", 20), mx("mail.mx.example", 10)] },
  "mail.mx.example": { a: ["127.0.0.1"] },
  // No address: a probe of the backup host would be unknown, so a true answer shows the best MX was asked.
  "backup.mx.example": { txt: ["backup"] },
  "catchall.example": { mx: [mx("mail.mx.example")] },
  "silent.example": { mx: [mx("mail.silent.example")] },
  "mail.silent.example": { a: ["127.0.0.2"] },
  "refused.example": { mx: [mx("mail.refused.example")] },
  "mail.refused.example": { a: ["127.0.0.3"] },
  "aonly.example": { a: ["127.0.0.1"] },
  "nullmx.example": { mx: [mx(".", 0)], a: ["127.0.0.1"] },
  "nomail.example": { txt: ["v=spf1 -all"] },
  "broken.example": { failure: "servfail" },
  "silent-dns.example": { failure: "silent" },
  "xn--bcher-kva.example": { mx: [mx("mail.mx.example")] },
}

export interface ValidationContext {
  readonly client: Client
  readonly dns: TestDnsServer
  readonly targets: ProbeTargets
}

/** Starts the servers and the target; `stop` closes them all. */
export const startValidationContext = async (makeTarget: (config: ValidationTargetConfig) => Promise<HttpTarget>) => {
  const dns = await startDnsServer(validationZone)
  const targets = await startProbeTargets()
  const target = await makeTarget({
    dnsServers: [dns.server],
    // Generous: no test waits on a silent DNS server, and a loaded machine answers the first query slowly.
    dns: { timeoutMs: 1_500, tries: 2, cache: false },
    smtpProbePort: targets.port,
  })
  const client = makeClient(() => target)
  return {
    context: { client, dns, targets } satisfies ValidationContext,
    stop: async () => {
      await target.close()
      await targets.close()
      await dns.close()
    },
  }
}

/** POST /emails/validate that must answer 200; answers `data`. */
export const validate = async (client: Client, key: string, body: Record<string, unknown>) => {
  const answer = await client.call("POST", "/v1/emails/validate", { key, body })
  expect(answer.status, answer.text).toBe(200)
  expect(answer.json.success).toBe(true)
  return answer.json.data as Record<string, any>
}

/** POST /emails/validate/bulk that must answer 202, then GET until the job is completed or failed. */
export const runBulk = async (client: Client, key: string, body: Record<string, unknown>) => {
  const started = await client.call("POST", "/v1/emails/validate/bulk", { key, body })
  expect(started.status, started.text).toBe(202)
  const id = started.json.data.id as string
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    const read = await client.call("GET", `/v1/emails/validate/bulk/${id}`, { key })
    expect(read.status, read.text).toBe(200)
    const job = read.json.data as Record<string, any>
    if (job.status === "completed" || job.status === "failed") return { started: started.json.data as Record<string, any>, job }
    // While it runs, only its progress shows.
    expect(job.results).toBeNull()
    expect(job.processed).toBeLessThanOrEqual(job.total)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`bulk validation ${id} did not finish within 30 s`)
}
