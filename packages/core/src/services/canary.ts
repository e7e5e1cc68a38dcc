/** The delivery canary (docs/canary.md; sending spec, "What the service does" and "Events"): a run sends a real message
 *  through the Mailer (the configured relay, or the dev outbox) to the canary address, waits for it in the Mailbox,
 *  reads its SPF, DKIM and DMARC results, keeps the run and raises email_canary_failed when it failed. A background task
 *  raises email_canary_stale when no run finished within the hour and its grace. */
import { Context, Duration, Effect, Option, Ref } from "effect"
import {
  authenticationProblem, type CanaryAuthentication, canaryLimits, type CanaryRun, isCanaryStale,
} from "../domain/canary.js"
import { currentDate } from "../internal/time.js"
import { Alerts } from "../ports/alerts.js"
import { Ids } from "../ports/ids.js"
import { Mailbox, type MailboxError, MessageAuthenticator, type ReceivedMessage } from "../ports/mailbox.js"
import { Mailer, type OutgoingMessage } from "../ports/mailer.js"
import { Store } from "../ports/store.js"
import { Background } from "./background.js"
import { DeliveryConfig } from "./message-delivery.js"
import { LinksConfig } from "./tokens.js"

export interface CanaryOptions {
  /** The address the canary mails and reads back (CANARY_ADDRESS). Default `canary@` + the host of APP_URL. */
  readonly address?: string | undefined
  /** The canary's From address (CANARY_FROM). Default: the canary address. Mail from a domain with a key in
   *  `delivery.dkimKeys` is signed with it, so that DKIM and DMARC can pass. */
  readonly from?: string | undefined
  /** How long a run waits for its message. Default 2 minutes. */
  readonly readTimeout?: Duration.DurationInput | undefined
  /** How often the mailbox is looked at while waiting. Default 1 second. */
  readonly pollInterval?: Duration.DurationInput | undefined
  /** Whether this process watches for a stale canary (default true when the canary is enabled). */
  readonly watchStale?: boolean | undefined
  /** How long without a finished run makes the canary stale. Default 75 minutes (the hourly interval + 15 minutes). */
  readonly staleAfter?: Duration.DurationInput | undefined
  /** How often staleness is checked. Default 5 minutes. */
  readonly staleCheckInterval?: Duration.DurationInput | undefined
}

/** The canary's settings; `enabled` false (no CRON_TOKEN) registers no staleness watch. */
export class CanaryConfig extends Context.Reference<CanaryConfig>()("@mailroom/core/CanaryConfig", {
  defaultValue: (): CanaryOptions & { readonly enabled: boolean } => ({ enabled: false }),
}) {}

/** The header that tells the canary's message from any other in the mailbox. */
export const canaryHeader = "X-Mailroom-Canary"

const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1).toLowerCase()

