/** Tracking: answers the open pixel and the click redirect, classifies each hit at request time, and records hits in
 *  batches off the request's path. Spec: audience "details of email.opened and email.clicked"; issue "Open and click
 *  tracking" 2-3; CONTRACT.md "Tracking links"; docs/tracking.md.
 *
 *  - Answers need no database read: the token is signed and carries the message, the recipient and, for a click, the
 *    target and position. A forged or altered token answers not-found; a genuine one always gets its answer, even when
 *    the hit cannot be recorded (expired, buffer full, store down).
 *  - Hits wait in memory and are written every `flushInterval` (default 1 s) in one Store transaction per batch, with
 *    their email.opened and email.clicked events in the outbox: a crash of the process loses at most the hits of the
 *    last interval; nothing is written twice (hit ids are fixed when the hit is taken).
 *  - Events fire for people only (human, proxy_human). API mail fires email.opened once per message and recipient;
 *    campaign mail on every human open. A person's click implies an open: the first click of a recipient who has no
 *    open yet records one (signal implied_by_click) and fires email.opened. */
import { Clock, Context, Effect, Option } from "effect"
import type { AccountId } from "../domain/account.js"
import type { DomainEvent } from "../domain/event.js"
import {
  type ClickEvidence, classifyHit, clickBurst, type HitNetworks, type HitRequest, isPersonHit, type TrackingHit,
} from "../domain/tracking.js"
import { appleEgressRanges, makeRangeMatcher, scannerNetworkRanges } from "../domain/tracking-networks.js"
import type { TokenClaims } from "../domain/token.js"
import type { StoreError } from "../errors.js"
import { makeRecentCache } from "../internal/recent-cache.js"
import { Geo } from "../ports/geo.js"
import { Ids } from "../ports/ids.js"
import { type OpenKey, Store } from "../ports/store.js"
import { recordHitAnalytics } from "./analytics-recording.js"
import { Background } from "./background.js"
import { Tokens } from "./tokens.js"

export interface TrackingOptions {
  /** Address ranges (CIDR) counted as Apple Mail Privacy Protection's, beside the shipped list. */
  readonly appleRanges?: ReadonlyArray<string> | undefined
  /** Address ranges (CIDR) of mail security scanners, beside the shipped list. */
  readonly scannerRanges?: ReadonlyArray<string> | undefined
  /** How long hits wait in memory before they are written, in milliseconds. Default 1000. */
  readonly flushIntervalMs?: number | undefined
  /** Most hits kept in memory while the store cannot take them; past it new hits are not recorded. Default 100,000. */
  readonly maxPending?: number | undefined
}

/** How tracking is set up; the facade provides it from its `tracking` option. */
export class TrackingConfig extends Context.Reference<TrackingConfig>()("@mailroom/core/TrackingConfig", {
  defaultValue: (): TrackingOptions => ({}),
}) {}

/** What a tracking request is answered with. */
export type TrackingAnswer =
  | { readonly kind: "pixel" }
  | { readonly kind: "redirect"; readonly url: string }
  /** The honeypot link: a blank page, never a redirect. */
  | { readonly kind: "honeypot" }
  /** Forged, altered or malformed: a plain 404 page. */
  | { readonly kind: "not-found" }

/** A tracking request: its method, headers and client address, and whether it came through a trusted proxy. */
export interface TrackingRequest extends HitRequest {
  readonly trustedProxy: boolean
}

/** A hit waiting to be written, with what its event needs beyond the stored row. */
interface PendingHit {
  readonly hit: TrackingHit
  readonly userAgent: string | null
}

const keyOf = (hit: { readonly accountId: string; readonly messageId: string; readonly recipient: string }) =>
  `${hit.accountId}\u0000${hit.messageId}\u0000${hit.recipient}`

/** Most messages and recipients whose recent clicks are remembered for the burst and honeypot rules. */
const recentClickKeys = 10_000
/** Most clicks remembered per message and recipient. */
const recentClicksPerKey = 32

