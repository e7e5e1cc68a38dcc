/** createMailroom: wires the chosen backend, ids, every service, one ManagedRuntime and the router, and hands the host
 *  a web-standard `fetch`, Promise methods and the layer for Effect code. */
import {
  AccountsConfig, Background, DomainsConfig, defaultConfirmationFrom, defaultDeliveryConcurrency, DeliveryConfig, Geo, IdsLive, TrackingConfig, type JobQueue, LinksConfig, servicesLayer,
  type TemplateEngine,
  strictUrlRules, SubscriptionsConfig, Tracing, WebhooksConfig,
} from "@mailroom/core"
import {
  closeLingering, type FetchOptions, type HttpApp, type HttpServices, makeHttpApp, type RateLimitOptions, type TrustProxy,
} from "@mailroom/http"
import { NetSmtpProbe, NodeDns, parseDnsServers, TurnstileChallenge, type TurnstileOptions, UndiciTransport } from "@mailroom/net"
import { imageProcessorLayer, templateEngineLayer } from "@mailroom/templates"
import type { PageTheme } from "@mailroom/http"
import type { IncomingMessage } from "node:http"
import { Cause, Duration, Effect, Exit, Layer, ManagedRuntime, Scope } from "effect"
import { type AccountsApi, makeAccountsApi } from "./accounts-api.js"
import { canaryLayer, mailerLayer, sendsToDevOutbox } from "./mail.js"
import { backendLayer, defaultShutdownGrace } from "./backend.js"
import { defaultDatabase, type MailroomSettings, parseDatabase } from "./config.js"
import { type ContactsApi, makeContactsApi } from "./contacts-api.js"
import { type EmailsApi, makeEmailsApi } from "./emails-api.js"
import { mailroomLogger } from "./logging.js"
import { makeRunPromise } from "./promise-runner.js"
import { postgresSharedRates } from "./shared-rates.js"
import { makeSubscriptionsApi, type SubscriptionsApi } from "./subscriptions-api.js"

export type { FetchOptions, TrustProxy }

/** What Mailroom's runtime provides: every service (Background among them), the Store, Ids, the Mailer, the
 *  backend's JobQueue and the TemplateEngine. */
export type MailroomContext = HttpServices | JobQueue | TemplateEngine

/** The configuration of createMailroom: the settings of config.ts and the HTTP layer's own options (request rates,
 *  trusted proxies). */
export interface MailroomConfig extends MailroomSettings {
  /** Request rates per API key; the defaults follow the spec (60 POST /contacts per minute, 200 requests per second).
   *  On Postgres they are counted in the database (table mailroom_rate_limits), so that every instance on it shares
   *  them; on memory and SQLite, in the process. A `store` given here replaces either. */
  readonly rateLimits?: RateLimitOptions
  /** Which proxies in front of Mailroom are believed when they report the client's address in X-Forwarded-For: a
   *  number of hops, or a list of addresses, CIDR ranges and the names loopback, linklocal, uniquelocal. Default: none,
   *  so X-Forwarded-For is ignored. See docs/embedding.md, "Client address behind a proxy". */
  readonly trustProxy?: TrustProxy
  /** The look of the hosted pages (signup form, confirmation, unsubscribe, preference centre): product name, logo,
   *  colours. Default: a neutral theme (`makePageTheme` from @mailroom/http builds one from a few fields). */
  readonly pageTheme?: PageTheme
  /** A bot challenge on signup forms, verified with the provider's API. Default: none (docs/forms.md). */
  readonly botChallenge?: { readonly turnstile: TurnstileOptions }
  /** Serve the OpenAPI 3.1 document at GET /v1/openapi.json and the API reference page at GET /v1/reference, both
   *  without an API key. Default true; false answers both 404 (docs/api-reference.md). */
  readonly apiReference?: boolean
}

export interface Mailroom {
  /** The web-standard handler: /v1/…, /admin/… and /api/health, relative to where the host mounts it. A host that
   *  knows the peer address of the connection passes it as `{ clientAddress }` (the framework adapters do); without it
   *  the client address is unknown, unless @hono/node-server serves `fetch` itself (its `{ incoming }` tells it). */
  readonly fetch: (request: Request, options?: FetchOptions) => Promise<Response>
  readonly accounts: AccountsApi
  readonly contacts: ContactsApi
  readonly subscriptions: SubscriptionsApi
  /** Sending: send, batch, schedule, cancel, and reading a message back. */
  readonly emails: EmailsApi
  /** Every service, the Store, Ids, the Mailer and the JobQueue, for Effect hosts. It shares this Mailroom's instances
   *  (same database, same connections): building it does not open a second backend. */
  readonly layer: Layer.Layer<MailroomContext, unknown>
  /** The runtime behind `fetch` and the Promise methods. */
  readonly runtime: ManagedRuntime.ManagedRuntime<MailroomContext, unknown>
  /** The Hono app behind `fetch`, for hosts that compose Hono apps. */
  readonly app: HttpApp
  /** Resolves once the backend is open and migrated and the background work runs (the outbox relay and the job
   *  workers, unless `backgroundWork` is false); rejects with the reason it could not start. Optional: the first
   *  request starts both too. */
  readonly ready: () => Promise<void>
  /** Stops the background work gracefully (no new jobs are taken; running jobs get `shutdownGraceMillis` to finish,
   *  then are interrupted and retried later), then closes the backend and releases every resource. Safe to call more
   *  than once. */
  readonly close: () => Promise<void>
}


/** The Node request @hono/node-server passes beside the web Request when it serves `fetch` itself. */
const isNodeRequest = (incoming: unknown): incoming is IncomingMessage =>
  typeof incoming === "object" && incoming !== null && "httpVersionMajor" in incoming && "socket" in incoming

