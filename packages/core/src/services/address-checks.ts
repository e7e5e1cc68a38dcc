/** The checks of one address, as POST /emails/validate and each address of a bulk job make them: syntax, then the
 *  domain's mail hosts through the Dns port (MX, else A/AAAA), then, with `extended`, an SMTP probe of the best MX
 *  host through the SmtpProbe port. A checker is made per request or per bulk run: it asks DNS once per domain and
 *  once per MX host, and opens at most `probesPerMxHost` sessions to one host at a time. */
import { Duration, Effect, Either } from "effect"
import { type ParsedAddress, parseAddressSyntax } from "../domain/address-syntax.js"
import {
  type AddressChecks, type AddressVerdict, invalidReason, isDisposableDomain, isRoleAccount, isValidAddress, mailHostsOf,
  suggestedDomain, validationLimits,
} from "../domain/address-validation.js"
import { DnsLookupFailed } from "../errors.js"
import { Dns, DnsError, recordsOrNone } from "../ports/dns.js"
import { type ProbeAnswer, SmtpProbe } from "../ports/smtp-probe.js"

export interface CheckOptions {
  readonly extended: boolean
  /** Bounds every step: each DNS lookup, and each step of the SMTP session. */
  readonly timeoutMs: number
}

/** Where the domain's mail goes: the host to probe, or none when it takes no mail. */
interface MailRoute {
  readonly acceptsMail: boolean
  readonly host: string | undefined
}

export interface AddressChecker {
  /** The verdict for `email`; DnsLookupFailed when the domain's records could not be looked up (never for a domain
   *  that has none). */
  readonly check: (email: string) => Effect.Effect<AddressVerdict, DnsLookupFailed>
  /** The verdicts of `emails`, in their order, each as `check` gives it: each domain new to the checker is looked up
   *  once (`bulkConcurrency` at a time), then the addresses are judged in one pass; only with `extended` is each
   *  address a step of its own (its SMTP session). */
  readonly checkAll: (emails: ReadonlyArray<string>) => Effect.Effect<Array<Either.Either<AddressVerdict, DnsLookupFailed>>>
}

interface Probed {
  readonly smtpHandshake: boolean | null
  readonly catchAll: boolean | null
}

const notProbed: Probed = { smtpHandshake: null, catchAll: null }

const probeValue = (answer: ProbeAnswer | undefined): boolean | null =>
  answer === "accepted" ? true : answer === "rejected" ? false : null

/** A mailbox nobody has: a server that accepts it accepts every address (catch-all). */
const randomMailbox = () => `mailroom-probe-${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`

