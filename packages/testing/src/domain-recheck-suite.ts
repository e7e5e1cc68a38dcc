/** The daily domain re-check, run by every backend against its own Store: domains verified against a real DNS server on
 *  127.0.0.1 (dns2), a record removed afterwards, and the re-check job's runs under TestClock: a verified domain whose
 *  records stay wrong for 3 days becomes failed and stops signing, records that come back clear the count, a pending
 *  domain becomes failed after 7 days, a failed lookup changes nothing, and the schedule is one run per day whatever the
 *  number of processes (the day is the dedupe key). The JobQueue is a recording double: the test runs the job's work
 *  itself. The Store must be one of the suite's own: the re-check reads every account's domains. */
import { afterAll, describe, expect, it } from "@effect/vitest"
import {
  Accounts, Domains, domainRecheckJob, domainSettings, DomainsConfig, enqueueEach, IdsLive, JobQueue, type JobQueueService,
  recheckDomains, scheduleDomainRecheck, servicesLayer, type Store,
} from "@mailroom/core"
import { NodeDns } from "@mailroom/net"
import { Clock, Effect, Layer, Option, TestClock } from "effect"
import { startDnsServer, txtChunks } from "./dns-server.js"

let counter = 0
const freshHostname = () => `r${Date.now().toString(36)}${(counter++).toString(36)}.example`

