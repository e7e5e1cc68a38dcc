/** Where a webhook delivery may connect: the URL rules, then the host's addresses through the Dns port, all of which
 *  must be allowed. The address answered here is the one the transport connects to (it never resolves again). Spec:
 *  audience "Webhooks", endpoint URL rules: checked on create, on update and on every delivery. */
import { Context, Effect, Either } from "effect"
import { checkAddresses, parseWebhookUrl, strictUrlRules, type UrlRules, type WebhookTarget } from "../domain/webhook.js"
import { Dns } from "../ports/dns.js"

/** Options of the webhook services; the facade sets them from its config. */
export interface WebhooksOptions {
  /** MAILROOM_UNSAFE_ALLOW_PRIVATE_URLS: http://, any port and loopback or private addresses, for local development. */
  readonly urlRules: UrlRules
  /** The From address of failure notices. */
  readonly notificationFrom?: string | undefined
  /** POSTs one delivery run makes at once to its endpoint (default 16), and delivery runs one process makes at once,
   *  times deliveryRunsPerPost. The transport bounds the POSTs under way in the process (@mailroom/net's
   *  UndiciTransport: `maxInFlight`, 16 by default). */
  readonly deliveryConcurrency?: number | undefined
  /** Delivery jobs one process runs at once per POST it may have in flight (default 1). Above 1, the reads and records
   *  of some runs overlap the POSTs of others: worth it where each statement is a round trip (Postgres, where the
   *  facade sets 4), not on SQLite, whose statements run on the event loop. A run waits for a POST's place behind at
   *  most this many minus one others, each at most the 10-second delivery timeout. */
  readonly deliveryRunsPerPost?: number | undefined
}

/** Delivery attempts made at once by one process (POSTs in flight), unless WebhooksConfig says otherwise. */
export const defaultDeliveryConcurrency = 16

export class WebhooksConfig extends Context.Reference<WebhooksConfig>()("@mailroom/core/WebhooksConfig", {
  defaultValue: (): WebhooksOptions => ({ urlRules: strictUrlRules }),
}) {}

export interface CheckedTarget extends WebhookTarget {
  /** The address to connect to: the first of the host's addresses (IPv4 first), every one of which passed. */
  readonly address: string
}

/** The checks of a URL that need no lookup (parseWebhookUrl; for an IP literal, the whole check) are functions of the
 *  URL and the rules alone: kept for the URLs seen last, since every delivery checks its endpoint's URL again. */
const checkedWithoutDns = new Map<string, Either.Either<WebhookTarget, string>>()
const maxCheckedWithoutDns = 1024

const parseTarget = (url: string, rules: UrlRules): Either.Either<WebhookTarget, string> => {
  const key = `${rules.allowPrivate ? "p" : "s"} ${url}`
  const known = checkedWithoutDns.get(key)
  if (known !== undefined) return known
  const parsed = parseWebhookUrl(url, rules)
  if (checkedWithoutDns.size >= maxCheckedWithoutDns) checkedWithoutDns.clear()
  checkedWithoutDns.set(key, parsed)
  return parsed
}

/** Checks `url` and resolves its host. Fails with the reason, in words, when the URL or one of its addresses is refused
 *  or the host does not resolve. */
export const checkWebhookTarget = (url: string, rules: UrlRules): Effect.Effect<CheckedTarget, string> => {
  const target = parseTarget(url, rules)
  if (Either.isLeft(target)) return Effect.fail(`url ${target.left}`)
  const { hostname, literal } = target.right
  // An IP literal passed parseWebhookUrl's address check: it is the address to connect to.
  if (literal !== undefined) return Effect.succeed({ ...target.right, address: literal })
  return Effect.flatMap(Dns, (dns) => dns.lookupAddresses(hostname)).pipe(
    Effect.mapError((error) => `url host ${hostname} does not resolve (${error.reason})`),
    Effect.flatMap((addresses) => {
      const checked = checkAddresses(hostname, addresses, rules)
      return Either.isLeft(checked) ? Effect.fail(`url host ${checked.left}`) : Effect.succeed({ ...target.right, address: checked.right[0]! })
    }),
  )
}
