/** The checks of one address, as POST /emails/validate and each address of a bulk job make them: syntax, then the
 *  domain's mail hosts through the Dns port (MX, else A/AAAA), then, with `extended`, an SMTP probe of the best MX
 *  host through the SmtpProbe port. A checker is made per request or per bulk run: it asks DNS once per domain and
 *  once per MX host, and opens at most `probesPerMxHost` sessions to one host at a time. */
import { Duration, Effect, Either } from "effect"
import { parseAddressSyntax } from "../domain/address-syntax.js"
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
}

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

    const route = yield* Effect.cachedFunction((domain: string): Effect.Effect<MailRoute, DnsLookupFailed> =>
      Effect.gen(function* () {
        const hosts = mailHostsOf(yield* bounded(domain, recordsOrNone(dns.resolveMx(domain))))
        if (hosts._tag === "none") return { acceptsMail: false, host: undefined }
        if (hosts._tag === "exchanges") return { acceptsMail: true, host: hosts.hosts[0] }
        // No MX record: RFC 5321 5.1 takes the domain itself as the mail host, when it has an address.
        const addresses = yield* bounded(domain, recordsOrNone(dns.lookupAddresses(domain)))
        return addresses.length > 0 ? { acceptsMail: true, host: domain } : { acceptsMail: false, host: undefined }
      }).pipe(Effect.mapError((error) => new DnsLookupFailed({ hostname: error.hostname, reason: error.reason }))))

    // A host whose address cannot be found is not probed: the handshake is unknown.
    const hostAddress = yield* Effect.cachedFunction((host: string) =>
      bounded(host, dns.lookupAddresses(host)).pipe(
        Effect.map((addresses) => addresses[0]),
        Effect.orElseSucceed(() => undefined),
      ))

    const suggestion = yield* Effect.cachedFunction((domain: string) => Effect.sync(() => suggestedDomain(domain)))

    const hostPermits = new Map<string, Effect.Semaphore>()
    const permitsOf = (host: string) => {
      let permits = hostPermits.get(host)
      if (permits === undefined) hostPermits.set(host, permits = Effect.unsafeMakeSemaphore(validationLimits.probesPerMxHost))
      return permits
    }

    const handshake = (host: string, recipient: string, domain: string) =>
      Effect.gen(function* () {
        const address = yield* hostAddress(host)
        if (address === undefined) return { smtpHandshake: null, catchAll: null }
        const answers = yield* permitsOf(host).withPermits(1)(probe.probe({
          address,
          host,
          recipients: [recipient, `${randomMailbox()}@${domain}`],
          timeoutMs: options.timeoutMs,
        }))
        return { smtpHandshake: probeValue(answers[0]), catchAll: probeValue(answers[1]) }
      })

    const check = (email: string): Effect.Effect<AddressVerdict, DnsLookupFailed> =>
      Effect.gen(function* () {
        const parsed = parseAddressSyntax(email)
        if (Either.isLeft(parsed)) {
          const checks: AddressChecks = {
            syntax: false, mxRecords: false, smtpHandshake: null, disposable: false, roleAccount: false, catchAll: null,
          }
          return { email, valid: false, checks, suggestion: null, reason: invalidReason(checks, parsed.left), error: null }
        }
        const { localPart, domain, address } = parsed.right
        const mail = yield* route(domain)
        const probed = options.extended && mail.acceptsMail && mail.host !== undefined
          ? yield* handshake(mail.host, address, domain)
          : { smtpHandshake: null, catchAll: null }
        const checks: AddressChecks = {
          syntax: true,
          mxRecords: mail.acceptsMail,
          ...probed,
          disposable: isDisposableDomain(domain),
          roleAccount: isRoleAccount(localPart),
        }
        const betterDomain = yield* suggestion(domain)
        return {
          email,
          valid: isValidAddress(checks),
          checks,
          suggestion: betterDomain === null ? null : `${localPart}@${betterDomain}`,
          reason: invalidReason(checks, null),
          error: null,
        }
      })

    return { check }
  })
