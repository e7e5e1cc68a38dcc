// validate-bulk: POST /v1/emails/validate/bulk of 10,000 addresses over 500 domains, without `extended`, against a
// local DNS server (dns2, 127.0.0.1), timed from the request until GET /v1/emails/validate/bulk/{id} answers the job
// completed: the job queue, the checks, the MX lookups through the DNS port (cached per domain) and each chunk of
// results stored. Its floor is a bare loop doing the same lookups with the same cache: @mailroom/net's NodeDns asked
// for the MX records of each address's domain, at the same concurrency as a job (validationLimits.bulkConcurrency).
// Each round uses 500 new domain names, so that both sides start with a cold cache. Target 0.5 (addresses per second).
// Run alone with `npm run bench -- validate-bulk` (MAILROOM_BENCH_BACKENDS=sqlite to skip Postgres).
import { validationLimits } from "@mailroom/core"
import { makeNodeDns } from "@mailroom/net"
import dns2 from "dns2"
import { Effect } from "effect"
import { createMailroom } from "@mailroom/mailroom"
import { freshPostgresUrl, freshSqliteFile, interleave, report } from "./lib.mjs"

const target = 0.5
const addresses = 10_000
const domains = 500
const hosts = 50
const synchronous = process.env.SQLITE_SYNCHRONOUS ?? "FULL"

/** A DNS server on 127.0.0.1 (dns2, UDP) answering A and MX records from `zone`, NXDOMAIN for other names. The test
 *  server of @mailroom/testing does the same, but that package loads vitest. */
const startDns = async () => {
  const zone = new Map()
  const { Packet } = dns2
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request)
      const question = request.questions[0]
      const entry = zone.get(question.name.toLowerCase())
      if (entry === undefined) response.header.rcode = 3
      else {
        const base = { name: question.name, class: Packet.CLASS.IN, ttl: entry.ttl }
        if (question.type === Packet.TYPE.A) for (const address of entry.a ?? []) response.answers.push({ ...base, type: Packet.TYPE.A, address })
        if (question.type === Packet.TYPE.MX) for (const mx of entry.mx ?? []) response.answers.push({ ...base, type: Packet.TYPE.MX, ...mx })
      }
      send(response)
    },
  })
  const addresses = await server.listen({ udp: { port: 0, address: "127.0.0.1" } })
  return { zone, server: `127.0.0.1:${addresses.udp.port}`, close: () => server.close() }
}

const dns = await startDns()
let round = 0

/** 10,000 addresses over 500 domains new to both caches, each domain's MX published with a TTL of 300 s; the
 *  addresses go round the domains, as a list sorted by anything but domain would. */
const nextAddresses = () => {
  const tag = `r${round++}`
  for (let at = 0; at < hosts; at++) dns.zone.set(`mx${at}.${tag}.bench.example`, { a: ["127.0.0.1"], ttl: 300 })
  for (let at = 0; at < domains; at++) {
    dns.zone.set(`d${at}.${tag}.bench.example`, { mx: [{ exchange: `mx${at % hosts}.${tag}.bench.example`, priority: 10 }], ttl: 300 })
  }
  return Array.from({ length: addresses }, (_, at) => `user${at}@d${at % domains}.${tag}.bench.example`)
}

const databaseFor = async (backend) =>
  backend === "sqlite" ? `sqlite:${freshSqliteFile("validate-bulk")}` : await freshPostgresUrl("bench_validate_bulk")

/** Addresses per second of one bulk job, request to completed. */
const mailroomRound = (mailroom, apiKey) => async () => {
  const emails = nextAddresses()
  const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }
  const started = performance.now()
  const posted = await mailroom.fetch(new Request("http://bench.local/v1/emails/validate/bulk", {
    method: "POST", headers, body: JSON.stringify({ emails }),
  }))
  if (posted.status !== 202) throw new Error(`bulk validation answered ${posted.status}: ${await posted.text()}`)
  const { id } = (await posted.json()).data
  while (true) {
    const read = await mailroom.fetch(new Request(`http://bench.local/v1/emails/validate/bulk/${id}`, { headers }))
    const job = (await read.json()).data
    if (job.status === "completed") {
      if (job.results.length !== addresses || !job.results.every((result) => result.valid)) throw new Error("bulk validation answered wrong results")
      return addresses / ((performance.now() - started) / 1000)
    }
    if (job.status === "failed") throw new Error(`bulk validation failed: ${JSON.stringify(job.error)}`)
    // A client polls. A poll of a running job reads its progress only (not its addresses, nor its results): every 25 ms
    // costs the job little, and the time measured is within 25 ms of the results being ready.
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** Addresses per second of the bare loop: the same MX lookups through a NodeDns with the same cache settings. */
const floorRound = (resolver) => async () => {
  const emails = nextAddresses()
  const started = performance.now()
  let next = 0
  const worker = async () => {
    while (next < emails.length) {
      const email = emails[next++]
      const records = await Effect.runPromise(resolver.resolveMx(email.slice(email.lastIndexOf("@") + 1)))
      if (records.length === 0) throw new Error(`no MX for ${email}`)
    }
  }
  await Promise.all(Array.from({ length: validationLimits.bulkConcurrency }, worker))
  return addresses / ((performance.now() - started) / 1000)
}

export const run = async ({ backends }) => {
  try {
    for (const backend of backends) {
      const database = await databaseFor(backend)
      if (database === undefined) {
        console.log(`bench validate-bulk ${backend}: skipped (no database server answers)`)
        continue
      }
      const mailroom = createMailroom({
        database, sqliteSynchronous: synchronous, logLevel: "error", dnsServers: [dns.server],
        rateLimits: { requestsPerSecond: 1_000_000_000, failedAuthenticationsPerMinute: 1_000_000_000 },
      })
      await mailroom.ready()
      try {
        const { apiKey } = await mailroom.accounts.create({ name: "bench", plan: "pro" })
        const [x, y] = await interleave(mailroomRound(mailroom, apiKey), floorRound(makeNodeDns({ servers: [dns.server] })), 5, 2)
        report("validate-bulk", backend, x, y, target, `(addresses per second; ${addresses} over ${domains} domains)`)
      } finally {
        await mailroom.close()
      }
    }
  } finally {
    await dns.close()
  }
}

// Run directly: `node bench/validate-bulk.mjs [sqlite,postgres]`.
if (import.meta.url === `file://${process.argv[1]}`) {
  await run({ backends: (process.argv[2] ?? process.env.MAILROOM_BENCH_BACKENDS ?? "sqlite,postgres").split(",") })
}