export class Tracking extends Effect.Service<Tracking>()("@mailroom/core/Tracking", {
  scoped: Effect.gen(function* () {
    const tokens = yield* Tokens
    const store = yield* Store
    const ids = yield* Ids
    const background = yield* Background
    const config = yield* TrackingConfig
    const networks: HitNetworks = {
      apple: makeRangeMatcher([...appleEgressRanges, ...(config.appleRanges ?? [])]),
      scanners: makeRangeMatcher([...scannerNetworkRanges, ...(config.scannerRanges ?? [])]),
    }
    const maxPending = config.maxPending ?? 100_000
    let pending: Array<PendingHit> = []
    /** Clicks of each message and recipient in the last burst span: position (-1 for the honeypot) and time. */
    const recent = makeRecentCache<string, Array<{ readonly position: number; readonly at: number }>>(recentClickKeys)

    const take = (hit: PendingHit) => {
      if (pending.length >= maxPending) return
      pending.push(hit)
    }

    /** The evidence about a click beyond its request, and the click remembered for the ones after it. */
    const clickEvidence = (claims: TokenClaims, now: number): ClickEvidence => {
      const seen = recent.get(`${claims.a}\u0000${claims.m}\u0000${claims.r}`, () => [])
      while (seen.length > 0 && now - seen[0]!.at > clickBurst.spanMs) seen.shift()
      const position = claims.h === 1 ? -1 : claims.i ?? 0
      const others = new Set(seen.filter((s) => s.position !== position && s.position >= 0).map((s) => s.position))
      const honeypotSeen = seen.some((s) => s.position === -1)
      seen.push({ position, at: now })
      // A link followed over and over (a person's refreshes, a load test) keeps the list short.
      if (seen.length > recentClicksPerKey) seen.shift()
      return { honeypot: claims.h === 1, sentAtMs: claims.s, nowMs: now, otherLinksInBurst: others.size, honeypotSeen }
    }

    /** Classifies and keeps one hit of a genuine, unexpired token. */
    const record = (claims: TokenClaims, request: TrackingRequest, now: number) =>
      Effect.gen(function* () {
        if (claims.m === undefined) return
        const kind = claims.p === "click" ? "click" as const : "open" as const
        const evidence = kind === "click" ? clickEvidence(claims, now) : undefined
        const verdict = classifyHit(kind, request, networks, evidence)
        const geo = yield* Geo
        // The country only for people: the geographic figures leave machines out.
        const country = isPersonHit(verdict.classification)
          ? geo.country({ address: request.address, headers: request.headers, trustedProxy: request.trustedProxy })
          : null
        const at = new Date(now)
        take({
          hit: {
            id: ids.make("trackingHit", at),
            accountId: claims.a,
            messageId: claims.m,
            recipient: claims.r,
            kind,
            classification: verdict.classification,
            signal: verdict.signal,
            occurredAt: at,
            country,
            url: kind === "click" && claims.h !== 1 ? claims.u ?? null : null,
            position: kind === "click" ? (claims.h === 1 ? -1 : claims.i ?? null) : null,
            campaignId: claims.c ?? null,
          },
          userAgent: request.headers.get("user-agent"),
        })
      })

    /** The pixel's answer: always the GIF once the token is genuine (so that a forged one learns nothing else). */
    const open = (token: string, request: TrackingRequest): Effect.Effect<TrackingAnswer> =>
      Effect.gen(function* () {
        const inspected = yield* Effect.option(tokens.inspect("open", token))
        if (Option.isNone(inspected)) return { kind: "not-found" } as const
        const now = yield* Clock.currentTimeMillis
        if (!inspected.value.expired) yield* record(inspected.value.claims, request, now)
        return { kind: "pixel" } as const
      })

    /** The click's answer: a redirect to the target the token carries (an expired link still redirects, recording
     *  nothing), the honeypot's blank page, or not-found. */
    const click = (token: string, request: TrackingRequest): Effect.Effect<TrackingAnswer> =>
      Effect.gen(function* () {
        const inspected = yield* Effect.option(tokens.inspect("click", token))
        if (Option.isNone(inspected)) return { kind: "not-found" } as const
        const { claims, expired } = inspected.value
        const target = claims.u
        if (claims.h !== 1 && (target === undefined || !/^https?:\/\//i.test(target))) return { kind: "not-found" } as const
        const now = yield* Clock.currentTimeMillis
        // Recording never stands in the redirect's way.
        if (!expired) yield* Effect.catchAllDefect(record(claims, request, now), () => Effect.void)
        return claims.h === 1 ? { kind: "honeypot" } as const : { kind: "redirect", url: target! } as const
      })

    /** Writes the hits taken so far, with their events, in one transaction. On failure they are kept for the next
     *  flush. */
    const flush: Effect.Effect<void, StoreError> = Effect.gen(function* () {
      if (pending.length === 0) return
      const batch = pending
      pending = []
      const written = yield* Effect.either(store.transaction(writeBatch(convict(batch))))
      if (written._tag === "Left") {
        pending = [...batch, ...pending].slice(0, maxPending)
        return yield* Effect.fail(written.left)
      }
    })

    /** The events and rows of a batch: clicks convicted by a later click of the same batch (a burst or the honeypot
     *  found after them) count as the bot's too. */
    const convict = (batch: ReadonlyArray<PendingHit>): ReadonlyArray<PendingHit> => {
      const convicted = new Map<string, { readonly at: number; readonly signal: TrackingHit["signal"] }>()
      for (const { hit } of batch) {
        if (hit.kind === "click" && (hit.signal === "honeypot" || hit.signal === "click_burst")) {
          convicted.set(keyOf(hit), { at: hit.occurredAt.getTime(), signal: hit.signal })
        }
      }
      if (convicted.size === 0) return batch
      return batch.map((one) => {
        const found = convicted.get(keyOf(one.hit))
        if (one.hit.kind !== "click" || found === undefined || !isPersonHit(one.hit.classification)) return one
        if (Math.abs(found.at - one.hit.occurredAt.getTime()) > clickBurst.spanMs) return one
        return { ...one, hit: { ...one.hit, classification: "bot", signal: found.signal, country: null } }
      })
    }

    const writeBatch = (batch: ReadonlyArray<PendingHit>) =>
      Effect.gen(function* () {
        const people = batch.filter(({ hit }) => isPersonHit(hit.classification))
        const firsts = yield* store.tracking.markOpened(people.map(({ hit }): OpenKey => ({
          accountId: hit.accountId as AccountId, messageId: hit.messageId, recipient: hit.recipient,
        })), people[0]?.hit.occurredAt ?? new Date(0))
        const first = new Set(firsts.map(keyOf))
        const rows: Array<TrackingHit> = batch.map(({ hit }) => hit)
        const events: Array<DomainEvent> = []
        for (const { hit, userAgent } of people) {
          const key = keyOf(hit)
          const isFirst = first.delete(key)
          if (hit.kind === "open") {
            // API mail: the first open only; campaign mail: every human open.
            if (isFirst || hit.campaignId !== null) events.push(engagementEvent(hit, userAgent, "email.opened"))
            continue
          }
          if (isFirst) {
            const implied: TrackingHit = {
              ...hit, id: ids.make("trackingHit", hit.occurredAt), kind: "open", signal: "implied_by_click", url: null, position: null,
            }
            rows.push(implied)
            events.push(engagementEvent(implied, userAgent, "email.opened"))
          }
          events.push(engagementEvent(hit, userAgent, "email.clicked"))
        }
        yield* store.tracking.insertHits(rows)
        // The analytics of every hit (machines and bots counted apart) commit with the hits.
        yield* Effect.provideService(recordHitAnalytics(rows), Store, store)
        if (events.length > 0) yield* store.events.append(events)
      })

    const engagementEvent = (hit: TrackingHit, userAgent: string | null, type: "email.opened" | "email.clicked"): DomainEvent => ({
      id: ids.make("event", hit.occurredAt),
      accountId: hit.accountId as AccountId,
      type,
      recipient: hit.recipient,
      occurredAt: hit.occurredAt,
      details: {
        email: hit.recipient,
        ...(hit.campaignId === null ? { trackingId: hit.messageId } : { campaignId: hit.campaignId }),
        ...(type === "email.clicked" ? { url: hit.url } : {}),
        userAgent,
        engagementType: "HUMAN",
      },
    })

    yield* background.every("tracking.flush", `${config.flushIntervalMs ?? 1000} millis`, flush)
    // Hits still waiting when Mailroom closes are written before the Store goes.
    yield* Effect.addFinalizer(() => Effect.catchAll(flush, (error) => Effect.logError("tracking: hits could not be written at close", error)))

    /** Hits waiting to be written (tests, metrics). */
    const pendingCount = Effect.sync(() => pending.length)

    return { open, click, flush, pendingCount } as const
  }),
}) {}