export const domainRecheckSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  describe(`domain re-check (${backend})`, () => {
    const dnsReady = startDnsServer()
    afterAll(async () => { await (await dnsReady).close() })
    const enqueued: Array<{ readonly name: string; readonly payload: unknown; readonly dedupeKey?: string | undefined; readonly runAt?: Date | undefined }> = []
    const enqueue: JobQueueService["enqueue"] = (job, payload, options) =>
      Effect.sync(() => {
        const same = enqueued.findIndex((one) => one.name === job.name && options?.dedupeKey !== undefined && one.dedupeKey === options.dedupeKey)
        if (same >= 0) return `job_${same + 1}`
        enqueued.push({ name: job.name, payload, dedupeKey: options?.dedupeKey, runAt: options?.runAt })
        return `job_${enqueued.length}`
      })
    const queue = Layer.succeed(JobQueue, { enqueue, enqueueAll: enqueueEach(enqueue), work: () => Effect.void })
    const dnsLayer = Layer.unwrapEffect(Effect.map(Effect.promise(() => dnsReady), (dns) =>
      NodeDns.layer({ servers: [dns.server], timeoutMs: 300, tries: 1, cache: false })))
    const layer = Layer.mergeAll(
      servicesLayer.pipe(Layer.provideMerge(Layer.mergeAll(storeLayer, IdsLive, queue))),
      dnsLayer,
      Layer.succeed(DomainsConfig, { spfInclude: "_spf.mailroom.test", dmarcReportAddress: "dmarc@mailroom.test" }),
    )

    const zone = Effect.map(Effect.promise(() => dnsReady), (dns) => dns.zone)
    const day = Effect.sync(() => 24 * 60 * 60 * 1000)
    const runRecheck = Effect.flatMap(domainSettings, recheckDomains)

    /** An account with a domain whose four records are published and verified. */
    const verifiedDomain = Effect.gen(function* () {
      const { account } = yield* (yield* Accounts).create({ name: "re-check suite", plan: "pro" })
      const domains = yield* Domains
      const created = yield* domains.create(account, { hostname: freshHostname() })
      const txt = yield* zone
      const records = created.dnsRecords
      txt.set(records.verification.host, { txt: [records.verification.value, records.spf.value] })
      txt.set(records.dkim.host, { txt: [txtChunks(records.dkim.value)] })
      txt.set(records.dmarc.host, { txt: [records.dmarc.value] })
      const verified = yield* domains.verify(account, created.domain.id)
      expect(verified.domain.status).toBe("verified")
      return { account, domain: verified.domain, records }
    })
    const reload = (accountId: string, id: string) =>
      Effect.flatMap(Domains, (domains) => Effect.flatMap(Accounts, (accounts) => Effect.flatMap(accounts.get(accountId), (account) =>
        Effect.map(domains.get(account, id), (details) => details.domain))))

    it.layer(layer, { timeout: "60 seconds" })((it) => {
      it.effect("a verified domain whose DKIM record is removed stays verified and signing for 3 days, then becomes failed and stops signing", () =>
        Effect.gen(function* () {
          const { account, domain, records } = yield* verifiedDomain
          ;(yield* zone).delete(records.dkim.host)
          yield* TestClock.adjust("1 hour")
          yield* runRecheck
          const first = yield* reload(account.id, domain.id)
          expect(first.status).toBe("verified")
          expect(first.records.dkim.status).toBe("pending")
          expect(first.records.dkim.problem?.code).toBe("DNS_RECORD_MISSING")
          expect(first.failingSince?.getTime()).toBe(yield* Clock.currentTimeMillis)
          const domains = yield* Domains
          expect(Option.isSome(yield* domains.signingKey(account.id, domain.hostname))).toBe(true)
          yield* TestClock.adjust((yield* day) * 2)
          yield* runRecheck
          expect((yield* reload(account.id, domain.id)).status).toBe("verified")
          yield* TestClock.adjust((yield* day) - 1)
          yield* runRecheck
          expect((yield* reload(account.id, domain.id)).status).toBe("verified")
          yield* TestClock.adjust(1)
          yield* runRecheck
          const failed = yield* reload(account.id, domain.id)
          expect(failed.status).toBe("failed")
          expect(Option.isNone(yield* domains.signingKey(account.id, domain.hostname))).toBe(true)
          // A failed domain is verified again by POST /domains/{id}/verify once its records are back.
          ;(yield* zone).set(records.dkim.host, { txt: [txtChunks(records.dkim.value)] })
          yield* runRecheck
          expect((yield* reload(account.id, domain.id)).status).toBe("failed")
          expect((yield* domains.verify(account, domain.id)).domain.status).toBe("verified")
        }))

      it.effect("records that come back before 3 days clear the count", () =>
        Effect.gen(function* () {
          const { account, domain, records } = yield* verifiedDomain
          const txt = yield* zone
          txt.delete(records.dmarc.host)
          yield* runRecheck
          expect((yield* reload(account.id, domain.id)).failingSince).not.toBeNull()
          yield* TestClock.adjust((yield* day) * 2)
          txt.set(records.dmarc.host, { txt: [records.dmarc.value] })
          yield* runRecheck
          const back = yield* reload(account.id, domain.id)
          expect([back.status, back.failingSince, back.records.dmarc.status]).toEqual(["verified", null, "verified"])
          txt.delete(records.dmarc.host)
          yield* TestClock.adjust((yield* day) * 2)
          yield* runRecheck
          yield* TestClock.adjust((yield* day) * 2)
          yield* runRecheck
          expect((yield* reload(account.id, domain.id)).status).toBe("verified")
        }))

      it.effect("a lookup that fails (SERVFAIL) changes nothing: the domain is neither failing nor failed", () =>
        Effect.gen(function* () {
          const { account, domain, records } = yield* verifiedDomain
          const txt = yield* zone
          txt.set(records.verification.host, { failure: "servfail" })
          yield* TestClock.adjust((yield* day) * 5)
          const summary = yield* runRecheck
          expect(summary.lookupErrors).toBeGreaterThanOrEqual(1)
          const after = yield* reload(account.id, domain.id)
          expect([after.status, after.failingSince, after.lastCheckedAt]).toEqual(["verified", null, domain.lastCheckedAt])
        }))

      it.effect("a pending domain not verified within 7 days becomes failed, without a lookup; it may be verified later", () =>
        Effect.gen(function* () {
          const { account } = yield* (yield* Accounts).create({ name: "re-check suite", plan: "pro" })
          const domains = yield* Domains
          const created = yield* domains.create(account, { hostname: freshHostname() })
          const dns = yield* Effect.promise(() => dnsReady)
          yield* TestClock.adjust((yield* day) * 7 - 1)
          yield* runRecheck
          expect((yield* reload(account.id, created.domain.id)).status).toBe("pending")
          const asked = dns.questions.length
          yield* TestClock.adjust(1)
          yield* runRecheck
          expect(dns.questions.slice(asked).filter((q) => q.includes(created.domain.hostname))).toEqual([])
          expect((yield* reload(account.id, created.domain.id)).status).toBe("failed")
          const records = created.dnsRecords
          dns.zone.set(records.verification.host, { txt: [records.verification.value, records.spf.value] })
          dns.zone.set(records.dkim.host, { txt: [txtChunks(records.dkim.value)] })
          dns.zone.set(records.dmarc.host, { txt: [records.dmarc.value] })
          expect((yield* domains.verify(account, created.domain.id)).domain.status).toBe("verified")
        }))

      it.effect("one run is queued per day, due at 00:00 UTC, whatever the number of processes and runs that queue it", () =>
        Effect.gen(function* () {
          yield* TestClock.adjust((yield* day) * 100 + 5 * 60 * 60 * 1000)
          const today = Math.floor((yield* Clock.currentTimeMillis) / (yield* day))
          const first = yield* scheduleDomainRecheck
          const second = yield* scheduleDomainRecheck
          expect(second).toBe(first)
          const job = enqueued.find((one) => one.dedupeKey === `day-${today + 1}`)
          expect(job).toEqual({
            name: domainRecheckJob.name, payload: { day: today + 1 }, dedupeKey: `day-${today + 1}`, runAt: new Date((yield* day) * (today + 1)),
          })
        }))
    })
  })