export class Canary extends Effect.Service<Canary>()("@mailroom/core/Canary", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const config = yield* CanaryConfig
    const background = yield* Background
    const appHost = new URL((yield* LinksConfig).appUrl).hostname
    const address = config.address ?? `canary@${appHost}`
    const from = config.from ?? address
    const readTimeout = Duration.decode(config.readTimeout ?? Duration.millis(canaryLimits.readTimeoutMs))
    const pollInterval = Duration.decode(config.pollInterval ?? Duration.millis(canaryLimits.pollIntervalMs))
    const staleAfter = Duration.toMillis(config.staleAfter ?? Duration.millis(canaryLimits.intervalMs + canaryLimits.staleGraceMs))

    /** Waits for the message until the read timeout: some when found, none when it never came. */
    const awaitMessage = (token: string) =>
      Effect.flatMap(Mailbox, (mailbox) => {
        const look: Effect.Effect<Option.Option<ReceivedMessage>, MailboxError> = mailbox.take(address, token).pipe(
          Effect.flatMap((found) => Option.isSome(found) ? Effect.succeed(found) : Effect.zipRight(Effect.sleep(pollInterval), Effect.suspend(() => look))),
        )
        return look.pipe(Effect.timeoutTo({ duration: readTimeout, onTimeout: () => Option.none<ReceivedMessage>(), onSuccess: (found) => found }))
      })

    /** Sends, waits and checks; answers what the run found, or why it failed. */
    const probe = (runId: string, startedAt: Date) =>
      Effect.gen(function* () {
        const mailer = yield* Mailer
        const delivery = yield* DeliveryConfig
        const token = ids.token(16)
        const message: OutgoingMessage = {
          envelopeFrom: from,
          envelopeTo: [address],
          from: { email: from, name: "Mailroom canary" },
          to: [{ email: address }],
          subject: `Mailroom delivery canary ${runId}`,
          text: `This message checks that mail sent by Mailroom arrives. Run ${runId}, sent ${startedAt.toISOString()}.`,
          headers: { [canaryHeader]: token },
          dkim: delivery.dkimKeys?.find((key) => key.domainName.toLowerCase() === domainOf(from)),
        }
        const sent = yield* Effect.either(mailer.send(message))
        if (sent._tag === "Left") return { messageId: null, error: `the relay took nothing: ${sent.left.detail}` } as const
        const outcome = sent.right.recipients[0]
        if (outcome?.status !== "accepted") {
          return { messageId: sent.right.messageId, error: `the relay did not accept the message: ${outcome?.reply ?? "no answer"}` } as const
        }
        const sentAt = Date.now()
        const found = yield* Effect.either(awaitMessage(token))
        if (found._tag === "Left") return { messageId: sent.right.messageId, error: `the mailbox could not be read: ${found.left.detail}` } as const
        const received = found.right
        if (Option.isNone(received)) {
          return { messageId: sent.right.messageId, error: `the message did not arrive within ${Duration.format(readTimeout)}` } as const
        }
        const latencyMs = Date.now() - sentAt
        const authentication: CanaryAuthentication = yield* Effect.flatMap(MessageAuthenticator, (auth) => auth.authenticate(received.value.raw))
        return { messageId: sent.right.messageId, latencyMs, authentication, error: authenticationProblem(authentication) } as const
      })

    /** POST /api/cron/email-canary: one run, kept, and alerted when it failed. */
    const run = Effect.gen(function* () {
      const startedAt = yield* currentDate
      const id = ids.make("canaryRun", startedAt)
      const found = yield* probe(id, startedAt)
      const finishedAt = yield* currentDate
      const result: CanaryRun = {
        id,
        status: found.error === null ? "passed" : "failed",
        recipient: address,
        messageId: found.messageId,
        startedAt,
        finishedAt,
        latencyMs: "latencyMs" in found ? found.latencyMs : null,
        authentication: "authentication" in found ? found.authentication : null,
        error: found.error,
      }
      yield* store.canaryRuns.insert(result)
      if (result.status === "failed") {
        yield* Effect.flatMap(Alerts, (alerts) => alerts.raise({
          name: "email_canary_failed", severity: "critical", message: `delivery canary run ${id} failed: ${result.error}`, run: result,
        }))
      }
      return result
    }).pipe(Effect.withSpan("Canary.run"))

    /** GET /admin/canary/runs. */
    const list = (limit: number) => store.canaryRuns.list(limit)

    /** Raises email_canary_stale once per stale spell: again only after a run has finished since. */
    const watchingSince = yield* currentDate
    const alertedFor = yield* Ref.make<string | null | undefined>(undefined)
    const checkStale = Effect.gen(function* () {
      const latest = (yield* store.canaryRuns.list(1))[0] ?? null
      const now = yield* currentDate
      if (!isCanaryStale(latest?.finishedAt ?? null, watchingSince, now, staleAfter)) return false
      const key = latest?.id ?? null
      if ((yield* Ref.get(alertedFor)) === key) return true
      yield* Ref.set(alertedFor, key)
      const since = latest === null ? `since ${watchingSince.toISOString()} (no run recorded)` : `since ${latest.finishedAt.toISOString()} (run ${latest.id})`
      yield* Effect.flatMap(Alerts, (alerts) => alerts.raise({
        name: "email_canary_stale", severity: "high", message: `no delivery canary run finished ${since}`, lastRun: latest,
      }))
      return true
    })

    if (config.enabled && config.watchStale !== false) {
      yield* background.every("canary staleness", config.staleCheckInterval ?? Duration.minutes(5), Effect.asVoid(checkStale))
    }

    return { run, list, checkStale, address } as const
  }),
}) {}