export const makeAddressChecker = (options: CheckOptions): Effect.Effect<AddressChecker> =>
  Effect.gen(function* () {
    const dns = yield* Dns
    const probe = yield* SmtpProbe
    const timeout = Duration.millis(options.timeoutMs)
    const bounded = <A>(hostname: string, lookup: Effect.Effect<A, DnsError>) =>
      Effect.timeoutFail(lookup, {
        duration: timeout,
        onTimeout: () => new DnsError({ hostname, reason: `no answer within ${options.timeoutMs} ms`, kind: "failed" }),
      })

    const lookUpRoute = (domain: string): Effect.Effect<MailRoute, DnsLookupFailed> =>
      Effect.gen(function* () {
        const hosts = mailHostsOf(yield* bounded(domain, recordsOrNone(dns.resolveMx(domain))))
        if (hosts._tag === "none") return { acceptsMail: false, host: undefined }
        if (hosts._tag === "exchanges") return { acceptsMail: true, host: hosts.hosts[0] }
        // No MX record: RFC 5321 5.1 takes the domain itself as the mail host, when it has an address.
        const addresses = yield* bounded(domain, recordsOrNone(dns.lookupAddresses(domain)))
        return addresses.length > 0 ? { acceptsMail: true, host: domain } : { acceptsMail: false, host: undefined }
      }).pipe(Effect.mapError((error) => new DnsLookupFailed({ hostname: error.hostname, reason: error.reason })))

    /** Each domain's route, once looked up (a failed lookup too: the checker answers the same for the whole request). */
    const routes = new Map<string, Either.Either<MailRoute, DnsLookupFailed>>()
    const route = (domain: string): Effect.Effect<MailRoute, DnsLookupFailed> => {
      const known = routes.get(domain)
      if (known !== undefined) return known
      return Effect.either(lookUpRoute(domain)).pipe(
        Effect.tap((found) => Effect.sync(() => routes.set(domain, found))),
        Effect.flatten,
      )
    }
    /** Looks up, `bulkConcurrency` at a time, the domains not looked up yet. */
    const lookUpRoutes = (domains: Iterable<string>) => {
      const missing = [...new Set(domains)].filter((domain) => !routes.has(domain))
      return Effect.forEach(missing, (domain) => Effect.either(route(domain)), {
        concurrency: validationLimits.bulkConcurrency,
        discard: true,
      })
    }

    // A host whose address cannot be found is not probed: the handshake is unknown.
    const hostAddress = yield* Effect.cachedFunction((host: string) =>
      bounded(host, dns.lookupAddresses(host)).pipe(
        Effect.map((addresses) => addresses[0]),
        Effect.orElseSucceed(() => undefined),
      ))

    /** What the domain alone decides (disposable, a typo's correction), once per domain. */
    const domainFacts = new Map<string, { readonly disposable: boolean; readonly suggestion: string | null }>()
    const factsOf = (domain: string) => {
      let facts = domainFacts.get(domain)
      if (facts === undefined) domainFacts.set(domain, facts = { disposable: isDisposableDomain(domain), suggestion: suggestedDomain(domain) })
      return facts
    }

    const hostPermits = new Map<string, Effect.Semaphore>()
    const permitsOf = (host: string) => {
      let permits = hostPermits.get(host)
      if (permits === undefined) hostPermits.set(host, permits = Effect.unsafeMakeSemaphore(validationLimits.probesPerMxHost))
      return permits
    }

    const handshake = (host: string, recipient: string, domain: string): Effect.Effect<Probed> =>
      Effect.gen(function* () {
        const address = yield* hostAddress(host)
        if (address === undefined) return notProbed
        const answers = yield* permitsOf(host).withPermits(1)(probe.probe({
          address,
          host,
          recipients: [recipient, `${randomMailbox()}@${domain}`],
          timeoutMs: options.timeoutMs,
        }))
        return { smtpHandshake: probeValue(answers[0]), catchAll: probeValue(answers[1]) }
      })

    type Parsed = Either.Either<ParsedAddress, string>

    /** The verdict of an address whose syntax failed. */
    const malformed = (email: string, problem: string): AddressVerdict => {
      const checks: AddressChecks = {
        syntax: false, mxRecords: false, smtpHandshake: null, disposable: false, roleAccount: false, catchAll: null,
      }
      return { email, valid: false, checks, suggestion: null, reason: invalidReason(checks, problem), error: null }
    }

    /** The verdict of a well-formed address once its domain's route (and, with `extended`, the probe) is known. */
    const judged = (email: string, { localPart, domain }: ParsedAddress, mail: MailRoute, probed: Probed): AddressVerdict => {
      const facts = factsOf(domain)
      const checks: AddressChecks = {
        syntax: true,
        mxRecords: mail.acceptsMail,
        ...probed,
        disposable: facts.disposable,
        roleAccount: isRoleAccount(localPart),
      }
      const betterDomain = facts.suggestion
      return {
        email,
        valid: isValidAddress(checks),
        checks,
        suggestion: betterDomain === null ? null : `${localPart}@${betterDomain}`,
        reason: invalidReason(checks, null),
        error: null,
      }
    }

    const probedOf = (parsed: ParsedAddress, mail: MailRoute): Effect.Effect<Probed> =>
      options.extended && mail.acceptsMail && mail.host !== undefined
        ? handshake(mail.host, parsed.address, parsed.domain)
        : Effect.succeed(notProbed)

    const checkParsed = (email: string, parsed: Parsed): Effect.Effect<AddressVerdict, DnsLookupFailed> =>
      Either.isLeft(parsed)
        ? Effect.succeed(malformed(email, parsed.left))
        : Effect.flatMap(route(parsed.right.domain), (mail) =>
          Effect.map(probedOf(parsed.right, mail), (probed) => judged(email, parsed.right, mail, probed)))

    const check = (email: string) => checkParsed(email, parseAddressSyntax(email))

    const checkAll = (emails: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const parsed = emails.map(parseAddressSyntax)
        yield* lookUpRoutes(parsed.flatMap((address) => Either.isRight(address) ? [address.right.domain] : []))
        if (options.extended) {
          return yield* Effect.forEach(emails, (email, at) => Effect.either(checkParsed(email, parsed[at]!)), {
            concurrency: validationLimits.bulkConcurrency,
          })
        }
        // Without a probe every answer is known now: one pass, no step per address.
        return emails.map((email, at): Either.Either<AddressVerdict, DnsLookupFailed> => {
          const address = parsed[at]!
          if (Either.isLeft(address)) return Either.right(malformed(email, address.left))
          const mail = routes.get(address.right.domain)!
          return Either.map(mail, (found) => judged(email, address.right, found, notProbed))
        })
      })

    return { check, checkAll }
  })
