/** The daily re-check of sending domains (docs/domains.md, "When a domain fails"): a job that reads the records of every
 *  verified domain again, fresh from DNS, and applies the re-check rule (core's decideRecheck): a verified domain whose
 *  records have failed for 3 days, and a pending domain never verified within 7 days, become failed. The spec has no
 *  domain events, so a domain that fails is logged (a warning) rather than announced to webhooks. */
import { Clock, Duration, Effect, Option, Schema } from "effect"
import { decideRecheck, type Domain, type VerificationFindings } from "../domain/domain.js"
import { currentDate } from "../internal/time.js"
import { defineJob, JobQueue } from "../ports/job-queue.js"
import { Store } from "../ports/store.js"
import { readRecords, type RecordSettings } from "./domain-checks.js"

const dayMs = 24 * 60 * 60 * 1000

/** One run per day, at 00:00 UTC. A run that fails is tried again after 5 minutes, 30 minutes and 2 hours; a run is
 *  idempotent (each domain is decided from its current row and the records read now), so a repeat is harmless. */
export const domainRecheckJob = defineJob("domain.recheck", Schema.Struct({ day: Schema.Number }), {
  retry: { delays: [Duration.minutes(5), Duration.minutes(30), Duration.hours(2)] },
  timeout: Duration.minutes(30),
})

/** Domains read per page, and domains checked at a time. */
export const recheckPaging = { pageSize: 100, concurrency: 4 } as const

/** Queues the next day's run, due at its start (00:00 UTC). The day is the dedupe key: however many processes start,
 *  and however often a run is retried, one run waits per day. Queued by every process at start and by each run before
 *  it checks anything, so that a run that fails for good still leaves tomorrow's queued; on a durable queue (SQLite,
 *  Postgres) the waiting run survives restarts, and a process that was down at midnight runs it when it starts. */
export const scheduleDomainRecheck = Effect.gen(function* () {
  const queue = yield* JobQueue
  const day = Math.floor((yield* Clock.currentTimeMillis) / dayMs) + 1
  return yield* queue.enqueue(domainRecheckJob, { day }, { dedupeKey: `day-${day}`, runAt: new Date(day * dayMs) })
})

/** What one run did. */
export interface RecheckSummary {
  readonly checked: number
  readonly failed: number
  /** Verified domains whose records could not be read (a lookup failed): left as they were until the next run. */
  readonly lookupErrors: number
}

/** Re-checks one domain: a verified one's records are read again (a failed lookup leaves them unread), then the rule
 *  decides, in a transaction on the domain's current row (a verify that ran meanwhile is not overwritten). Answers the
 *  domain as decided, or none when it was deleted meanwhile. */
export const recheckDomain = (domain: Domain, settings: RecordSettings) =>
  Effect.gen(function* () {
    const store = yield* Store
    const read = domain.status === "verified" ? yield* Effect.either(readRecords(domain, settings)) : undefined
    if (read?._tag === "Left") {
      yield* Effect.logWarning(`domain re-check: the records of ${domain.hostname} could not be read (${read.left.reason}); it is checked again at the next run`)
    }
    const findings: VerificationFindings | null = read?._tag === "Right" ? read.right : null
    return yield* store.transaction(Effect.gen(function* () {
      const current = yield* store.domains.findById(domain.accountId, domain.id)
      if (Option.isNone(current)) return { decided: Option.none<Domain>(), lookupError: read?._tag === "Left" }
      // Findings read for a verified domain apply only while it is still verified (a delete and re-add, or a failure
      // decided by another run, since).
      const applicable = current.value.status === "verified" ? findings : null
      const decided = decideRecheck(current.value, applicable, yield* currentDate)
      if (decided !== current.value) yield* store.domains.update(decided)
      if (decided.status === "failed" && current.value.status !== "failed") {
        yield* Effect.logWarning(`domain re-check: ${decided.hostname} (${decided.id}, account ${decided.accountId}) is now failed; its mail is no longer signed`)
      }
      return { decided: Option.some(decided), lookupError: read?._tag === "Left" }
    }))
  })

/** One run: every pending and verified domain, page by page in id order, a few at a time. */
export const recheckDomains = (settings: RecordSettings) =>
  Effect.gen(function* () {
    const store = yield* Store
    let after: string | undefined
    let checked = 0
    let failed = 0
    let lookupErrors = 0
    while (true) {
      const page = yield* store.domains.listForRecheck(after, recheckPaging.pageSize)
      const outcomes = yield* Effect.forEach(page, (domain) => recheckDomain(domain, settings), { concurrency: recheckPaging.concurrency })
      for (const outcome of outcomes) {
        checked += 1
        if (outcome.lookupError) lookupErrors += 1
        if (Option.isSome(outcome.decided) && outcome.decided.value.status === "failed") failed += 1
      }
      if (page.length < recheckPaging.pageSize) break
      after = page.at(-1)!.id
    }
    const summary: RecheckSummary = { checked, failed, lookupErrors }
    yield* Effect.logInfo(`domain re-check: ${checked} domains checked, ${failed} failed, ${lookupErrors} could not be read`)
    return summary
  })