export const createMailroom = (config: MailroomConfig = {}): Mailroom => {
  const database = parseDatabase(config.database ?? defaultDatabase)
  const mailer = mailerLayer(config)
  const tracing = config.tracing ?? false
  const logger = mailroomLogger({ level: config.logLevel, format: config.logFormat })
  const dnsServers = config.dnsServers === undefined ? undefined : parseDnsServers(config.dnsServers)
  const shutdownGrace = config.shutdownGraceMillis === undefined ? defaultShutdownGrace : Duration.millis(config.shutdownGraceMillis)
  const canary = canaryLayer(config, dnsServers)
  const services = servicesLayer.pipe(
    Layer.provideMerge(canary),
    Layer.provideMerge(mailer.pipe(Layer.provideMerge(Layer.mergeAll(
      backendLayer(database, { sqliteSynchronous: config.sqliteSynchronous, shutdownGrace }).pipe(Layer.provide(IdsLive)),
      IdsLive,
      templateEngineLayer(),
      imageProcessorLayer,
      Layer.succeed(AccountsConfig, { secret: config.secret }),
      Layer.succeed(WebhooksConfig, {
        urlRules: config.unsafeAllowPrivateUrls === true ? { allowPrivate: true } : strictUrlRules,
        // Each statement is a round trip on Postgres: runs beyond the POSTs in flight overlap their database work.
        deliveryRunsPerPost: database.kind === "postgres" ? 4 : 1,
      }),
      NodeDns.layer({ ...config.dns, ...(dnsServers === undefined ? {} : { servers: dnsServers }) }),
      UndiciTransport.layer({ maxInFlight: defaultDeliveryConcurrency }),
      NetSmtpProbe.layer(config.smtpProbePort === undefined ? {} : { port: config.smtpProbePort }),
      Layer.succeed(LinksConfig, { appUrl: config.appUrl ?? "http://localhost:3000", trackUrl: config.trackUrl }),
      Layer.succeed(Tracing, tracing),
      Layer.succeed(SubscriptionsConfig, {
        confirmationFrom: config.confirmationFrom ?? defaultConfirmationFrom,
        confirmation: config.confirmation ?? "link",
      }),
      Layer.succeed(DeliveryConfig, config.delivery ?? {}),
      Layer.succeed(TrackingConfig, config.tracking ?? {}),
      ...(config.geo === undefined ? [] : [Layer.succeed(Geo, config.geo)]),
      templateEngineLayer(config.templates),
      Layer.succeed(DomainsConfig, {
        spfInclude: config.spfInclude, dmarcReportAddress: config.dmarcReportAddress, senderPolicy: config.senderPolicy,
      }),
      ...(config.botChallenge === undefined ? [] : [TurnstileChallenge.layer(config.botChallenge.turnstile)]),
    )))),
  )
  const runtime = ManagedRuntime.make(Layer.mergeAll(
    services,
    // Log lines go to stderr, redacted: stdout belongs to the host (the starter prints its URL there).
    logger,
    // Spans made below the services (@effect/sql makes one per statement) follow the same switch.
    Layer.setTracerEnabled(tracing),
  ))
  // On Postgres, each instance counting a key's requests in its own memory would let N instances make N times the
  // spec's rate: the counts live in the database they share.
  const sharedRates = database.kind === "postgres" && config.rateLimits?.store === undefined
    ? postgresSharedRates(database.url)
    : undefined
  const app = makeHttpApp({
    runtime,
    adminToken: config.adminToken,
    cronToken: config.cronToken,
    devOutbox: sendsToDevOutbox(config),
    bodyLimitBytes: config.bodyLimitBytes,
    rateLimits: sharedRates === undefined ? config.rateLimits : { ...config.rateLimits, store: sharedRates.limiter },
    trustProxy: config.trustProxy,
    pageTheme: config.pageTheme,
    apiReference: config.apiReference,
  })
  const run = makeRunPromise(runtime)
  let closing: Promise<void> | undefined

  // The scope of the background work: the relay and the workers that services registered with Background.
  let background: Promise<Scope.CloseableScope> | undefined
  const startBackground = () => {
    background ??= runtime.runPromise(Effect.gen(function* () {
      const scope = yield* Scope.make()
      const registry = yield* Background
      yield* Scope.extend(registry.start, scope).pipe(Effect.tapError(() => Scope.close(scope, Exit.void)))
      return scope
    }))
    return background
  }
  const backgroundWork = config.backgroundWork ?? true

  return {
    fetch: async (request, options) => {
      if (backgroundWork && background === undefined && closing === undefined) {
        startBackground().catch((error: unknown) =>
          run(Effect.logError("Mailroom: the background work could not start", error)).catch(() => undefined))
      }
      // Served by @hono/node-server directly (`serve({ fetch: mailroom.fetch })`): its Node request is passed beside.
      if (isNodeRequest(options?.incoming)) closeLingering(options.incoming)
      return app.fetch(request, options)
    },
    accounts: makeAccountsApi(run),
    contacts: makeContactsApi(run, runtime),
    subscriptions: makeSubscriptionsApi(run),
    emails: makeEmailsApi(run),
    layer: Layer.effectContext(Effect.map(runtime, (rt) => rt.context)),
    runtime,
    app,
    ready: async () => {
      const exit = await Effect.runPromiseExit(runtime.runtimeEffect)
      if (Exit.isFailure(exit)) throw Cause.squash(exit.cause)
      if (backgroundWork && closing === undefined) await startBackground()
    },
    close: () => {
      closing ??= (async () => {
        const scope = await background?.catch(() => undefined)
        if (scope !== undefined) await runtime.runPromise(Scope.close(scope, Exit.void))
        await runtime.dispose()
        await sharedRates?.close()
      })()
      return closing
    },
  }
}
