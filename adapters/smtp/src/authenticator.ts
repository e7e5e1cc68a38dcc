/** The MessageAuthenticator over mailauth: the SPF, DKIM and DMARC results a receiver would find for a received
 *  message. The connecting address and HELO name come from the message's newest Received header (mailauth's
 *  trustReceived): a message that never crossed SMTP (the dev outbox) has none, and its SPF is `none`. Lookups go to
 *  the given DNS servers (DNS_SERVERS), like every lookup Mailroom makes. */
import { promises as dns } from "node:dns"
import { MessageAuthenticator } from "@mailroom/core"
import { Effect, Layer } from "effect"

export interface MailauthOptions {
  /** `host` or `host:port` entries; the system's resolvers when empty or undefined. */
  readonly servers?: ReadonlyArray<string> | undefined
  readonly timeoutMs?: number | undefined
}

export const MailauthAuthenticator = {
  layer: (options: MailauthOptions = {}): Layer.Layer<MessageAuthenticator> => Layer.sync(MessageAuthenticator, () => {
    const resolver = new dns.Resolver({ timeout: options.timeoutMs ?? 2000, tries: 2 })
    if (options.servers !== undefined && options.servers.length > 0) resolver.setServers([...options.servers])
    const resolve = (name: string, type: string) => resolver.resolve(name, type) as Promise<Array<string> | Array<Array<string>>>
    return {
      authenticate: (raw) => Effect.promise(async () => {
        // Loaded on first use: only the canary checks received mail.
        const { authenticate } = await import("mailauth")
        const result = await authenticate(raw, {
          trustReceived: true, resolver: resolve, mta: "mailroom-canary", disableArc: true, disableBimi: true,
        })
        const signatures = result.dkim.results ?? []
        const dkim = signatures.some((signature) => signature.status.result === "pass")
          ? "pass"
          : signatures[0]?.status.result ?? "none"
        return {
          spf: result.spf === false ? "none" : result.spf.status.result,
          dkim,
          dmarc: result.dmarc === false ? "none" : result.dmarc.status.result,
        }
      }).pipe(Effect.catchAllDefect(() => Effect.succeed({ spf: "temperror", dkim: "temperror", dmarc: "temperror" }))),
    }
  }),
} as const
