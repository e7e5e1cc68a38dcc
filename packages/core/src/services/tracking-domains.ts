/** A brand's tracking domain: GET, PUT and DELETE /designs/brands/{id}/tracking-domain and POST .../verify, which reads
 *  the CNAME at the hostname through the Dns port (asked of the servers now). Same reach, scopes and plan as the brand
 *  routes (Brands.find). Delivery reads the verified domain of a message's brand (originFor). Spec: sending "Designs
 *  (template API)" (tracking-domain rows); CONTRACT.md "Tracking links"; docs/tracking.md "Tracking domain". */
import { Effect, Either, Option } from "effect"
import { TrackingDomainInUse, TrackingDomainNotFound } from "../brand-errors.js"
import type { AccountId } from "../domain/account.js"
import { parseHostname } from "../domain/domain.js"
import {
  checkCname, cnameTargetOf, type PutTrackingDomainInput, putTrackingDomain, type TrackingDomain, trackingOriginOf,
} from "../domain/tracking-domain.js"
import { DnsLookupFailed, ValidationFailed } from "../errors.js"
import { currentDate } from "../internal/time.js"
import { Dns, recordsOrNone } from "../ports/dns.js"
import { Store } from "../ports/store.js"
import { Brands, checkDesignStudio } from "./brands.js"
import type { DesignCaller } from "./designs.js"
import { LinksConfig } from "./tokens.js"
import { serviceMethod } from "./tracing.js"

/** A tracking domain as the API shows it: the record to publish and its state. */
export interface TrackingDomainView {
  readonly domain: TrackingDomain
  /** The CNAME target: the host of TRACK_URL. */
  readonly target: string
}

/** The brand a message is sent under: its template's brand, else the account's default brand. */
export const brandOfMessage = (store: Store["Type"], accountId: AccountId, templateBrandId: string | null | undefined) =>
  Effect.gen(function* () {
    if (templateBrandId !== null && templateBrandId !== undefined) return Option.some(templateBrandId)
    return Option.map(yield* store.brands.findDefault(accountId), (brand): string => brand.id)
  })

/** The origin of the links of mail sent under `brandId`: its verified tracking domain's, or none (TRACK_URL then). */
export const trackingOriginFor = (store: Store["Type"], accountId: AccountId, brandId: Option.Option<string>) =>
  Option.isNone(brandId)
    ? Effect.succeed(undefined)
    : Effect.map(store.brands.findTrackingDomain(accountId, brandId.value), (found) => trackingOriginOf(Option.getOrUndefined(found)))

export class TrackingDomains extends Effect.Service<TrackingDomains>()("@mailroom/core/TrackingDomains", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const brands = yield* Brands
    const links = yield* LinksConfig
    const method = yield* serviceMethod
    const target = cnameTargetOf(links.trackUrl ?? links.appUrl)
    const view = (domain: TrackingDomain): TrackingDomainView => ({ domain, target })
    /** Mailroom's own hosts (APP_URL's and TRACK_URL's): never a brand's tracking domain, which answers links only. */
    const ownHosts = new Set([cnameTargetOf(links.appUrl), target])

    const current = (caller: DesignCaller, brandId: string) =>
      Effect.flatMap(store.brands.findTrackingDomain(caller.account.id, brandId), Option.match({
        onNone: () => Effect.fail(new TrackingDomainNotFound({ brandId })),
        onSome: Effect.succeed,
      }))

    const get = method("TrackingDomains.get")(function* (caller: DesignCaller, brandId: string) {
      yield* checkDesignStudio(caller)
      const brand = yield* brands.find(caller, brandId)
      return view(yield* current(caller, brand.id))
    })

    /** PUT: a new hostname starts pending; the brand's current hostname is kept as it is. A hostname another brand holds
     *  (of any account) is refused with TRACKING_DOMAIN_IN_USE. */
    const put = method("TrackingDomains.put")(function* (caller: DesignCaller, brandId: string, input: PutTrackingDomainInput) {
      yield* checkDesignStudio(caller)
      const hostname = yield* Either.match(parseHostname(input.hostname), {
        onLeft: (detail) => Effect.fail(new ValidationFailed({ field: "hostname", detail })),
        onRight: Effect.succeed,
      })
      if (ownHosts.has(hostname)) {
        return yield* Effect.fail(new ValidationFailed({
          field: "hostname", detail: `${hostname} is Mailroom's own host; give a hostname of your own that points to ${target}`,
        }))
      }
      const at = yield* currentDate
      return yield* store.transaction(Effect.gen(function* () {
        const brand = yield* brands.find(caller, brandId)
        const holder = yield* store.brands.findTrackingDomainByHostname(hostname)
        if (Option.isSome(holder) && holder.value.brandId !== brand.id) return yield* Effect.fail(new TrackingDomainInUse({ hostname }))
        const before = Option.getOrUndefined(yield* store.brands.findTrackingDomain(caller.account.id, brand.id))
        const next = putTrackingDomain(before, { brandId: brand.id, accountId: caller.account.id, hostname, at })
        if (next !== before && !(yield* store.brands.saveTrackingDomain(next))) {
          return yield* Effect.fail(new TrackingDomainInUse({ hostname }))
        }
        return view(next)
      }))
    })

    const remove = method("TrackingDomains.remove")(function* (caller: DesignCaller, brandId: string) {
      yield* checkDesignStudio(caller)
      const brand = yield* brands.find(caller, brandId)
      if (!(yield* store.brands.deleteTrackingDomain(caller.account.id, brand.id))) {
        return yield* Effect.fail(new TrackingDomainNotFound({ brandId: brand.id }))
      }
      return { brandId: brand.id, deleted: true as const }
    })

    /** POST .../verify: verified when a CNAME at the hostname points to the target, failed with the reason otherwise.
     *  A lookup that fails (no answer, SERVFAIL) is DNS_LOOKUP_ERROR and changes nothing. */
    const verify = method("TrackingDomains.verify")(function* (caller: DesignCaller, brandId: string) {
      yield* checkDesignStudio(caller)
      const brand = yield* brands.find(caller, brandId)
      const domain = yield* current(caller, brand.id)
      const found = yield* Effect.flatMap(Dns, (dns) => recordsOrNone(dns.resolveCname(domain.hostname, { fresh: true }))).pipe(
        Effect.mapError((error) => new DnsLookupFailed({ hostname: domain.hostname, reason: error.reason })),
      )
      const decision = checkCname(domain.hostname, found, target)
      const at = yield* currentDate
      const next: TrackingDomain = {
        ...domain, status: decision.status, reason: decision.reason, lastCheckedAt: at, updatedAt: at,
        verifiedAt: decision.status === "verified" ? (domain.verifiedAt ?? at) : null,
      }
      return yield* store.transaction(Effect.gen(function* () {
        // Deleted or replaced meanwhile: the answer is about the domain as it is now.
        const now = yield* current(caller, brand.id)
        if (now.hostname !== domain.hostname) return view(now)
        yield* store.brands.saveTrackingDomain(next)
        return view(next)
      }))
    })

    /** Whether requests on `hostname` are on a brand's verified tracking domain, where Mailroom answers links only
     *  (the open pixel, click redirects, unsubscribe and preference pages). Mailroom's own hosts never are. */
    const isLinkHost = (hostname: string) =>
      ownHosts.has(hostname)
        ? Effect.succeed(false)
        : Effect.map(store.brands.findTrackingDomainByHostname(hostname), (found) =>
          Option.isSome(found) && found.value.status === "verified")

    return { get, put, remove, verify, isLinkHost } as const
  }),
}) {}
